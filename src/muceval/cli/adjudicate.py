"""muceval adjudicate: answer the open questions in the browser, beside the message text."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from muceval.cli.app import cli
from muceval.cli.common import (
    RESPONSES,
    expand_folders,
    name_option,
    parse_names,
    report_warnings,
)
from muceval.cli.groups import ConfigurationChoice, configuration_options
from muceval.errors import UsageError

if TYPE_CHECKING:
    from muceval.scoring.muc1992.options import MappingKind


@cli.command("adjudicate")
@click.argument("responses", nargs=-1, metavar="RESPONSE...", type=click.Path())
@click.option("--key", "key_path", type=click.Path(dir_okay=False), help="The answer key.")
@configuration_options()
@click.option("--history", "history_path", required=True, type=click.Path(dir_okay=False),
              help="The history the answers go into (created if it does not exist; locked "
              "while the page is served).")
@click.option("--texts", "texts_path", type=click.Path(exists=True),
              help="The message texts: a MUC corpus text file or a folder of them (e.g. "
              "../shared/muc4/corpora).")
@click.option("--mapping", type=click.Choice(["greedy", "optimal"]), default="greedy",
              help="The automatic template mapping.")
@click.option("--example", is_flag=True,
              help="Adjudicate the bundled example (its key, configuration, texts and four "
              "systems) into --history.")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="Port on 127.0.0.1 (0: a free one).")
@click.option("--no-browser", is_flag=True, help="Print the address; do not open a browser.")
@name_option
def adjudicate(responses: tuple[str, ...], key_path: str | None,
               configuration: ConfigurationChoice, history_path: str, texts_path: str | None,
               mapping: MappingKind,
               example: bool, port: int, no_browser: bool, names: tuple[str, ...]) -> None:
    """Serve the open questions of the responses as a page, on 127.0.0.1 only.

    For each fill no rule can decide: the message text with the key and
    response fills marked, the key and response templates side by side, the
    slot and the rule that left it open, and buttons (keys c, p, i, s; u takes
    the last answer back). Each answer is saved in the history (1992 format)
    before the next question is shown, and the scores are updated. A message's
    templates can be re-mapped by hand per system; the mapping is kept in
    HISTORY.mappings/SYSTEM.map, which `muceval score` with that history uses.
    The address carries a token: requests without it are refused.

    \b
    Example:
      muceval adjudicate --example --history my-answers.lisp
      muceval adjudicate --key ../shared/muc4/corpora/tst3/key-tst3.v2 \\
          --config ../shared/muc4/tst3/config-tst3.el --history h.tst3 \\
          --texts ../shared/muc4/corpora ../shared/muc4/tst3/responses/
    """
    import secrets
    import socket
    import tempfile
    import threading
    import webbrowser

    import uvicorn

    from muceval.formats.muc.texts import read_texts
    from muceval.scoring.adjudication import Adjudication
    from muceval.web.app import create_app

    if example:
        from muceval.reporting.demo import example_files

        if responses or key_path or configuration.given or texts_path:
            raise UsageError("--example takes no RESPONSE, --key, --config, --slots or --texts")
        bundled = example_files()
        key_path, texts_path, responses = bundled.key, bundled.texts, bundled.responses
        configuration = ConfigurationChoice(bundled.config, None)
    if key_path is None or not responses:
        raise UsageError("give --key and RESPONSE files (or --example)")
    paths = expand_folders(responses, RESPONSES)
    config = configuration.load()
    texts = read_texts(texts_path) if texts_path else None
    token = secrets.token_urlsafe(18)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(("127.0.0.1", port))
        # Listening before the address is printed: a client that connects at once waits in
        # the backlog until the server takes it, instead of being refused.
        listener.listen(128)
    except OSError as error:
        raise UsageError(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}") from None
    address = f"http://127.0.0.1:{listener.getsockname()[1]}/{token}/"
    with Adjudication(config, key_path, paths, history_path, names=parse_names(names, paths),
                      mapping=mapping) as session:
        report_warnings(session.warnings, session.file_warnings, strict=False)
        click.echo(f"{len(session.questions)} open question(s), {session.reused} answered by "
                   f"the history; answers go into {history_path}")
        click.echo(f"adjudication page: {address}  (Ctrl-C to stop)", nl=True)
        app = create_app(session, token, texts)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        with tempfile.TemporaryDirectory(prefix="muceval-") as private:
            if not no_browser:
                opener = _redirect_file(Path(private), address)
                threading.Timer(0.5, webbrowser.open, args=(opener.as_uri(),)).start()
            server.run(sockets=[listener])
    click.echo("stopped; every answer is in the history")


def _redirect_file(folder: Path, address: str) -> Path:
    """A page only this user can read that sends the browser on to ``address``: the browser
    is started with its path, so the token stays out of the process list (as Jupyter does)."""
    import html

    path = folder / "open-adjudication.html"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as page:
        page.write(f'<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="refresh" '
                   f'content="0;url={html.escape(address)}"><title>muceval adjudicate</title>'
                   f'<p><a href="{html.escape(address)}">the adjudication page</a></p>\n')
    return path
