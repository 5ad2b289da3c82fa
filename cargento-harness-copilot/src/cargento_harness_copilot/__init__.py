"""Cargento harness plugin for GitHub Copilot CLI."""

__version__ = "0.1.0"
