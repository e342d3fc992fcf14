"""muceval's version, written only here (pyproject.toml reads it) as a constant: any layer can
name it without the public API, and it costs no start-up (``importlib.metadata`` took 45 ms)."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
