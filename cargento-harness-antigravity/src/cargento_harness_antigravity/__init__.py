"""Cargento harness plugin for Antigravity CLI."""

__version__ = "0.1.0"
