"""A one-line signature of the settings behind a number (in the manner of sacrebleu's), which
every JSON output carries so that a number can be reproduced from the file alone:
``muceval:0.4|method:auto|shuffles:9999|seed:1|...``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

__all__ = ["document_header", "signature"]


def _text(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ",".join(_text(v) for v in value)
    text = str(value)
    if os.sep in text or "/" in text:
        text = os.path.basename(text.rstrip("/")) or text
    return text.replace("|", "/")


def signature(settings: Mapping[str, Any], version: str | None = None) -> str:
    """``muceval:VERSION|key:value|...`` for the settings, in their order.

    >>> signature({"method": "exact", "seed": 1, "key": "data/key-tst3.v2", "query_pass": False},
    ...           "0.4")
    'muceval:0.4|method:exact|seed:1|key:key-tst3.v2|query_pass:no'
    """
    if version is None:
        from muceval.version import __version__ as version
    parts = [f"muceval:{version}"]
    parts += [f"{key}:{_text(value)}" for key, value in settings.items()
              if key not in ("muceval", "command") and not isinstance(value, Mapping)]
    return "|".join(parts)


def document_header(format: str, settings: Mapping[str, Any], format_version: int = 1,
                    ) -> dict[str, Any]:
    """The opening keys of every muceval JSON document, ``settings`` last.

    >>> list(document_header("muceval-x", {"seed": 1}))
    ['format', 'format_version', 'muceval', 'signature', 'settings']
    """
    from muceval.version import __version__

    return {"format": format, "format_version": format_version, "muceval": __version__,
            "signature": signature(settings), "settings": dict(settings)}
