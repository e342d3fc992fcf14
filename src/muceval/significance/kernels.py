"""Numerics of the randomization tests, on *reduced* per-unit ``(POS, ACT, N2 = 2·COR + PAR)``
(integer sums): every metric is ``κ·N2 / (α·POS + γ·ACT)`` (:data:`METRIC_COEFS`), and an
exchange moves the summed differences of the units exchanged, so only differing units matter.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from muceval.core.metrics import MEASURES, METRIC_IDS, metric_of_counts

# The compiled kernels are imported at first use: a small run never pays numba's start-up.
HAVE_NUMBA = importlib.util.find_spec("numba") is not None


def _jit() -> ModuleType:
    from muceval.significance import compiled

    return compiled


__all__ = [
    "numpy_work",
    "pair_thresholds",
    "takes_compiled",
    "threshold_of",
    "worth_compiling",
    "worth_compiling_ns",
    "METRICS",
    "METRIC_COEFS",
    "REL_TOL",
    "metric_value",
    "totals_value",
    "metric_values",
    "reduce_counts",
    "pair_data",
    "differing_units",
    "coin_words",
    "coins",
    "approximate_counts",
    "exact_pvalue",
    "exact_cost",
    "exact_grid_cells",
    "exact_grid_cells_many",
    "ExactResult",
]

METRICS: tuple[str, ...] = METRIC_IDS
# name: (α on POS, γ on ACT, κ):  metric = κ·N2 / (α·POS + γ·ACT)
METRIC_COEFS: dict[str, tuple[int, int, float]] = {
    m.id: (m.alpha, m.gamma, m.kappa) for m in MEASURES
}
REL_TOL = 1e-9
_GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_WORD_STRIDE = 1 << 20  # words reserved per shuffle: up to 2^26 differing units
_FIELD_BITS = 21  # packed int64: three signed fields of 21 bits
_FIELD_LIMIT = 1 << (_FIELD_BITS - 1)
_BLOCK_BITS = 8  # units per lookup table (must divide 64)
_TABLE = 1 << _BLOCK_BITS
_PER_WORD = 64 // _BLOCK_BITS
_BATCH = 256  # shuffles per vectorised metric pass
# Below this estimated NumPy time (numpy_work, which benchmarks/numpy_path.py found at most
# 2% low and erring towards loading the kernels) a run takes the NumPy path: loading numba
# and its cached kernels costs about as much (0.21–0.27 s there).
_NUMPY_BUDGET_NS = 2.5e8
# The matrix-product kernel (sums below 2^24, exact in float32): coins in blocks of
# _GEMM_SHUFFLES, pairs in tasks of _GEMM_PAIRS, in chunks of _GEMM_UNITS units.
_GEMM_UNITS = 4096
_GEMM_SHUFFLES = 512
_GEMM_PAIRS = 16
_FLOAT32_EXACT = 1 << 24
_TABLE_BUDGET = 1 << 29


def reduce_counts(counts: np.ndarray) -> np.ndarray:
    """``(..., 4)`` POS/ACT/COR/PAR counts → ``(..., 3)`` POS/ACT/N2 (N2 = 2·COR + PAR).

    >>> reduce_counts(np.array([[4, 3, 1, 1]])).tolist()
    [[4, 3, 3]]
    """
    counts = np.asarray(counts, dtype=np.int64)
    return np.stack([counts[..., 0], counts[..., 1], 2 * counts[..., 2] + counts[..., 3]], -1)


def metric_value(pos: float, act: float, n2: float, metric: str) -> float:
    """A metric from summed (POS, ACT, N2); 0 when its denominator is 0.

    >>> round(metric_value(1661, 1769, 2 * 889 + 143, "f1"), 4)
    0.5601
    """
    return metric_of_counts(metric, pos, act, n2)


def totals_value(totals: np.ndarray | tuple[float, float, float], metric: str) -> float:
    """:func:`metric_value` of summed ``(POS, ACT, N2)``."""
    return metric_value(float(totals[0]), float(totals[1]), float(totals[2]), metric)


def metric_values(reduced: np.ndarray, metric: str) -> np.ndarray:
    """Vectorised :func:`metric_value` over an ``(..., 3)`` array of summed (POS, ACT, N2)."""
    alpha, gamma, kappa = METRIC_COEFS[metric]
    reduced = np.asarray(reduced, dtype=np.int64)
    v = alpha * reduced[..., 0] + gamma * reduced[..., 1]
    num = kappa * reduced[..., 2].astype(np.float64)
    out = np.zeros(v.shape, dtype=np.float64)
    np.divide(num, v.astype(np.float64), out=out, where=v > 0)
    return out


def threshold_of(observed: float, two_sided: bool) -> tuple[float, float]:
    """(sign, threshold): a shuffle with difference D counts when sign·D ≥ threshold
    (two-sided: |D| ≥ threshold), a relative tolerance making equal values rounded apart ties."""
    sign = 1.0 if observed >= 0 else -1.0
    magnitude = abs(observed)
    return sign, magnitude - REL_TOL * magnitude


def count_extreme(diff: np.ndarray, observed: float, two_sided: bool) -> int:
    """How many of the differences ``diff`` are at least as extreme as ``observed``."""
    sign, threshold = threshold_of(observed, two_sided)
    stat = np.abs(diff) if two_sided else sign * diff
    return int(np.count_nonzero(stat >= threshold))


def _mix64_np(z: np.ndarray) -> np.ndarray:
    z = z.astype(np.uint64, copy=True)
    with np.errstate(over="ignore"):
        z ^= z >> np.uint64(30)
        z *= np.uint64(_M1)
        z ^= z >> np.uint64(27)
        z *= np.uint64(_M2)
        z ^= z >> np.uint64(31)
    return z


def seed_key(seed: int) -> int:
    """The 64-bit key derived from a user seed (any Python int)."""
    return int(_mix64_np(np.array([seed & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64))[0])


def coin_words(seed: int, start: int, stop: int, n_words: int) -> np.ndarray:
    """Coin words of shuffles ``start..stop-1`` (``(stop-start, n_words)`` uint64): word w of
    shuffle i is ``splitmix64(splitmix64(seed) + φ·(i·2²⁰ + w + 1))``, bit k of it exchanging
    the (64·w + k)-th differing unit: a pure function of (seed, shuffle, unit), whatever the
    threads, chunks or other systems."""
    key = np.uint64(seed_key(seed))
    i = np.arange(start, stop, dtype=np.uint64)[:, None]
    w = np.arange(n_words, dtype=np.uint64)[None, :]
    with np.errstate(over="ignore"):
        counter = i * np.uint64(_WORD_STRIDE) + w + np.uint64(1)
        return _mix64_np(key + np.uint64(_GOLDEN) * counter)


def coins(seed: int, start: int, stop: int, n_units: int) -> np.ndarray:
    """0/1 coin matrix ``(stop-start, n_units)`` (uint8): 1 = exchange that unit.

    >>> coins(1, 0, 3, 5).shape
    (3, 5)
    """
    return coin_bits(coin_words(seed, start, stop, max(1, -(-n_units // 64))), n_units)


def coin_bits(words: np.ndarray, n_units: int) -> np.ndarray:
    """The first ``n_units`` bits of each row of coin ``words``, a 0/1 (uint8) matrix."""
    bits = (words[:, :, None] >> np.arange(64, dtype=np.uint64)[None, None, :]) & np.uint64(1)
    return bits.reshape(len(words), words.shape[1] * 64)[:, :n_units].astype(np.uint8)


def enumerated_words(n: int, chunk: int = 1 << 12) -> Iterator[np.ndarray]:
    """Every exchange of n ≤ 64 units as coin words (bit j: unit j exchanged), in chunks."""
    for start in range(0, 1 << n, chunk):
        yield np.arange(start, min(1 << n, start + chunk), dtype=np.uint64)[:, None]


def drawn_words(n: int, shuffles: int, seed: int, chunk: int = 1 << 12) -> Iterator[np.ndarray]:
    words = max(1, -(-n // 64))
    for start in range(0, shuffles, chunk):
        yield coin_words(seed, start, min(shuffles, start + chunk), words)


@dataclass(frozen=True)
class PairData:
    """One pair's differing units (``n × 3`` reduced differences) and the two totals."""

    diffs: np.ndarray
    total_x: np.ndarray
    total_y: np.ndarray

    @classmethod
    def of(cls, x: np.ndarray, y: np.ndarray) -> PairData:
        x = np.asarray(x, dtype=np.int64).reshape(-1, 3)
        y = np.asarray(y, dtype=np.int64).reshape(-1, 3)
        d = x - y
        keep = np.any(d != 0, axis=1)
        return cls(d[keep], x.sum(0), y.sum(0))


