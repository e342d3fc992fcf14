"""muceval convert-config: a 1992 configuration as muceval TOML."""

from __future__ import annotations

import click

from muceval.cli.app import cli
from muceval.cli.common import notice
from muceval.cli.groups import Destination
from muceval.pipelines.common import refuse_outputs


@cli.command("convert-config")
@click.argument("config_el", metavar="CONFIG.el", type=click.Path(dir_okay=False))
@click.option(
    "--slots",
    "slots_el",
    metavar="SLOTS.el",
    type=click.Path(dir_okay=False),
    help="The 1992 slot file (default: the :slot-file of CONFIG.el, looked for next to it).",
)
@click.option(
    "-o",
    "--output",
    metavar="OUT.toml",
    type=click.Path(dir_okay=False),
    help="Write to this file instead of standard output.",
)
@click.option("--force", is_flag=True, help="Overwrite OUT.toml if it exists.")
def convert_config(
    config_el: str, slots_el: str | None, output: str | None, force: bool
) -> None:
    """Convert a 1992 configuration (config-*.el + slotconfig-*.el) into muceval's TOML format.

    The output file is written atomically and never overwritten without --force.

    \b
    Example:
      muceval convert-config tst3/config-tst3.el --slots tst3/slotconfig-tst3.el -o tst3.toml
    """
    from muceval.formats.config import convert_configuration, load_configuration

    # Every file read, the slot file the configuration names included (read once more below).
    read = load_configuration(config_el, slots_el).read_from
    refuse_outputs([output], {config_el: "configuration", slots_el: "slot file",
                              **{path: "configuration file" for path in read}})
    Destination(output, force).emit(convert_configuration(config_el, slots_el))
    if output is not None:
        notice(f"wrote {output}")
