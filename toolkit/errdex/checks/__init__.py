"""Validation checks: what ``errdex validate`` runs over every record.

``base`` holds what a check is made of, ``registry`` every check by code or
name, ``runner`` one validation run, ``config`` which checks run, ``output``
how findings are shown; the other modules hold the checks, by subject.
This file imports nothing, so importing one module of the package stays cheap.
"""
