"""muceval's version, in a module of its own so that any layer can name it without importing
the package's public API. The one place it is written: pyproject.toml reads it from here
(``[tool.setuptools.dynamic]``), and a constant costs no start-up (``importlib.metadata``
took about 45 ms of every command)."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
