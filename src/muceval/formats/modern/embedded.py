"""The gold and the texts that GTT-style prediction files carry beside the predictions, where
the error analysis reads them (``muceval errors --key embedded``)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from muceval.core.modern import ModernDocument, ModernFile, ModernTemplate
from muceval.errors import InputError
from muceval.formats.files import json_lines, parse_json, read_text
from muceval.formats.modern import _Bad, _docid, _template, detect_layout

__all__ = ["Embedded", "parse_embedded", "prompt_document", "read_embedded", "read_texts"]


@dataclass(frozen=True)
class Embedded:
    """The predictions, the embedded gold and the texts of one GTT prediction file."""

    predictions: ModernFile
    gold: ModernFile
    texts: dict[str, str]


def read_embedded(path: str | Path) -> Embedded:
    """The predictions, gold templates and document texts of a GTT prediction file, documents
    in file order.

    >>> import json, tempfile
    >>> from pathlib import Path
    >>> record = {"doctext": "the army ...", "pred_templates": [],
    ...           "gold_templates": [{"incident_type": "attack", "PerpOrg": [["army"]]}]}
    >>> path = Path(tempfile.mkdtemp()) / "preds.out"
    >>> _ = path.write_text(json.dumps({"30001": record}))
    >>> embedded = read_embedded(path)
    >>> embedded.gold.documents[0].templates[0].role("PerpOrg"), embedded.texts
    ((('army',),), {'TST3-MUC4-0001': 'the army ...'})
    """
    return parse_embedded(read_text(path), str(path))


def parse_embedded(text: str, path: str = "<string>") -> Embedded:
    """:func:`read_embedded` of a text."""
    layout = detect_layout(text)
    if layout not in ("gtt-pred", None):
        raise InputError.at(path, None, f"--key embedded needs a GTT prediction file (records "
                            f"with gold_templates and doctext); this is {layout}: give its "
                            "gold file as --key")
    doc = parse_json(text, path)
    if not isinstance(doc, dict) or not all(isinstance(v, dict) for v in doc.values()):
        raise InputError.at(path, 1, "--key embedded needs a GTT prediction file: one JSON "
                            "object, document id → {doctext, pred_templates, gold_templates}")
    predicted, gold = [], []
    texts: dict[str, str] = {}
    for key, record in doc.items():
        docid = _docid(key, path)
        if docid in texts:
            raise InputError.at(path, None, f"document {docid} given twice")
        texts[docid] = _field(record, "doctext", str, key, path)
        predicted.append(ModernDocument(docid, _templates(record, "pred_templates", key, path)))
        gold.append(ModernDocument(docid, _templates(record, "gold_templates", key, path)))
    return Embedded(ModernFile(path, "gtt-pred", tuple(predicted)),
                    ModernFile(path, "gtt-gold", tuple(gold)), texts)


def _field(record: dict[str, Any], name: str, kind: type, key: str, path: str) -> Any:
    value = record.get(name)
    if not isinstance(value, kind):
        what = "a string" if kind is str else "a list"
        raise InputError.at(path, None, f"document {key}: no {name!r} ({what}); --key embedded "
                            "reads the gold and the text from each record of a GTT prediction "
                            "file")
    return value


def _templates(record: dict[str, Any], name: str, key: str,
               path: str) -> tuple[ModernTemplate, ...]:
    items = _field(record, name, list, key, path)
    try:
        return tuple(_template(t, gold=name == "gold_templates") for t in items)
    except _Bad as bad:
        raise InputError.at(path, None, f"document {key}, {name}: {bad}") from None


def read_texts(path: str | Path) -> dict[str, str]:
    """Document id → ``doctext`` of a modern file that has one; empty for the other layouts."""
    text = read_text(path)
    layout = detect_layout(text)
    texts: dict[str, str] = {}
    if layout == "famus-gold":
        for number, record in json_lines(text, str(path)):
            if isinstance(record, dict):
                texts[str(record.get("instance_id"))] = prompt_document(
                    record.get("llm_prompt"), str(path), number)
    elif layout in ("gtt-gold", "grit-gold"):
        for number, record in json_lines(text, str(path)):
            if not isinstance(record, dict):
                raise InputError.at(str(path), number, "each line must be a JSON object")
            texts[str(record.get("docid"))] = _doctext(record, str(path), number)
    elif layout in ("gtt-pred", "grit-pred"):
        for key, record in parse_json(text, str(path)).items():
            if isinstance(record, dict) and "doctext" in record:
                texts[_docid(key, str(path))] = _doctext(record, str(path), None)
    return texts


def _doctext(record: Any, path: str, line: int | None) -> str:
    value = record.get("doctext", "") if isinstance(record, dict) else ""
    if not isinstance(value, str):
        raise InputError.at(path, line, f"'doctext' must be a string, found "
                            f"{json.dumps(value)[:60]}")
    return value


_DOCUMENT = re.compile(r"<(source_document|report_document)>(.*?)</\1>", re.DOTALL)
_EVENT_MARKS = re.compile(r"</?event>")


def prompt_document(prompt: Any, path: str = "<string>", line: int | None = None) -> str:
    """The document of a FAMuS prompt: in the last ``user`` message, the text in
    ``<source_document>`` (cross-document prompts take their roles from the source) or else in
    ``<report_document>``, without the ``<event>`` marks: gold spans run across them (six of
    the 897 gold strings of the report dev set), which left in would hide those spans.

    >>> prompt_document([{"role": "system", "content": "..."}, {"role": "user", "content":
    ...     "<report_document> He was <event> hired </event> by X. </report_document>"}])
    ' He was  hired  by X. '
    """
    users = [m.get("content") for m in prompt if isinstance(m, dict) and m.get("role") == "user"
             ] if isinstance(prompt, list) else []
    found = {m.group(1): m.group(2) for m in _DOCUMENT.finditer(users[-1])
             } if users and isinstance(users[-1], str) else {}
    document = found.get("source_document", found.get("report_document"))
    if document is None:
        raise InputError.at(path, line, "no document in the prompt: 'llm_prompt' must end "
                            "with a user message holding <report_document>...</report_document> "
                            "or <source_document>...</source_document>; the error analysis "
                            "finds mentions in it")
    return _EVENT_MARKS.sub("", document)
