"""Scorer configurations: the 1992 ``.el`` files and muceval's native TOML format.

A configuration says which slots a template has (id, label, type, set tree,
cross-references) and how to score (mapping restriction, premodifiers,
subtotal rows, display type, flags). Two formats are read into the same
:class:`~muceval.core.model.Configuration`:

* the 1992 Emacs Lisp files: ``config-*.el`` (a
  ``define-muc-configuration-options`` form) and ``slotconfig-*.el``
  (``setq`` of the header regexps and a ``define-muc-template-slots`` form);
* the native TOML format described in ``docs/configuration.md``, which
  :func:`write_configuration_toml` writes and :func:`convert_configuration`
  produces from a 1992 pair.

The MUC-4 configuration ships with muceval (:func:`bundled_configuration`).

>>> config = bundled_configuration("muc4")
>>> config.slot("inc-type").cardinality, config.slot("inc-type").hierarchical
(7, True)
"""

from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path

from muceval.core.model import Configuration
from muceval.errors import UsageError
from muceval.formats.config.common import DEFAULTS, _read_text
from muceval.formats.config.lisp import read_lisp_configuration
from muceval.formats.config.native import parse_configuration_toml
from muceval.formats.config.writer import write_configuration_toml

__all__ = [
    "DEFAULTS",
    "bundled_configuration",
    "convert_configuration",
    "load_configuration",
    "parse_configuration_toml",
    "read_lisp_configuration",
    "write_configuration_toml",
]

# ---------------------------------------------------------------------------
# Public entry points
# ---------------------------------------------------------------------------


def load_configuration(path: str | Path, slots_path: str | Path | None = None, *,
                       slot_file_alone: bool = False) -> Configuration:
    """Read a configuration: native TOML (``*.toml``) or a 1992 ``config-*.el``.

    For a 1992 configuration without ``slots_path``, the slot file named by
    ``:slot-file`` is looked for by its base name next to the configuration.
    A 1992 slot file alone (only ``define-muc-template-slots``) is refused
    unless ``slot_file_alone``; every option then has its 1992 default.

    >>> import muceval.formats.config as c, importlib.resources as r
    >>> path = r.files("muceval") / "data" / "muc4.toml"
    >>> len(c.load_configuration(str(path)).slots)
    25
    """
    path = Path(path)
    if path.suffix.lower() == ".toml":
        if slots_path is not None:
            raise UsageError("a slot file can only be given with a 1992 (.el) configuration")
        return parse_configuration_toml(_read_text(path), str(path))
    return read_lisp_configuration(path, slots_path, slot_file_alone=slot_file_alone)


def bundled_configuration(name: str = "muc4") -> Configuration:
    """A configuration shipped with muceval (``src/muceval/data/<name>.toml``).

    The result is cached; configurations are immutable, so sharing is safe.

    >>> bundled_configuration("muc4").slots[0].slot_id
    'message-id'
    """
    return _bundled(name)


@functools.cache
def _bundled(name: str) -> Configuration:
    resource = importlib.resources.files("muceval") / "data" / f"{name}.toml"
    if not name.replace("-", "").replace("_", "").isalnum() or not resource.is_file():
        available = sorted(
            entry.name[: -len(".toml")]
            for entry in (importlib.resources.files("muceval") / "data").iterdir()
            if entry.name.endswith(".toml")
        )
        raise UsageError(
            f"no bundled configuration named {name!r} (available: {', '.join(available)})"
        )
    text = resource.read_text(encoding="utf-8")
    return parse_configuration_toml(text, f"<bundled {name}.toml>")


def convert_configuration(
    config_el: str | Path, slots_el: str | Path | None = None, *, comment: str | None = None
) -> str:
    """Convert a 1992 configuration (and its slot file) into native TOML text.

    >>> text = convert_configuration(  # doctest: +SKIP
    ...     "tst3/config-tst3.el", "tst3/slotconfig-tst3.el")
    """
    config = read_lisp_configuration(Path(config_el), slots_el)
    if comment is None:
        sources = [Path(config_el).name]
        if slots_el is not None:
            sources.append(Path(slots_el).name)
        elif config.source and config.source != str(config_el):
            sources.append(Path(config.source.split(" + ")[-1]).name)
        comment = "muceval configuration converted from the 1992 files " + " + ".join(
            dict.fromkeys(sources)
        )
    return write_configuration_toml(config, comment=comment)
