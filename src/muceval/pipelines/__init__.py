"""The library's pipelines: from the files a command names to the result it shows.

Each command of ``muceval`` is one call here (and the rendering of its result): the CLI
parses options, calls the pipeline, and prints or writes what it returns. A library user
reproduces any command with the same call.

* :mod:`~muceval.pipelines.inputs` — what the input files are (one resolver, one frozen
  variant per kind of input);
* :mod:`~muceval.pipelines.report` — ``muceval report``: every section of the HTML report;
* :mod:`~muceval.pipelines.compare` — ``muceval compare``: candidates against a baseline;
* :mod:`~muceval.pipelines.significance` — ``muceval significance``: every pair tested;
* :mod:`~muceval.pipelines.convert` — ``muceval convert``: a file in another layout;
* :mod:`~muceval.pipelines.common` — what they share (scoring notes, responses scored).
"""
