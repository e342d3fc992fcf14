"""muceval: MUC-style template scoring, significance testing and alignment diagnostics."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("muceval")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"
