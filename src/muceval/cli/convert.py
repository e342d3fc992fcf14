"""muceval convert: modern MUC-4 files (and 1992 templates) from one layout to another."""

from __future__ import annotations

import click

from muceval.cli.app import cli
from muceval.cli.common import SCHEMA_OPTION, notice, refuse_overwriting_inputs
from muceval.cli.groups import ConfigurationChoice, configuration_options
from muceval.formats.modern import TARGET_LAYOUTS


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
    from muceval.errors import InputError
    from muceval.formats.files import read_text, write_atomic
    from muceval.formats.modern import detect_layout, layout_named, parse_modern
    from muceval.formats.modern.writer import from_templates, write_layout
    from muceval.formats.muc.templates import read_templates
    from muceval.formats.schema import resolve_schema

    refuse_overwriting_inputs(output, {source: "input", **configuration.inputs()})
    text = read_text(source)
    writes_gold = None if layout == "muceval" else layout_named(layout).gold  # None: as input
    if not text.strip():
        raise InputError.at(source, None, "an empty file: nothing to convert")
    if detect_layout(text) is not None:
        if configuration.given or gold:
            raise click.UsageError("--config, --slots and --gold are for 1992 template files; "
                                   f"{source} is a modern MUC-4 file")
        modern = parse_modern(text, source, schema=None if schema is None
                              else resolve_schema(schema))
    else:
        if schema is not None:
            raise click.UsageError("--schema is for modern files; 1992 template files become "
                                   "MUC-4 templates")
        config = configuration.load()
        modern = from_templates(read_templates(source, config), config, gold or bool(writes_gold))
    if writes_gold and not modern.gold:
        predictions = [t for t in TARGET_LAYOUTS[1:] if not layout_named(t).gold]
        raise click.UsageError(f"{source} holds predictions ({modern.layout}): --to {layout} "
                               f"writes a gold file (use {', '.join(predictions)} or muceval)")
    if writes_gold is False and modern.gold:
        notice(f"note: {source} is a gold file; written as predictions ({layout})")
    written = write_layout(modern, layout)
    if output is None:
        click.echo(written, nl=False)
    else:
        write_atomic(output, written, overwrite=force)
        notice(f"wrote {output} ({len(modern.documents)} documents, {layout})")
