"""The ``muceval`` command line: a thin layer over the library.

One module per command; each parses its options, calls the library and prints.
Errors in user input (:class:`muceval.errors.MucevalError`) end the program with
exit code 2 and one clear message; they never show a traceback.
"""

from muceval.cli import (  # noqa: F401  (each module adds its command)
    adjudicate,
    alignment,
    batch,
    compare,
    convert,
    convert_config,
    demo,
    errors,
    report,
    score,
    significance,
    validate,
)
from muceval.cli.app import cli, main

__all__ = ["cli", "main"]
