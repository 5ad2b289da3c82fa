"""The tutorial's example harness plugin."""

__version__ = "0.1.0"
