"""Cargento harness plugin for Gemini CLI."""

__version__ = "0.1.0"
