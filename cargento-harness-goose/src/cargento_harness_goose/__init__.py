"""Cargento harness plugin for Goose."""

__version__ = "0.1.0"
