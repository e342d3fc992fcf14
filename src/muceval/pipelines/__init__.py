"""The library's pipelines: each command of ``muceval`` is one call here, which the CLI makes
and whose result it prints or writes."""
