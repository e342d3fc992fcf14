"""Error categories counted per document and system: what the tests of which error counts
changed need, whether it comes from an analysis just run or from its JSON."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from muceval.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["ErrorCounts"]


@dataclass(frozen=True)
class ErrorCounts:
    """Per system, a ``documents × categories`` array of error counts (a document a system
    lacks counts zero); ``settings`` are the analysis's, which the counts depend on.

    >>> import numpy as np
    >>> c = ErrorCounts(("Missing_Template",), ("d1", "d2"),
    ...                 {"a": np.array([[1], [0]]), "b": np.array([[0], [0]])})
    >>> c.systems, c.totals("a")
    (('a', 'b'), {'Missing_Template': 1})
    """

    categories: tuple[str, ...]
    documents: tuple[str, ...]
    counts: Mapping[str, np.ndarray]
    settings: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        import numpy as np  # imported here: recognising an error analysis needs no NumPy

        shape = (len(self.documents), len(self.categories))
        for name, array in self.counts.items():
            if np.shape(array) != shape:
                raise UsageError(f"the counts of {name!r} are {np.shape(array)}, not "
                                 f"documents × categories {shape}")

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(self.counts)

    def totals(self, system: str) -> dict[str, int]:
        """Each category's count over all documents."""
        import numpy as np

        sums = np.asarray(self.counts[system]).sum(axis=0)
        return {c: int(n) for c, n in zip(self.categories, sums, strict=True)}

    @classmethod
    def of_documents(cls, categories: Sequence[str],
                     systems: Mapping[str, Mapping[str, Sequence[int]]],
                     settings: Mapping[str, Any] | None = None) -> ErrorCounts:
        """From system → document → counts (in ``categories`` order); the documents are
        those of any system, sorted (so that the tests' coins fall on the same documents
        whatever the order of the files)."""
        import numpy as np

        documents = tuple(sorted({d for docs in systems.values() for d in docs}))
        zeros = (0,) * len(categories)
        counts = {name: np.array([docs.get(d, zeros) for d in documents], dtype=np.int64)
                  .reshape(len(documents), len(categories)) for name, docs in systems.items()}
        return cls(tuple(categories), documents, counts, dict(settings or {}))
