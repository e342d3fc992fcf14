"""GTT's buckets of documents by their number of gold templates (``docids_event_n.json``).

They cannot be recomputed from GTT's gold (one test document with two gold templates is not in
``">=2"``), so reproducing GTT's ``--event_n`` figures needs the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from muceval.core.modern import docid_of_number, number_of_docid
from muceval.errors import InputError
from muceval.formats.files import parse_json, read_text

__all__ = ["BUCKETS", "read_event_buckets"]

BUCKETS = ("0", "1", "2", "3", "4", ">=2")  # "4": four or more


def read_event_buckets(path: str | Path) -> dict[str, tuple[str, ...]]:
    """Per bucket of a buckets file, its documents as MUC ids in file order; ids may be numeric
    (``"30002"`` or ``30002``, as GTT writes them) or MUC ids.

    >>> import tempfile
    >>> from pathlib import Path
    >>> file = Path(tempfile.mkdtemp()) / "docids_event_n.json"
    >>> _ = file.write_text('{"1": ["30001", 40100], ">=2": []}')
    >>> read_event_buckets(file)
    {'1': ('TST3-MUC4-0001', 'TST4-MUC4-0100'), '>=2': ()}
    """
    name = str(path)
    data = parse_json(read_text(path), name)
    if not isinstance(data, dict):
        raise InputError.at(name, None, "a buckets file is one JSON object: bucket ('1', '2', "
                            "'3', '4', '>=2') → list of document ids")
    buckets: dict[str, tuple[str, ...]] = {}
    bucket_of: dict[str, str] = {}  # a document's one bucket among 0, 1, 2, 3 and 4
    for key, ids in data.items():
        if key not in BUCKETS:
            raise InputError.at(name, None, f"{key!r} is not a bucket (buckets: "
                                f"{', '.join(BUCKETS)})")
        if not isinstance(ids, list):
            raise InputError.at(name, None, f"bucket {key!r}: a list of document ids expected, "
                                f"found {type(ids).__name__}")
        docids = tuple(_docid(item, key, name) for item in ids)
        seen: set[str] = set()
        for docid in docids:
            if docid in seen:
                raise InputError.at(name, None, f"bucket {key!r}: document {docid} listed "
                                    "twice")
            seen.add(docid)
        buckets[key] = docids
        if key != ">=2":
            for docid in docids:
                other = bucket_of.setdefault(docid, key)
                if other != key:
                    raise InputError.at(name, None, f"document {docid} is in bucket {other!r} "
                                        f"and in bucket {key!r}: a document has one number of "
                                        "templates")
    few = [d for d in buckets.get(">=2", ()) if bucket_of.get(d) in ("0", "1")]
    if few:
        raise InputError.at(name, None, f"document {few[0]} is in bucket '>=2' and in bucket "
                            f"{bucket_of[few[0]]!r}")
    return buckets


def _docid(item: Any, bucket: str, path: str) -> str:
    try:
        if isinstance(item, int) and not isinstance(item, bool):
            return docid_of_number(item)
        if isinstance(item, str) and item.isascii() and item.isdigit():
            return docid_of_number(int(item))
        if isinstance(item, str):
            number_of_docid(item)  # checks the form
            return item
    except ValueError:
        pass
    raise InputError.at(path, None, f"bucket {bucket!r}: {str(item)[:60]!r} is not a document "
                        "id (numeric as 30002, or TST3-MUC4-0002)")
