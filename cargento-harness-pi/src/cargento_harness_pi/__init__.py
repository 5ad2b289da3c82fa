"""Cargento harness plugin for Pi."""

__version__ = "0.1.0"
