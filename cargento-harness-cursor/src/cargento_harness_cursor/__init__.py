"""Cargento harness plugin for Cursor CLI."""

__version__ = "0.1.0"
