"""Cargento harness plugin for OpenCode."""

__version__ = "0.1.0"
