"""FAMuS prompt files (``famus-gold``) and raw answers of language models (``answers-pred``),
read as templates of a schema; docs/workflows/datasets.md says how answers are parsed.

Every repair or loss in reading an answer is a :class:`ParseNote`: counted and named.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

from muceval.core.modern import ModernDocument, ModernFile, ModernTemplate, ParseNote
from muceval.core.schema import FAMUS, Schema
from muceval.errors import InputError, Problem, UsageError
from muceval.formats.files import json_lines

__all__ = ["ANSWER_ID_KEYS", "PARSE_MODES", "Parse", "answer_documents", "decode_answer",
           "famus_gold_documents", "roles_by_type", "unread_answers"]

Parse = Literal["strict", "lenient"]
PARSE_MODES: tuple[Parse, ...] = ("strict", "lenient")
ANSWER_ID_KEYS = ("instance_id", "docid", "id")  # in the order they are looked for

Notes = list[tuple[str, str]]  # (kind, example) pairs met while decoding one answer


def check_parse(parse: str) -> Parse:
    """``parse`` if it is one of :data:`PARSE_MODES`, typed as such."""
    for mode in PARSE_MODES:
        if parse == mode:
            return mode
    raise UsageError(f"{parse!r}: choose from {', '.join(PARSE_MODES)}", parameter="parse")


def _objects(text: str, path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, value in json_lines(text, path):
        if not isinstance(value, dict):
            raise InputError.at(path, number, "each line must be a JSON object")
        yield number, value


def _string_template(kind: str, roles: Mapping[str, list[str]]) -> ModernTemplate:
    """A template whose fillers are strings, each an entity of one mention."""
    return ModernTemplate(kind, tuple(tuple((s,) for s in v) for v in roles.values()),
                          tuple(roles))


def _template_type(schema: Schema, docid: str, path: str, line: int) -> str:
    kind = schema.template_type(docid)
    if kind is None:
        raise InputError.at(path, line, f"document {docid}: the {schema.name} schema takes the "
                            f"template type from the id after {schema.docid_separator!r}, "
                            "which this id lacks")
    return kind


def famus_gold_documents(text: str, path: str, as_prediction: bool = False,
                         schema: Schema = FAMUS) -> Iterator[ModernDocument]:
    """The documents of a FAMuS prompt file: one template per instance, its type the frame in
    the id, each gold string one entity of one mention (a string listed twice is two).

    As predictions (FAMuS's report baseline), a role without fillers is dropped and an instance
    without a filled role has no template, as FAMuS's pipeline converts it.
    """
    for number, row in _objects(text, path):
        docid = row.get("instance_id")
        if not isinstance(docid, str) or not docid:
            raise InputError.at(path, number, "a line needs a string 'instance_id'")
        raw = row.get("gold_roles")
        if not isinstance(raw, str):
            raise InputError.at(path, number, f"document {docid}: 'gold_roles' must be a string "
                                "of JSON (role → list of strings), as FAMuS writes it")
        try:
            roles = json.loads(raw)
        except (ValueError, RecursionError) as error:
            raise InputError.at(path, number, f"document {docid}: 'gold_roles' is not JSON "
                                f"({error})") from None
        if not isinstance(roles, dict) or not all(
                isinstance(v, list) and all(isinstance(s, str) for s in v)
                for v in roles.values()):
            raise InputError.at(path, number, f"document {docid}: 'gold_roles' must map each "
                                "role to a list of strings")
        kind = _template_type(schema, docid, path, number)
        kept = {r: v for r, v in roles.items() if v or not as_prediction}
        templates = (_string_template(kind, kept),) if kept or not as_prediction else ()
        yield ModernDocument(docid, templates, line=number)


def answer_documents(text: str, path: str, parse: str = "strict", schema: Schema = FAMUS,
                     roles_of: Mapping[str, tuple[str, ...]] | None = None,
                     ) -> Iterator[ModernDocument]:
    """The documents of a raw answers file; ``roles_of`` gives the roles of each template type
    (from the gold), which the lenient reading matches an answer's role names to."""
    mode = check_parse(parse)
    for number, row in _objects(text, path):
        docid = next((row[k] for k in ANSWER_ID_KEYS if k in row), None)
        if not isinstance(docid, str) or not docid:
            raise InputError.at(path, number, "a line needs a string document id "
                                f"({', '.join(map(repr, ANSWER_ID_KEYS))})")
        response = row.get("response")
        if not isinstance(response, str):
            raise InputError.at(path, number, f"document {docid}: 'response' must be the "
                                "model's answer as a string")
        kind = _template_type(schema, docid, path, number)
        roles, notes = decode_answer(response, mode, (roles_of or {}).get(kind, ()))
        templates = (_string_template(kind, roles),) if roles else ()
        yield ModernDocument(docid, templates, line=number,
                             notes=tuple(ParseNote(k, docid, number, e) for k, e in notes))


def decode_answer(response: str, parse: Parse = "strict", known: tuple[str, ...] = (),
                  ) -> tuple[dict[str, list[str]], Notes]:
    """The roles and fillers of one raw answer, and the notes of what reading it met.

    ``"strict"`` reads as FAMuS's pipeline (``chatgpt_response_to_iterx_format``): an answer
    ``json.loads`` refuses, or no object, is an empty prediction, every key a role verbatim;
    where the pipeline would stop with an exception, what cannot be scored is dropped.

    >>> decode_answer('{"Agent": ["Fogerty"], "Time": []}')
    ({'Agent': ['Fogerty']}, [])
    >>> decode_answer('{"Agent": ["Fogerty"]}\\n\\nNote: ...')[1]
    [('unparsed', '{"Agent": ["Fogerty"]} Note: ...')]
    >>> decode_answer('{"Agent": ["Fogerty"]}\\n\\nNote: ...', "lenient")
    ({'Agent': ['Fogerty']}, [('prose-after', 'Note: ...')])
    >>> decode_answer('{"agent": "Fogerty", "Place": ["Paris", "Fr', "lenient", ("Agent", "Place"))
    ({'Agent': ['Fogerty'], 'Place': ['Paris']}, [('truncated', '{"agent": "Fogerty", "Place": \
["Paris", "Fr'), ('role-renamed', 'agent → Agent'), ('string-as-list', 'Agent: Fogerty')])
    """
    notes: Notes = []
    value = _decode_strict(response, notes) if parse == "strict" \
        else _decode_lenient(response, notes)
    if value is None:
        return {}, notes
    fill = _fillers_strict if parse == "strict" else _fillers_lenient
    roles: dict[str, list[str]] = {}
    for key, fillers in value.items():
        role = str(key) if parse == "strict" else _role_name(str(key), known, notes)
        kept = fill(role, fillers, notes)
        if kept:
            roles[role] = roles.get(role, []) + kept if parse == "lenient" else kept
    return roles, notes


def _example(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


_UNPARSED = object()  # what decoding gives for an answer it cannot read


def _as_object(value: Any, response: str, notes: Notes) -> dict[Any, Any] | None:
    """The decoded answer if it is an object; else None, noted."""
    if isinstance(value, dict):
        return value
    notes.append(("unparsed" if value is _UNPARSED else "not-an-object", _example(response)))
    return None


def _decode_strict(response: str, notes: Notes) -> dict[Any, Any] | None:
    try:
        value = json.loads(response)
    except (ValueError, RecursionError):
        value = _UNPARSED
    return _as_object(value, response, notes)


def _fillers_strict(role: str, fillers: Any, notes: Notes) -> list[str]:
    # The pipeline drops a falsy value and iterates the rest: a string gives its characters.
    if not fillers:
        return []
    if isinstance(fillers, str):
        notes.append(("string-as-characters", f"{role}: {_example(fillers)}"))
        return list(fillers)
    if not isinstance(fillers, (list, dict)):
        notes.append(("dropped-filler", f"{role}: {_example(json.dumps(fillers))}"))
        return []
    for element in fillers:
        if not isinstance(element, str):
            notes.append(("dropped-filler", f"{role}: {_example(json.dumps(element))}"))
    return [e for e in fillers if isinstance(e, str)]


_FENCE = re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)(?:```|\Z)", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def _decode_lenient(response: str, notes: Notes) -> dict[Any, Any] | None:
    text = response.strip()
    fence = _FENCE.search(text)
    if fence is not None and fence.group(1).strip():
        notes.append(("code-fence", _example(text[:fence.start()] or "```")))
        text = fence.group(1).strip()
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = _recover(text, notes)
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        notes.append(("list-wrapped", _example(text)))
        value = value[0]
    return _as_object(value, response, notes)


def _recover(text: str, notes: Notes) -> Any:
    """The object in ``text`` (:data:`_UNPARSED` if none can be had), its repairs noted."""
    start = text.find("{")
    if start < 0:
        return _UNPARSED
    found: list[tuple[str, str]] = []
    if text[:start].strip():
        found.append(("prose-before", _example(text[:start])))
    body = text[start:]
    attempts: tuple[Callable[[str], tuple[Any, list[tuple[str, str]]] | None], ...] = (
        _raw_decode, _without_trailing_commas, _python_literal, _closed)
    for attempt in attempts:
        result = attempt(body)
        if result is not None:
            value, repairs = result
            notes.extend(found + repairs)
            return value
    return _UNPARSED


def _raw_decode(body: str) -> tuple[Any, list[tuple[str, str]]] | None:
    try:
        value, end = json.JSONDecoder().raw_decode(body)
    except (ValueError, RecursionError):
        return None
    rest = body[end:].strip()
    return value, [("prose-after", _example(rest))] if rest else []


def _without_trailing_commas(body: str) -> tuple[Any, list[tuple[str, str]]] | None:
    fixed = _TRAILING_COMMA.sub(r"\1", body)
    if fixed == body:
        return None
    result = _raw_decode(fixed)
    if result is None:
        return None
    value, repairs = result
    return value, [("trailing-comma", _example(body[:80])), *repairs]


def _python_literal(body: str) -> tuple[Any, list[tuple[str, str]]] | None:
    end = body.rfind("}")
    if end < 0:
        return None
    try:
        value = ast.literal_eval(body[:end + 1])
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value, [("python-literal", _example(body[:end + 1]))]


def _closed(body: str, attempts: int = 200) -> tuple[Any, list[tuple[str, str]]] | None:
    """A truncated object cut after its last complete string or container and closed."""
    stack: list[str] = []
    cuts: list[tuple[int, str]] = []
    in_string = escaped = False
    for at, char in enumerate(body):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                cuts.append((at + 1, "".join(reversed(stack))))
            continue
        if char == '"':
            in_string = True
        elif char in "[{":
            stack.append("]" if char == "[" else "}")
        elif char in "]}":
            if not stack or stack[-1] != char:
                break
            stack.pop()
            cuts.append((at + 1, "".join(reversed(stack))))
            if not stack:
                break
    for at, closers in reversed(cuts[-attempts:]):
        candidate = _TRAILING_COMMA.sub(r"\1", body[:at] + closers)
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if at == len(body.rstrip()) and not closers:
            return None  # nothing was cut or closed: not a truncation
        return value, [("truncated", _example(body[max(0, at - 40):].strip()))]
    return None


def _norm_role(name: str) -> str:
    return re.sub(r"[\s_\-]+", "", name).casefold()


def _role_name(key: str, known: tuple[str, ...], notes: Notes) -> str:
    if not known or key in known:
        return key
    match = next((r for r in known if _norm_role(r) == _norm_role(key)), None)
    if match is None:
        return key
    notes.append(("role-renamed", f"{key} → {match}"))
    return match


def _fillers_lenient(role: str, fillers: Any, notes: Notes) -> list[str]:
    if fillers is None or fillers == [] or fillers == "":
        return []
    if isinstance(fillers, str):
        notes.append(("string-as-list", f"{role}: {_example(fillers)}"))
        return [fillers]
    kept: list[str] = []
    # A filler that is no list is read as a list of that one element.
    for element in fillers if isinstance(fillers, list) else [fillers]:
        if isinstance(element, str):
            kept.append(element)
        elif isinstance(element, (int, float)) and not isinstance(element, bool):
            notes.append(("number-as-string", f"{role}: {element}"))
            kept.append(str(element))
        elif isinstance(element, list) and all(isinstance(e, str) for e in element):
            notes.append(("nested-list", f"{role}: {_example(json.dumps(element))}"))
            kept.extend(element)
        else:
            notes.append(("dropped-filler",
                          f"{role}: {_example(json.dumps(element, default=str))}"))
    return kept


def unread_answers(modern: ModernFile, treated: str) -> Problem | None:
    """The warning for the answers that are no JSON object; ``treated``: what was done."""
    empty = [n for n in modern.notes if n.kind in ("unparsed", "not-an-object")]
    if not empty:
        return None
    return Problem(modern.path, empty[0].line, f"{len(empty)} answer(s) are no JSON object "
                   f"(e.g. document {empty[0].docid}): {treated}, as FAMuS's pipeline scores "
                   "them" + (" (--parse lenient recovers what it can)"
                             if modern.parse == "strict" else ""))


def roles_by_type(documents: Iterator[ModernDocument] | tuple[ModernDocument, ...],
                  ) -> dict[str, tuple[str, ...]]:
    """The roles each template type has in gold documents, in first-seen order."""
    out: dict[str, dict[str, None]] = {}
    for document in documents:
        for template in document.templates or ():
            bucket = out.setdefault(template.incident_type or "", {})
            bucket.update(dict.fromkeys(template.role_names))
    return {kind: tuple(roles) for kind, roles in out.items()}
