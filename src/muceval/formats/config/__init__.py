"""Scorer configurations: the 1992 ``config-*.el`` and ``slotconfig-*.el`` files and muceval's
native TOML format (``docs/configuration.md``), both read into a
:class:`~muceval.core.model.Configuration`.

>>> config = bundled_configuration("muc4")
>>> config.slot("inc-type").cardinality, config.slot("inc-type").hierarchical
(7, True)
"""

from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path

from muceval.core.model import Configuration
from muceval.errors import InputError, UsageError
from muceval.formats.config.common import DEFAULTS, _read_text
from muceval.formats.config.lisp import read_lisp_configuration
from muceval.formats.config.native import parse_configuration_toml
from muceval.formats.config.writer import write_configuration_toml

__all__ = [
    "DEFAULTS",
    "BUNDLED_CONFIGURATIONS",
    "bundled_configuration",
    "convert_configuration",
    "load_configuration",
    "parse_configuration_toml",
    "read_lisp_configuration",
    "resolve_configuration",
    "write_configuration_toml",
]


def load_configuration(path: str | Path, slots_path: str | Path | None = None, *,
                       slot_file_alone: bool = False) -> Configuration:
    """Read a scorer configuration: native TOML (``*.toml``, any case) or a 1992 ``config-*.el``.

    Parameters
    ----------
    slots_path : str or pathlib.Path or None, default None
        The 1992 slot file (``slotconfig-*.el``), for a 1992 configuration only. None: the file
        its ``:slot-file`` option names, looked for beside ``path``, or the slots in ``path``.
    slot_file_alone : bool, default False
        Accept a 1992 slot file alone as the configuration, every option at its 1992 default
        (refused by default: its numbers differ from those of the configuration meant).

    Returns
    -------
    muceval.core.model.Configuration
        Its ``source`` records the file(s) read.

    Raises
    ------
    UsageError
        If ``slots_path`` is given with a TOML configuration.
    InputError
        If a file cannot be read, is malformed or defines no slots (naming file and line).

    Examples
    --------
    >>> import muceval
    >>> from importlib.resources import files
    >>> example = files("muceval") / "data" / "example"
    >>> config = muceval.load_configuration(example / "config.toml")
    >>> len(config.slots), config.slots[2].label
    (16, '2.  INCIDENT: DATE')
    >>> len(muceval.load_configuration(files("muceval") / "data" / "muc4.toml").slots)
    25
    """
    path = Path(path)
    try:
        if path.suffix.lower() == ".toml":
            if slots_path is not None:
                raise UsageError("a slot file can only be given with a 1992 (.el) configuration")
            return parse_configuration_toml(_read_text(path), str(path))
        return read_lisp_configuration(path, slots_path, slot_file_alone=slot_file_alone)
    except InputError as error:
        raise _explained(error, path, slots_path) from None


def _explained(error: InputError, path: Path, slots_path: str | Path | None) -> InputError:
    """What a file of another kind given as the configuration or slot file is, instead of the
    parser's complaint."""
    from muceval.formats.registry import wrong_kind  # the registry knows every kind

    for given, expected, accepted in (
            (path, "a configuration", {"toml-configuration", "configuration-1992",
                                       "slots-1992"}),
            (slots_path, "a slot file", {"slots-1992", "configuration-1992"})):
        if given is None or not any(p.path == str(given) for p in error.problems):
            continue
        try:
            text = _read_text(Path(given))
        except InputError:
            continue
        found = wrong_kind(text, str(given), expected, accepted)
        if found is not None:
            return found
    return error


def bundled_configuration(name: str = "muc4") -> Configuration:
    """A configuration shipped with muceval (``src/muceval/data/<name>.toml``), cached.

    ``muc4`` is the 1992 TST3 configuration (``config-tst3.el`` with ``slotconfig-tst3.el``),
    converted, its message-header pattern widened to every MUC-3 and MUC-4 message set.

    Raises
    ------
    UsageError
        If no bundled configuration has that name (the message lists those that exist).

    Examples
    --------
    >>> import muceval
    >>> config = muceval.bundled_configuration("muc4")
    >>> config.slots[0].slot_id, config.slot("inc-type").label
    ('message-id', '4.  INCIDENT: TYPE')
    >>> muceval.bundled_configuration("muc3")
    Traceback (most recent call last):
    ...
    muceval.errors.UsageError: no bundled configuration named 'muc3' (available: muc4)
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
    return parse_configuration_toml(resource.read_text(encoding="utf-8"), f"<bundled {name}.toml>")


def convert_configuration(
    config_el: str | Path, slots_el: str | Path | None = None, *, comment: str | None = None
) -> str:
    """Convert a 1992 configuration (and its slot file) into native TOML text."""
    config = read_lisp_configuration(Path(config_el), slots_el)
    if comment is None:
        names = dict.fromkeys(Path(source).name for source in config.read_from)
        comment = "muceval configuration converted from the 1992 files " + " + ".join(names)
    return write_configuration_toml(config, comment=comment)


BUNDLED_CONFIGURATIONS = ("muc4",)
"""The configurations :func:`bundled_configuration` knows by name."""


def resolve_configuration(config: str | Path | None = None, slots: str | Path | None = None,
                          alignment_file: str | Path | None = None) -> Configuration:
    """The configuration a command or a report pipeline names, with the ``[alignment...]``
    tables of ``alignment_file`` merged in.

    ``config`` is a TOML file, a 1992 ``config-*.el`` (its slot file ``slots``), or the name of
    a bundled configuration (a file of that name wins); None: the bundled MUC-4 configuration,
    or ``slots`` read alone when given.

    >>> resolve_configuration("muc4") is bundled_configuration("muc4")
    True
    """
    import os

    from muceval.formats.config.alignment import load_alignment_file

    if config is None:
        chosen = (load_configuration(slots, slot_file_alone=True) if slots is not None
                  else bundled_configuration("muc4"))
    elif str(config) in BUNDLED_CONFIGURATIONS and not os.path.exists(config):
        chosen = bundled_configuration(str(config))
    else:
        chosen = load_configuration(config, slots)
    return chosen if alignment_file is None else load_alignment_file(alignment_file, chosen)
