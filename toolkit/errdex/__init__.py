"""errdex"""
