"""Cargento web dashboard."""

__version__ = "0.1.0"
