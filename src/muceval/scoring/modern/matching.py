"""One-to-one alignments of the modern scorers: Kuhn–Munkres as the official scorers run it,
and the largest matching sum (NumPy and SciPy imported only for large ones)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = ["assignment", "largest_matching"]

SUBSET_COLUMNS = 6  # up to this many on the smaller side, largest_matching runs over subsets


def assignment(matrix: np.ndarray, maximize: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Kuhn–Munkres, imported when first needed: scipy.optimize takes a quarter of a second to
    import, and GTT needs it only beyond :data:`SUBSET_COLUMNS` templates a side."""
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(matrix, maximize=maximize)
    return rows, cols


def largest_matching(weights: Sequence[Sequence[int]] | np.ndarray) -> int:
    """The largest sum of non-negative integer ``weights`` (rows of a matrix) over a one-to-one
    matching: over the subsets of the smaller side when it is small (the usual document).

    >>> largest_matching([[1, 1], [1, 0]])
    2
    """
    rows = weights.tolist() if hasattr(weights, "tolist") else [list(r) for r in weights]
    if rows and len(rows[0]) > len(rows):
        rows = [list(column) for column in zip(*rows, strict=True)]
    if rows and len(rows[0]) > SUBSET_COLUMNS:
        import numpy as np

        array = np.array(rows, dtype=np.int64)
        chosen_rows, chosen = assignment(array, maximize=True)
        return int(array[chosen_rows, chosen].sum())
    best = {0: 0}  # used columns -> the most weight so far
    for row in rows:
        step = dict(best)
        for used, total in best.items():
            for j, w in enumerate(row):
                if w and not used >> j & 1 and step.get(used | 1 << j, -1) < total + w:
                    step[used | 1 << j] = total + w
        best = step
    return max(best.values())
