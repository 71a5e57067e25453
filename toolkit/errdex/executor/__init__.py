"""Executors that run commands the way an upstream project does, to prove its error records.

Each executor is a subpackage named for the service it talks to; see
:mod:`errdex.executor.createos`.
"""
