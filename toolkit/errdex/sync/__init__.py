"""Rewriting what is mechanical in records whose code moved, from what drift found; prose is never touched."""