def _chunks(reduced: np.ndarray, count: int) -> int:
    """Pairs per chunk so that a chunk's differences stay near 64 MB."""
    per_pair = max(1, reduced[0].size * 8) if len(reduced) else 1
    return max(1, min(count, (1 << 26) // per_pair))


def pair_data(reduced: np.ndarray, first: np.ndarray, second: np.ndarray,
              totals: np.ndarray | None = None) -> list[PairData]:
    """``PairData.of(reduced[a], reduced[b])`` for every pair ``(first[k], second[k])``, the
    differences of many pairs taken at once (a tenth of the time of one pair at a time).

    >>> r = reduce_counts(np.array([[[2, 2, 1, 0], [1, 1, 1, 0]], [[2, 2, 1, 0], [1, 1, 0, 0]]]))
    >>> d = pair_data(r, np.array([0]), np.array([1]))[0]
    >>> d.diffs.tolist(), d.total_x.tolist(), d.total_y.tolist()
    ([[0, 0, 2]], [3, 3, 4], [3, 3, 2])
    """
    reduced = np.asarray(reduced, dtype=np.int64)
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    if totals is None:  # each system's summed counts, given by a caller that asks often
        totals = reduced.sum(axis=1)
    out: list[PairData] = []
    step = _chunks(reduced, len(first))
    for start in range(0, len(first), step):
        a, b = first[start:start + step], second[start:start + step]
        diffs = reduced[a] - reduced[b]
        keep = np.any(diffs != 0, axis=2)
        kept = diffs[keep]
        ends = np.cumsum(keep.sum(axis=1)).tolist()
        x, y = totals[a], totals[b]
        out += [PairData(kept[begin:end], x[k], y[k])
                for k, (begin, end) in enumerate(itertools.pairwise([0, *ends]))]
    return out


def differing_units(reduced: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """How many units each pair ``(first[k], second[k])`` differs on, without its data."""
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    step = _chunks(reduced, len(first))
    parts = [np.any(reduced[first[s:s + step]] != reduced[second[s:s + step]], axis=2).sum(axis=1)
             for s in range(0, len(first), step)]
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)


def _segment_words(pair: PairData) -> int:
    """Coin words per packed partial sum of the lookup-table kernel; 0 when a single unit's
    difference does not fit the packing (the NumPy path takes that pair)."""
    sizes = np.abs(pair.diffs)
    if np.all(sizes.sum(axis=0) < _FIELD_LIMIT - 1):
        return 1 << 40
    largest = int(sizes.max())
    units = (_FIELD_LIMIT - 2) // max(1, largest)
    return units // 64 if units >= 64 else 0


def takes_compiled(pairs: Iterable[PairData], shuffles: int, metrics: int = 5) -> bool:
    """Whether :func:`approximate_counts` runs these pairs compiled by default."""
    return HAVE_NUMBA and ("muceval.significance.compiled" in sys.modules
                           or worth_compiling(pairs, shuffles, metrics))


def worth_compiling(pairs: Iterable[PairData], shuffles: int, metrics: int) -> bool:
    """Whether the NumPy path would take longer than loading the compiled kernels. Pairs are
    read only until it would: a plan's first batch may be built pair by pair just for this."""
    work = 0.0
    for pair in pairs:
        work += numpy_work(shuffles, metrics, len(pair.diffs))
        if worth_compiling_ns(work):
            return True
    return False


def numpy_work(shuffles: int, metrics: int, units: float) -> float:
    """Estimated nanoseconds of a pair of ``units`` differing units on the NumPy path."""
    return shuffles * (2 + 9 * metrics + 0.025 * units)


def worth_compiling_ns(nanoseconds: float) -> bool:
    """Whether NumPy work of ``nanoseconds`` would take longer than loading the kernels."""
    return nanoseconds > _NUMPY_BUDGET_NS


def approximate_counts(
    pairs: list[PairData],
    metrics: tuple[str, ...],
    shuffles: int,
    seed: int,
    two_sided: bool = True,
    threads: int | None = None,
    chunk: int = 1 << 14,
    compiled: bool | None = None,
) -> np.ndarray:
    """``nge`` for every pair and metric. Compiled: float32 matrix products of the shared
    coins with the pairs' differences (exact below 2^24), else per-block lookup tables of
    packed sums; a pair beyond the packing, or a run too small to repay loading the kernels,
    takes the NumPy path (``compiled`` chooses instead). Every path gives the same counts, for
    any ``threads``/``chunk``.
    """
    out = np.zeros((len(pairs), len(metrics)), dtype=np.int64)
    if not pairs or shuffles <= 0:
        return out
    if compiled is None:
        compiled = takes_compiled(pairs, shuffles, len(metrics))
    if not compiled or not HAVE_NUMBA:
        from muceval.significance.numpy_counts import approximate_counts_numpy_many

        return approximate_counts_numpy_many(pairs, metrics, shuffles, seed, two_sided)
    jit = _jit()
    numba = jit.numba
    previous = numba.get_num_threads()
    if threads:
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    try:
        fits = np.flatnonzero(_gemm_fitting(pairs)).tolist()
        # Pairs of many units: the lookup tables are faster for a few of them (they read
        # eight coins at a time) but take 256 bytes per unit and pair; past _TABLE_BUDGET
        # bytes the chunked products, whose memory does not grow with the units, take over.
        big = sum(len(pairs[k].diffs) for k in fits if len(pairs[k].diffs) > _GEMM_UNITS)
        gemm = [k for k in fits if len(pairs[k].diffs) <= _GEMM_UNITS
                or 256 * big > _TABLE_BUDGET]
        if gemm:
            out[gemm] = _gemm_counts([pairs[k] for k in gemm], metrics, shuffles, seed,
                                     two_sided)
        taken = set(gemm)
        rest = [k for k in range(len(pairs)) if k not in taken]
        if rest:
            out[rest] = _table_counts([pairs[k] for k in rest], metrics, shuffles, seed,
                                      two_sided, chunk)
    finally:
        numba.set_num_threads(previous)
    return out


def pair_thresholds(pairs: list[PairData], metrics: tuple[str, ...],
                    two_sided: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Metric coefficients, totals (x then y), signs and thresholds, as the kernels take them."""
    coefs = np.array([METRIC_COEFS[m] for m in metrics], dtype=np.float64)
    total_x = np.array([p.total_x for p in pairs], dtype=np.int64).reshape(-1, 3)
    total_y = np.array([p.total_y for p in pairs], dtype=np.int64).reshape(-1, 3)
    totals = np.concatenate([total_x, total_y], axis=1)
    signs = np.empty((len(pairs), len(metrics)))
    thresholds = np.empty((len(pairs), len(metrics)))
    for m, metric in enumerate(metrics):
        # threshold_of of every pair at once: metric_values is totals_value, operation for
        # operation (a pair at a time, this loop was most of the time outside the kernel).
        observed = metric_values(total_x, metric) - metric_values(total_y, metric)
        signs[:, m] = np.where(observed >= 0, 1.0, -1.0)
        magnitude = np.abs(observed)
        thresholds[:, m] = magnitude - REL_TOL * magnitude
    return coefs, totals, signs, thresholds


def _gemm_fitting(pairs: Sequence[PairData], block: int = 1 << 13) -> np.ndarray:
    """Per pair, whether float32 holds every exchanged sum exactly; a block of pairs per
    reduction (one per pair took 40 times as long at 300 systems)."""
    out = np.zeros(len(pairs), dtype=bool)
    for start in range(0, len(pairs), block):
        chunk = pairs[start:start + block]
        lengths = np.fromiter((len(p.diffs) for p in chunk), dtype=np.int64, count=len(chunk))
        sums = np.zeros((len(chunk), 3), dtype=np.int64)
        filled = lengths > 0
        if filled.any():
            stacked = np.abs(np.concatenate([p.diffs for p in chunk]).reshape(-1, 3))
            starts = np.cumsum(lengths) - lengths
            sums[filled] = np.add.reduceat(stacked, starts[filled], axis=0)
        out[start:start + len(chunk)] = np.all(sums < _FLOAT32_EXACT, axis=1)
    return out


def _gemm_counts(pairs: list[PairData], metrics: tuple[str, ...], shuffles: int, seed: int,
                 two_sided: bool) -> np.ndarray:
    """The matrix-product kernel: pairs of up to _GEMM_UNITS differing units a few to a
    thread, larger ones in chunks of units (:func:`_chunked_counts`: memory does not grow
    with a pair's units)."""
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    out = np.zeros((len(pairs), len(metrics)), dtype=np.int64)
    small = [k for k, p in enumerate(pairs) if len(p.diffs) <= _GEMM_UNITS]
    large = [k for k, p in enumerate(pairs) if len(p.diffs) > _GEMM_UNITS]
    if large:
        out[large] = _chunked_counts([pairs[k] for k in large], metrics, shuffles, seed,
                                     two_sided)
    if not small:
        return out
    chosen_pairs = [pairs[k] for k in small]
    found = np.zeros((len(small), len(metrics)), dtype=np.int64)
    jit = _jit()
    units = max(1, max(len(p.diffs) for p in chosen_pairs))
    # Coin blocks of about 32 MB of float32, a multiple of the product width.
    per_block = max(1, (1 << 23) // units // _GEMM_SHUFFLES) * _GEMM_SHUFFLES
    group = max(_GEMM_PAIRS, (1 << 24) // (3 * units))
    key = np.uint64(seed_key(seed))
    with threadpool_limits(limits=1, user_api="blas"):  # the threads are numba's
        for g0 in range(0, len(chosen_pairs), group):
            chosen = chosen_pairs[g0:g0 + group]
            diffs_t, totals_f, coefs, signs, thresholds = _product_inputs(
                chosen, metrics, two_sided, units)
            for s0 in range(0, shuffles, per_block):
                s1 = min(shuffles, s0 + per_block)
                blocks = -(-(s1 - s0) // _GEMM_SHUFFLES)
                coins_t = np.zeros((blocks, units, _GEMM_SHUFFLES), dtype=np.float32)
                jit._coin_blocks(key, s0, s1 - s0, 0, coins_t)
                jit._gemm_hits(diffs_t, coins_t, s1 - s0, totals_f, coefs, signs, thresholds,
                               two_sided, found[g0:g0 + group])
    out[small] = found
    return out


def _product_inputs(pairs: list[PairData], metrics: tuple[str, ...], two_sided: bool,
                    units: int) -> tuple[np.ndarray, ...]:
    """The product kernels' inputs: differences (3·pairs × units float32, zero-padded),
    totals (float64), metric coefficients, signs and thresholds."""
    coefs, totals, signs, thresholds = pair_thresholds(pairs, metrics, two_sided)
    diffs_t = np.zeros((3 * len(pairs), units), dtype=np.float32)
    lengths = np.fromiter((len(p.diffs) for p in pairs), dtype=np.int64, count=len(pairs))
    if lengths.sum():
        # Every pair's rows scattered at once: pair k's i-th differing unit is column i of
        # rows 3k, 3k + 1, 3k + 2.
        stacked = np.concatenate([p.diffs for p in pairs]).reshape(-1, 3)
        row = 3 * np.repeat(np.arange(len(pairs)), lengths)
        column = np.arange(len(stacked)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        for c in range(3):
            diffs_t[row + c, column] = stacked[:, c]
    return diffs_t, totals.astype(np.float64), coefs, signs, thresholds


def _chunked_counts(pairs: list[PairData], metrics: tuple[str, ...], shuffles: int,
                    seed: int, two_sided: bool) -> np.ndarray:
    """Pairs of many differing units: exchanged sums added up over chunks of _GEMM_UNITS
    units (one product each), then counted; exact however they are split (below 2^24)."""
    jit = _jit()
    out = np.zeros((len(pairs), len(metrics)), dtype=np.int64)
    units = max(len(p.diffs) for p in pairs)
    group = max(1, (1 << 24) // (3 * units))
    width = 4 * _GEMM_SHUFFLES
    key = np.uint64(seed_key(seed))
    for g0 in range(0, len(pairs), group):
        chosen = pairs[g0:g0 + group]
        diffs_t, totals_f, coefs, signs, thresholds = _product_inputs(chosen, metrics,
                                                                      two_sided, units)
        for s0 in range(0, shuffles, width):
            n = min(width, shuffles - s0)
            sums = np.zeros((3 * len(chosen), width), dtype=np.float32)
            for u0 in range(0, units, _GEMM_UNITS):
                u1 = min(units, u0 + _GEMM_UNITS)
                flips = np.zeros((1, u1 - u0, width), dtype=np.float32)
                jit._coin_blocks(key, s0, n, u0, flips)
                sums += diffs_t[:, u0:u1] @ flips[0]
            jit._sum_hits(sums, n, totals_f, coefs, signs, thresholds, two_sided,
                          out[g0:g0 + group])
    return out


def _table_counts(pairs: list[PairData], metrics: tuple[str, ...], shuffles: int, seed: int,
                  two_sided: bool, chunk: int) -> np.ndarray:
    """The lookup-table kernel, for pairs whose sums float32 cannot hold exactly."""
    out = np.zeros((len(pairs), len(metrics)), dtype=np.int64)
    segments = [_segment_words(p) for p in pairs]
    fast = [k for k in range(len(pairs)) if segments[k] > 0]
    for k, pair in enumerate(pairs):
        if segments[k] == 0:
            from muceval.significance.numpy_counts import approximate_counts_numpy

            out[k] = approximate_counts_numpy(pair, metrics, shuffles, seed, two_sided)
    if not fast:
        return out
    sel = [pairs[k] for k in fast]
    n_units = np.array([len(p.diffs) for p in sel], dtype=np.int64)
    unit_offsets = np.concatenate([[0], np.cumsum(n_units)]).astype(np.int64)
    blocks = -(-n_units // _BLOCK_BITS)
    block_start = np.concatenate([[0], np.cumsum(blocks)]).astype(np.int64)
    diffs = np.concatenate([np.zeros((0, 3), np.int64), *(p.diffs for p in sel)]).astype(np.int64)
    tables = np.zeros((max(1, int(block_start[-1])), _TABLE), dtype=np.int64)
    jit = _jit()
    jit._build_tables(diffs, unit_offsets, block_start, tables)
    coefs, totals, signs, thresholds = pair_thresholds(sel, metrics, two_sided)
    n_chunks = -(-shuffles // chunk)
    result = np.zeros((len(sel), n_chunks, len(metrics)), dtype=np.int64)
    jit._approx_kernel(tables, block_start, totals, coefs, signs, thresholds, two_sided,
                       shuffles, np.uint64(seed_key(seed)), chunk,
                       np.array([segments[k] for k in fast], dtype=np.int64), result)
    out[fast] = result.sum(axis=1)
    return out


@dataclass(frozen=True)
class ExactResult:
    """Exact p-value of one pair and metric (the pruned mass included: it never understates
    p); ``error_bound`` is the pruned mass (0: exact)."""

    p_value: float
    error_bound: float
    cells: int


def _lattice(pair: PairData, metric: str) -> tuple[np.ndarray, int, int]:
    """Non-zero per-unit lattice shifts ``(dV, dN2)`` of a metric, and the V totals of X, Y."""
    alpha, gamma, _ = METRIC_COEFS[metric]
    d = pair.diffs
    shifts = np.stack([alpha * d[:, 0] + gamma * d[:, 1], d[:, 2]], axis=1).astype(np.int64)
    shifts = shifts[np.any(shifts != 0, axis=1)]
    vx = int(alpha * pair.total_x[0] + gamma * pair.total_x[1])
    vy = int(alpha * pair.total_y[0] + gamma * pair.total_y[1])
    return shifts, vx, vy


def _canonical(shifts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Shifts oriented positive, reduced by gcd and grouped: (unique, multiplicities, offset,
    gcd_v, gcd_n), S = offset + (gcd_v, gcd_n) ⊙ Σ c'_u e_u with fair coins c'."""
    shifts = shifts.copy()
    negative = (shifts[:, 0] < 0) | ((shifts[:, 0] == 0) & (shifts[:, 1] < 0))
    offset = shifts[negative].sum(axis=0)
    shifts[negative] *= -1
    g_v, g_n = (int(np.gcd.reduce(np.abs(shifts[:, c]))) or 1 for c in (0, 1))
    unique, counts = np.unique(shifts // np.array([g_v, g_n]), axis=0, return_counts=True)
    order = np.argsort(np.abs(unique).sum(axis=1), kind="stable")
    unique, counts = unique[order], counts[order]
    return unique.astype(np.int64), counts.astype(np.int64), offset.astype(np.int64), g_v, g_n


def exact_cost(pair: PairData, metric: str) -> float:
    """Estimated cell updates of :func:`exact_pvalue` (bounding box after each unit)."""
    shifts, _, _ = _lattice(pair, metric)
    if not len(shifts):
        return 0.0
    unique, counts, _, _, _ = _canonical(shifts)
    steps = np.repeat(unique, counts, axis=0)
    rows = np.cumsum(steps[:, 0]) + 1
    cols = np.cumsum(np.abs(steps[:, 1])) + 1
    return float(np.sum(rows.astype(np.float64) * cols)) + float(rows[-1] * cols[-1])


def exact_grid_cells(pair: PairData, metric: str) -> int:
    """Cells of the dense grid :func:`exact_pvalue` allocates (8 bytes each), skipping
    :func:`_canonical`, which changes neither the summed absolute shifts nor their gcd."""
    alpha, gamma, _ = METRIC_COEFS[metric]
    d = pair.diffs
    sizes = (np.abs(alpha * d[:, 0] + gamma * d[:, 1]), np.abs(d[:, 2]))
    rows, cols = (int(size.sum()) // (int(np.gcd.reduce(size)) or 1) + 1 if len(size) else 1
                  for size in sizes)
    return rows * cols


def exact_grid_cells_many(pairs: Sequence[PairData], metric: str) -> np.ndarray:
    """:func:`exact_grid_cells` of every pair (int64), from one pass over their units."""
    alpha, gamma, _ = METRIC_COEFS[metric]
    lengths = np.array([len(p.diffs) for p in pairs], dtype=np.int64)
    cells = np.ones(len(pairs), dtype=np.int64)
    some = lengths > 0
    if not some.any():
        return cells
    d = np.concatenate([p.diffs for p in pairs])
    # Each pair's units from its first on; a pair without units (grid of one cell) is
    # skipped, its empty run of units joining no other pair's.
    starts = (np.cumsum(lengths) - lengths)[some]
    for size in (np.abs(alpha * d[:, 0] + gamma * d[:, 1]), np.abs(d[:, 2])):
        divisor = np.gcd.reduceat(size, starts)
        cells[some] *= np.add.reduceat(size, starts) // np.maximum(divisor, 1) + 1
    return cells


def exact_pvalue(
    pair: PairData, metric: str, two_sided: bool = True, budget: float = 0.0
) -> ExactResult:
    """Exact randomization p-value over all 2^n exchanges (p = count / 2^n, no +1), by dynamic
    programming on the metric's lattice (V, N2); up to ``budget`` of probability mass may be
    pruned, then added to the p-value and returned as ``error_bound``.

    >>> x = np.array([[2, 2, 4], [2, 2, 2]]); y = np.array([[2, 2, 0], [2, 2, 2]])
    >>> exact_pvalue(PairData.of(x, y), "recall").p_value
    1.0
    """
    _, _, kappa = METRIC_COEFS[metric]
    shifts, vx, vy = _lattice(pair, metric)
    nx, ny = int(pair.total_x[2]), int(pair.total_y[2])
    observed = totals_value(pair.total_x, metric) - totals_value(pair.total_y, metric)
    sign, thr = threshold_of(observed, two_sided)
    if not len(shifts):
        return ExactResult(1.0, 0.0, 1)
    unique, counts, offset, g_v, g_n = _canonical(shifts)
    rows = int((unique[:, 0] * counts).sum()) + 1
    neg = int((np.minimum(unique[:, 1], 0) * counts).sum())
    cols = int((np.abs(unique[:, 1]) * counts).sum()) + 1
    if not HAVE_NUMBA:  # pragma: no cover - numba is a declared dependency
        raise RuntimeError("exact randomization needs numba")
    jit = _jit()
    grid, lo, hi, dropped = jit._dp_kernel(unique, counts, rows, cols, neg, float(budget))
    mass = jit._tail_mass(grid, lo, hi, (int(offset[0]), int(offset[1]), g_v, g_n, neg),
                          (vx, nx, vy, ny), kappa, sign, thr, two_sided)
    p = min(1.0, mass + dropped)
    return ExactResult(p, float(dropped), rows * cols)


def default_threads() -> int:
    """Threads the compiled kernels use by default (all cores numba sees)."""
    # numba's own default (NUMBA_NUM_THREADS, else the CPUs this process may run on),
    # without importing numba.
    configured = os.environ.get("NUMBA_NUM_THREADS", "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
