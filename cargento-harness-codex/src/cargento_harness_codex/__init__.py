"""Cargento harness plugin for Codex."""

__version__ = "0.1.0"
