"""muceval batch: score many test sets in one run."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from muceval.cli.app import cli
from muceval.cli.common import JSON_UNIT_OPTION, notice, progress_bar, report_warnings
from muceval.errors import UsageError

if TYPE_CHECKING:
    from muceval.reporting.outputs import Level, ScoreFormat


@cli.command("batch")
@click.argument("batch_path", metavar="BATCH", type=click.Path(dir_okay=False))
@click.option("--output-dir", required=True, type=click.Path(file_okay=False),
              help="Folder for the results: one folder per test set, holding one file per "
              "system and a summary (as muceval score --output-dir writes them).")
@click.option("--scheduler", help="Score on Dask: tcp://HOST:8786 or local:N. Every system "
              "of every test set is one task; each test set's key, configuration and history "
              "are sent once. Needs 'muceval[distributed]'.")
@click.option("--format", "fmt", type=click.Choice(["json", "csv", "report"]), default="json",
              help="What each system's file holds (report: the 1992 text).")
@JSON_UNIT_OPTION
@click.option("--force", is_flag=True, help="Replace existing result files.")
def batch(batch_path: str, output_dir: str, scheduler: str | None, fmt: ScoreFormat, unit: Level,
          force: bool) -> None:
    """Score every test set of a BATCH file (TOML) in one run.

    Each [[test-set]] names its key, responses (files or folders), and optionally its
    configuration (default: the bundled MUC-4 one), slot file, history and query-pass
    (default true); paths are relative to the batch file.

    \b
    Example batch file:
      format-version = 1
      [[test-set]]
      name = "tst3"
      key = "muc4/corpora/tst3/key-tst3.v2"
      config = "muc4/tst3/config-tst3.el"
      history = "muc4/tst3/final-history-nrad.tst3"
      responses = ["muc4/tst3/responses/"]
      query-pass = false
    \b
    Example:
      muceval batch tst3-tst4.toml --output-dir scores/ --scheduler local:2
    """
    from rich.console import Console

    from muceval.formats.batch import read_batch
    from muceval.formats.config import resolve_configuration
    from muceval.reporting.outputs import ScoreView, write_folder
    from muceval.reporting.terminal import summary_table
    from muceval.scoring.batch import score_test_sets
    from muceval.version import __version__

    if unit != "message" and fmt != "json":
        raise UsageError(f"--unit {unit} writes the units into muceval's JSON scores: it goes "
                         "with --format json")
    specs = read_batch(batch_path)
    test_sets = [(spec, resolve_configuration(spec.config, spec.slots)) for spec in specs]
    for spec in specs:
        target = os.path.join(output_dir, spec.name)
        if os.path.exists(target) and not os.path.isdir(target):
            raise UsageError(f"{target} is a file: the results of test set {spec.name!r} go "
                             "into a folder of that name")
        if os.path.isdir(target) and not force and os.listdir(target):
            raise UsageError(f"{target} exists and is not empty; use --force to replace its "
                             "files")
    with progress_bar(True, "scoring") as advance:
        results = score_test_sets(test_sets, scheduler=scheduler, fills=unit == "fill",
                                  progress=advance)
    # What no result may replace: the batch file, and every file of every test set (a
    # configuration's slot file included).
    inputs: dict[str | None, str] = {batch_path: "batch file"}
    for spec, config in test_sets:
        inputs.update({spec.key: "key", spec.config: "configuration", spec.slots: "slot file",
                       spec.history: "history"})
        inputs.update((path, "response file") for path in spec.responses)
        inputs.update((path, "configuration file") for path in config.read_from)
    for spec, config in test_sets:
        session = results[spec.name]
        view = ScoreView(fmt, unit=unit, settings={
            "command": "batch", "muceval": __version__, "batch": batch_path,
            "test_set": spec.name, "key": spec.key, "configuration": spec.config or "muc4",
            "slots": spec.slots, "history": spec.history, "responses": list(spec.responses),
            "query_pass": spec.query_pass, "unresolved": "incorrect"})
        folder = os.path.join(output_dir, spec.name)
        written = write_folder(folder, view, session.systems, config, inputs, force)
        table = summary_table(session.systems, config)
        table.title = f"{spec.name}: ALL TEMPLATES (%)"
        Console().print(table)
        notice(f"{spec.name}: {len(session.systems)} systems scored, {len(written)} files "
               f"in {folder}; test them with muceval significance {folder}")
        # Which files, how many, and the command that lists them (as score says it).
        report_warnings(session.warnings, session.file_warnings, False)
