"""Cargento harness plugin for Factory Droid."""

__version__ = "0.1.0"
