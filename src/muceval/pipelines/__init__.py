"""The library's pipelines: from the files a command names to the result it shows.

Each command of ``muceval`` is one call here (and the rendering of its result): the CLI
parses options, calls the pipeline, and prints or writes what it returns. A library user
reproduces any command with the same call.
"""
