"""The ``muceval`` command line: one module per command, which parses its options, calls the
library and prints."""

from muceval.cli.app import cli, main

# Each command's module is imported when the command runs (muceval.cli.app.COMMAND_MODULES).

__all__ = ["cli", "main"]
