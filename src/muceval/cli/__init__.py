"""The ``muceval`` command line: one module per command, which parses its options, calls the
library and prints. Errors in user input (:class:`muceval.errors.MucevalError`) end the
program with exit code 2 and one clear message, never a traceback.
"""

from muceval.cli.app import cli, main

# Each command's module is imported when the command runs (muceval.cli.app.COMMAND_MODULES).

__all__ = ["cli", "main"]
