"""The one registry of muceval's scorers (``score --metric``). A modern scorer is a function
``(golds, preds, options) -> list[DocumentCounts]`` (documents by id, the checked
:class:`~muceval.scoring.modern.ModernOptions`), imported when first used (no SciPy at start).

>>> [spec.name for spec in SCORERS.values()]
['1992', 'gtt', 'ceaf-ree', 'ceaf-rme']
>>> SCORERS["ceaf-rme"].similarities
('subset', 'phi3', 'phi3-entities', 'phi-a')
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from muceval.errors import UsageError

__all__ = ["EVENT_N", "MODERN_OPTIONS", "SCORERS", "EventN", "ScorerSpec", "modern_scorers",
           "register"]

EventN = Literal["1", "2", "3", "4", ">=2"]
"""Buckets of documents by their number of gold templates (GTT's ``--event-n``; 4: four or
more): read from GTT's buckets file (``event_n_file``), or counted from the gold."""
EVENT_N: tuple[EventN, ...] = get_args(EventN)
MODERN_OPTIONS = ("event_n", "event_n_file", "ignore_empty_docs")
"""The options a modern scorer may take besides ``phi`` (its similarities) and ``compat``."""


@dataclass(frozen=True)
class ScorerSpec:
    """A scorer. A modern one has its similarities (``phi``; the first is the default), needs
    templates unless it takes per-role extracts, and is implemented by ``"module:function"``."""

    name: str
    reproduces: str
    family: Literal["1992", "modern"] = "modern"
    similarities: tuple[str, ...] = ()
    options: frozenset[str] = frozenset()
    needs_templates: bool = True
    implementation: str | None = None
    schemas: frozenset[str] | None = frozenset({"muc4"})
    """The template schemas it scores (:mod:`muceval.core.schema`); None: any, and its function
    takes the gold's schema as the keyword ``schema``."""

    def __post_init__(self) -> None:
        unknown = set(self.options) - set(MODERN_OPTIONS)
        if unknown:
            raise UsageError(f"{sorted(unknown)}: a modern scorer takes "
                             f"{', '.join(MODERN_OPTIONS)}", parameter="options")
        if self.family == "modern" and not self.implementation:
            raise UsageError("a modern scorer needs its 'module:function'",
                             parameter="implementation")

    def scorer(self) -> Callable[..., Any]:
        """The implementation (imported now)."""
        if self.implementation is None:
            raise UsageError(f"{self.name} is not a modern scorer", parameter="metric")
        module, _, function = self.implementation.partition(":")
        found: Callable[..., Any] = getattr(importlib.import_module(module), function)
        return found


SCORERS: dict[str, ScorerSpec] = {}
"""Every scorer by name, in the order the command line lists them."""


def register(spec: ScorerSpec) -> None:
    """Add a scorer (a name may be registered once)."""
    if spec.name in SCORERS or spec.name == "all":
        raise UsageError(f"a scorer named {spec.name!r} exists already", parameter="name")
    SCORERS[spec.name] = spec


def modern_scorers() -> tuple[str, ...]:
    """The names of the modern scorers, in registration order."""
    return tuple(name for name, spec in SCORERS.items() if spec.family == "modern")


register(ScorerSpec("1992", "the MUC-4 Scoring System (1992)", family="1992"))
register(ScorerSpec("gtt", "GTT eval.py (Du, Rush & Cardie 2021)",
                    options=frozenset({"event_n", "event_n_file"}), schemas=None,
                    implementation="muceval.scoring.modern:gtt_documents"))
register(ScorerSpec("ceaf-ree", "GRIT CEAF-REE (Du, Rush & Cardie 2021)",
                    similarities=("strict", "prop"), needs_templates=False, schemas=None,
                    implementation="muceval.scoring.modern:ree_documents"))
register(ScorerSpec("ceaf-rme", "IterX CEAF-RME (Chen et al. 2023); on FAMuS, FAMuS's "
                    "(Vashishtha et al. 2024)",
                    similarities=("subset", "phi3", "phi3-entities", "phi-a"),
                    options=frozenset({"ignore_empty_docs"}), schemas=None,
                    implementation="muceval.scoring.modern:rme_documents"))
