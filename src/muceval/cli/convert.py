"""muceval convert: modern MUC-4 files (and 1992 templates) from one layout to another."""

from __future__ import annotations

import click

from muceval.cli.app import cli
from muceval.cli.common import SCHEMA_OPTION, notice
from muceval.cli.groups import ConfigurationChoice, Destination, configuration_options
from muceval.formats.modern import TARGET_LAYOUTS
from muceval.pipelines.common import refuse_outputs


@cli.command("convert")
@click.argument("source", metavar="INPUT", type=click.Path(dir_okay=False))
@click.option("--to", "layout", required=True, type=click.Choice(TARGET_LAYOUTS),
              help="The layout to write: muceval's neutral JSON, or that of GTT, GRIT or IterX.")
@configuration_options("For a 1992 template file")
@click.option("--gold", is_flag=True,
              help="For a 1992 template file: it is an answer key (the -gold layouts imply it).")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write to this file instead of standard output.")
@click.option("--force", is_flag=True, help="Replace --output if it exists.")
@SCHEMA_OPTION
def convert(source: str, layout: str, configuration: ConfigurationChoice,
            gold: bool, output: str | None, force: bool, schema: str | None) -> None:
    """Convert between the modern MUC-4 layouts (GTT, GRIT, IterX, muceval's neutral JSON).

    INPUT is detected: any modern layout, or a 1992 template file (key or
    response), whose incident type and string slots become the five roles
    (perp-ind-id → PerpInd, perp-org-id → PerpOrg, phys-tgt-id → Target,
    hum-tgt-name and hum-tgt-desc → Victim, inc-instr-id → Weapon; '/'
    alternatives are mentions of one entity). The template layouts cannot be
    made from GRIT's extracts; the extract layouts take the per-role union of
    each document's templates. Scores do not change across a conversion.

    \b
    Example:
      muceval convert ../shared/modern/gtt/preds_gtt.out --to iterx-pred -o gtt.jsonlines
      muceval convert ../shared/muc4/corpora/tst3/key-tst3.v2 --to gtt-gold -o tst3-gold.json
      muceval convert kitchen/gold.jsonl --schema kitchen/schema.toml --to muceval
    """
    from muceval.pipelines.convert import convert_file

    refuse_outputs([output], {source: "input", **configuration.inputs()})
    done = convert_file(source, layout, config=configuration.config_path,
                        slots=configuration.slots_path, gold=gold, schema=schema)
    for note in done.notes:
        notice(note)
    Destination(output, force).emit(done.text)
    if output is not None:
        notice(f"wrote {output} ({done.documents} documents, {layout})")
