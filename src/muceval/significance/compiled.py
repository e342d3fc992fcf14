"""The compiled kernels (numba), imported at first use by :mod:`muceval.significance.kernels`,
:mod:`~muceval.significance.bootstrap` and :mod:`~muceval.significance.responses`, whose NumPy
references give the same results (the tests compare them)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TypeVar, cast

import numba
import numpy as np
from numba import njit, prange

from muceval.significance.kernels import (
    _BATCH,
    _BLOCK_BITS,
    _FIELD_BITS,
    _GEMM_PAIRS,
    _GEMM_SHUFFLES,
    _GOLDEN,
    _M1,
    _M2,
    _PER_WORD,
    _TABLE,
    _WORD_STRIDE,
    REL_TOL,
)

if not os.environ.get("NUMBA_CACHE_DIR"):
    # An installed package must never write into itself: the compiled kernels
    # go to the user's cache directory unless NUMBA_CACHE_DIR says otherwise.
    import platformdirs

    numba.config.CACHE_DIR = os.path.join(  # type: ignore[attr-defined]
        platformdirs.user_cache_dir("muceval", appauthor=False), "numba")


@njit(cache=True, inline="always")
def _mix64(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> np.uint64(30))) * np.uint64(_M1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(_M2)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _build_tables(diffs: np.ndarray, offsets: np.ndarray, n_blocks: np.ndarray,
                  tables: np.ndarray) -> None:
    """tables[b, mask] = packed sum of the differences selected by ``mask`` in block b."""
    for p in range(offsets.shape[0] - 1):
        lo = offsets[p]
        n = offsets[p + 1] - lo
        base = n_blocks[p]
        for b in range(n_blocks[p + 1] - base):
            row = base + b
            tables[row, 0] = 0
            for mask in range(1, _TABLE):
                low = mask & (-mask)
                bit = 0
                while (1 << bit) != low:
                    bit += 1
                unit = b * _BLOCK_BITS + bit
                value = 0
                if unit < n:
                    u = lo + unit
                    value = (
                        diffs[u, 0]
                        + (diffs[u, 1] << _FIELD_BITS)
                        + (diffs[u, 2] << (2 * _FIELD_BITS))
                    )
                tables[row, mask] = tables[row, mask & (mask - 1)] + value


# A packed sum holds three signed fields; adding the bias makes each field non-negative.
_BIAS = (1 << (_FIELD_BITS - 1)) * (1 + (1 << _FIELD_BITS) + (1 << (2 * _FIELD_BITS)))
_FIELD_MASK = (1 << _FIELD_BITS) - 1
_HALF = 1 << (_FIELD_BITS - 1)


@njit(cache=True, inline="always")
def _unpack(s: int) -> tuple[int, int, int]:
    """The (POS, ACT, N2) fields of a packed sum."""
    u = s + _BIAS
    return ((u & _FIELD_MASK) - _HALF, ((u >> _FIELD_BITS) & _FIELD_MASK) - _HALF,
            (u >> (2 * _FIELD_BITS)) - _HALF)


@njit(cache=True, inline="always")
def _exchanged_sums(tables: np.ndarray, b0: int, nb: int, seg_words: int, key: np.uint64,
                    i: int) -> tuple[int, int, int]:
    """Shuffle ``i``'s exchanged (POS, ACT, N2) sums of the pair whose ``nb`` blocks start
    at table row ``b0``."""
    n_words = (nb + _PER_WORD - 1) // _PER_WORD
    s = 0
    sp = 0
    sa = 0
    sn = 0
    for w in range(n_words):
        counter = np.uint64(i) * np.uint64(_WORD_STRIDE) + np.uint64(w + 1)
        word = _mix64(key + np.uint64(_GOLDEN) * counter)
        last = min(_PER_WORD, nb - w * _PER_WORD)
        for k in range(last):
            idx = np.int64((word >> np.uint64(_BLOCK_BITS * k)) & np.uint64(_TABLE - 1))
            s += tables[b0 + w * _PER_WORD + k, idx]
        # A pair too large for one packed sum is summed in segments, each
        # unpacked before its fields could overflow.
        if (w + 1) % seg_words == 0:
            dp, da, dn = _unpack(s)
            sp += dp
            sa += da
            sn += dn
            s = 0
    dp, da, dn = _unpack(s)
    return sp + dp, sa + da, sn + dn


@njit(cache=True, inline="always")
def _fill_batch(batch: tuple[np.ndarray, ...], tables: np.ndarray, b0: int, nb: int,
                seg_words: int, key: np.uint64, i0: int, size: int, totals: np.ndarray) -> None:
    """The pseudo-systems' (POS, ACT, N2) totals, X then Y, of ``size`` shuffles."""
    xp, xa, xn, yp, ya, yn = batch
    for t in range(size):
        sp, sa, sn = _exchanged_sums(tables, b0, nb, seg_words, key, i0 + t)
        xp[t] = totals[0] - sp
        xa[t] = totals[1] - sa
        xn[t] = totals[2] - sn
        yp[t] = totals[3] + sp
        ya[t] = totals[4] + sa
        yn[t] = totals[5] + sn


@njit(cache=True, inline="always")
def _batch_hits(batch: tuple[np.ndarray, ...], size: int, coef: np.ndarray, sign: float,
                thr: float, other: float) -> int:
    """How many of a batch's shuffles are at least as extreme for one metric, in the same
    IEEE operations as the reference."""
    xp, xa, xn, yp, ya, yn = batch
    alpha = coef[0]
    gamma = coef[1]
    kappa = coef[2]
    hits = 0
    for t in range(size):
        vx = alpha * xp[t] + gamma * xa[t]
        vy = alpha * yp[t] + gamma * ya[t]
        mx = (kappa * xn[t]) / (vx if vx > 0 else 1.0)
        my = (kappa * yn[t]) / (vy if vy > 0 else 1.0)
        mx = mx if vx > 0 else 0.0
        my = my if vy > 0 else 0.0
        d = sign * (mx - my)
        hits += (d >= thr) | (-d >= other)
    return hits


@njit(parallel=True, cache=True, nogil=True)
def _approx_kernel(
    tables: np.ndarray, block_start: np.ndarray, totals: np.ndarray, coefs: np.ndarray,
    signs: np.ndarray, thresholds: np.ndarray, two_sided: bool, shuffles: int, key: np.uint64,
    chunk: int, seg_words: np.ndarray, out: np.ndarray
) -> None:
    n_metrics = coefs.shape[0]
    n_chunks = (shuffles + chunk - 1) // chunk
    for item in prange(totals.shape[0] * n_chunks):
        p = item // n_chunks
        c = item % n_chunks
        start = c * chunk
        stop = min(shuffles, start + chunk)
        b0 = block_start[p]
        nb = block_start[p + 1] - b0
        local = np.zeros(n_metrics, dtype=np.int64)
        # Batches of shuffles: the table gathers, then each metric in a branch-free loop
        # that the compiler vectorises.
        batch = (np.empty(_BATCH), np.empty(_BATCH), np.empty(_BATCH),
                 np.empty(_BATCH), np.empty(_BATCH), np.empty(_BATCH))
        for i0 in range(start, stop, _BATCH):
            size = min(_BATCH, stop - i0)
            _fill_batch(batch, tables, b0, nb, seg_words[p], key, i0, size, totals[p])
            for m in range(n_metrics):
                thr = thresholds[p, m]
                other = thr if two_sided else np.inf  # as in _count_pair
                local[m] += _batch_hits(batch, size, coefs[m], signs[p, m], thr, other)
        for m in range(n_metrics):
            out[p, c, m] = local[m]


# The grid helpers below loop over the rows themselves: a helper called once per row
# takes (atomic) references to its arrays on every call, about 3 % of the exact test.


@njit(cache=True, inline="always")
def _shift_rows(grid: np.ndarray, lo: np.ndarray, hi: np.ndarray, used_rows: int,
                b: int) -> None:
    """The grid after one more unit of shift (0, b), b > 0, in place."""
    for i in range(used_rows - 1, -1, -1):
        if lo[i] > hi[i]:
            continue
        s_lo = lo[i]
        s_hi = hi[i]
        # Columns from the right, so that the sources are still unread; a column left of
        # s_lo + b has no source, and one right of s_hi held 0.
        for j in range(s_hi + b, s_lo + b - 1, -1):
            grid[i, j] += grid[i, j - b]
        hi[i] = s_hi + b


@njit(cache=True, inline="always")
def _add_rows(grid: np.ndarray, lo: np.ndarray, hi: np.ndarray, used_rows: int, a: int,
              b: int) -> int:
    """The grid after one more unit of shift (a, b), a > 0, in place; returns rows in use."""
    new_rows: int = min(grid.shape[0], used_rows + a)
    # Rows from the bottom, so that row i-a is still the old one.
    for i in range(new_rows - 1, -1, -1):
        src = i - a
        if src < 0 or src >= used_rows or lo[src] > hi[src]:
            continue
        t_lo = lo[src] + b
        t_hi = hi[src] + b
        # One slice, vectorised (row i is not row src, as a > 0); np.add into the row, as
        # ``+=`` on a slice copies it first: twice as fast (benchmarks/targets.py).
        row = grid[i, t_lo:t_hi + 1]
        np.add(row, grid[src, lo[src]:hi[src] + 1], row)
        if t_lo < lo[i]:
            if lo[i] > hi[i]:
                # Row was empty: cells between are zero already.
                hi[i] = max(hi[i], t_hi)
            lo[i] = t_lo
        if t_hi > hi[i]:
            hi[i] = t_hi
    return new_rows


@njit(cache=True, inline="always")
def _scale_rows(grid: np.ndarray, lo: np.ndarray, hi: np.ndarray, used_rows: int,
                factor: float) -> None:
    for i in range(used_rows):
        for j in range(lo[i], hi[i] + 1):
            grid[i, j] *= factor


@njit(cache=True, inline="always")
def _trim_rows(grid: np.ndarray, lo: np.ndarray, hi: np.ndarray, used_rows: int, scale: float,
               budget: float, dropped: float) -> float:
    """Trims negligible mass from row ends within the budget; returns the total dropped."""
    limit = budget * 1e-3
    for i in range(used_rows):
        while lo[i] <= hi[i] and grid[i, lo[i]] * scale < limit:
            if dropped + grid[i, lo[i]] * scale > budget:
                break
            dropped += grid[i, lo[i]] * scale
            grid[i, lo[i]] = 0.0
            lo[i] += 1
        while lo[i] <= hi[i] and grid[i, hi[i]] * scale < limit:
            if dropped + grid[i, hi[i]] * scale > budget:
                break
            dropped += grid[i, hi[i]] * scale
            grid[i, hi[i]] = 0.0
            hi[i] -= 1
    return dropped


@njit(cache=True, nogil=True)
def _dp_kernel(unique: np.ndarray, counts: np.ndarray, rows: int, cols: int, neg: int,
               budget: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    # The cells hold probabilities times 2^pending (one pass over the rows per unit instead
    # of two); scaled back every 900 units and at the end, exactly: a power of two.
    grid = np.zeros((rows, cols))
    lo = np.full(rows, cols, dtype=np.int64)
    hi = np.full(rows, -1, dtype=np.int64)
    grid[0, -neg] = 1.0
    lo[0] = -neg
    hi[0] = -neg
    used_rows = 1
    dropped = 0.0
    pending = 0
    for g in range(unique.shape[0]):
        a = unique[g, 0]
        b = unique[g, 1]
        for _ in range(counts[g]):
            if a == 0:
                _shift_rows(grid, lo, hi, used_rows, b)
            else:
                used_rows = _add_rows(grid, lo, hi, used_rows, a, b)
            pending += 1
            if pending == 900:
                _scale_rows(grid, lo, hi, used_rows, 2.0 ** -900)
                pending = 0
            if budget > 0.0:
                dropped = _trim_rows(grid, lo, hi, used_rows, 2.0 ** -pending, budget, dropped)
    _scale_rows(grid, lo, hi, used_rows, 2.0 ** -pending)
    return grid, lo, hi, dropped


@njit(cache=True, nogil=True)
def _tail_mass(
    grid: np.ndarray, lo: np.ndarray, hi: np.ndarray, lattice: tuple[int, int, int, int, int],
    totals: tuple[int, int, int, int], kappa: float, sign: float, thr: float, two_sided: bool
) -> float:
    """The probability of the cells whose exchange is at least as extreme. ``lattice``:
    (off_v, off_n, g_v, g_n, neg), cell (i, j) being the exchanged sums (off_v + g_v·i,
    off_n + g_n·(j + neg)); ``totals``: the metric's (V, N2) totals of X then Y."""
    off_v, off_n, g_v, g_n, neg = lattice
    vx, nx, vy, ny = totals
    total = 0.0
    for i in range(grid.shape[0]):
        if lo[i] > hi[i]:
            continue
        sv = off_v + g_v * i
        xv = vx - sv
        yv = vy + sv
        for j in range(lo[i], hi[i] + 1):
            w = grid[i, j]
            if w == 0.0:
                continue
            sn = off_n + g_n * (j + neg)
            mx = (kappa * (nx - sn)) / xv if xv > 0 else 0.0
            my = (kappa * (ny + sn)) / yv if yv > 0 else 0.0
            diff = mx - my
            stat = abs(diff) if two_sided else sign * diff
            if stat >= thr:
                total += w
    return total


@njit(cache=True, inline="always")
def _keep_smallest(buf: np.ndarray, count: int, cap: int,  # pragma: no cover - compiled
                   x: float) -> int:
    if count == cap:
        if x >= buf[cap - 1]:
            return count
        i = cap - 1
    else:
        i = count
        count += 1
    while i > 0 and buf[i - 1] > x:
        buf[i] = buf[i - 1]
        i -= 1
    buf[i] = x
    return count


_STRIDE = 8
"""Every _STRIDE-th difference is a sample from which :func:`_tails` sets its thresholds."""


@njit(cache=True, inline="always")
def _keep_all(values: np.ndarray, count: int, buf: np.ndarray,  # pragma: no cover - compiled
              cap: int) -> None:
    """``buf`` := the ``cap`` smallest of ``values[:count]``, ascending."""
    kept = 0
    for i in range(count):
        kept = _keep_smallest(buf, kept, cap, values[i])


@njit(parallel=True, cache=True, nogil=True)
def _tails(values: np.ndarray, a: np.ndarray, b: np.ndarray,  # pragma: no cover - compiled
           where: np.ndarray, out: np.ndarray) -> None:
    # Only the few smallest and largest differences, sorted by insertion: thresholds from
    # every _STRIDE-th difference let one branch-free pass gather those beyond them, and
    # when too few are (or with NaN) every difference is inserted. Either way the same
    # values are kept: the few smallest are at or below any threshold that many are.
    n_metrics, _, samples = values.shape
    small_cap = where[1] + 1
    large_cap = samples - where[2]
    sampled = (samples + _STRIDE - 1) // _STRIDE
    picks_small = min(sampled, (3 * small_cap) // (2 * _STRIDE) + 2)
    picks_large = min(sampled, (3 * large_cap) // (2 * _STRIDE) + 2)
    for n in prange(a.shape[0]):
        small = np.empty(small_cap)
        large = np.empty(large_cap)  # negated: the largest differences, ascending
        sub_small = np.empty(picks_small)
        sub_large = np.empty(picks_large)
        d = np.empty(samples)
        low = np.empty(samples)
        high = np.empty(samples)  # negated
        for m in range(n_metrics):
            for s in range(samples):
                d[s] = values[m, a[n], s] - values[m, b[n], s]
            ps = 0
            pl = 0
            for s in range(0, samples, _STRIDE):
                ps = _keep_smallest(sub_small, ps, picks_small, d[s])
                pl = _keep_smallest(sub_large, pl, picks_large, -d[s])
            below = sub_small[ps - 1]
            above = -sub_large[pl - 1]
            nl = 0
            nh = 0
            nan = 0
            for s in range(samples):
                x = d[s]
                low[nl] = x
                high[nh] = -x
                nl += x <= below
                nh += x >= above
                nan += x != x
            if nl < small_cap or nan > 0:
                for s in range(samples):
                    low[s] = d[s]
                nl = samples
            _keep_all(low, nl, small, small_cap)
            if nh < large_cap or nan > 0:
                for s in range(samples):
                    high[s] = -d[s]
                nh = samples
            _keep_all(high, nh, large, large_cap)
            for q in range(4):
                k = where[q]
                out[n, m, q] = small[k] if k < small_cap else -large[samples - 1 - k]


@njit(cache=True, inline="always")
def _count_pair(sums: np.ndarray, q: int, p: int, width: int, totals: np.ndarray,
                coefs: np.ndarray, signs: np.ndarray, thresholds: np.ndarray, two_sided: bool,
                out: np.ndarray) -> None:
    """Adds to ``out[p]`` the shuffles among ``width`` whose exchanged sums (rows q to q+2 of
    ``sums``) are at least as extreme, per metric, in :func:`_batch_hits`' IEEE operations."""
    px = totals[p, 0]
    ax = totals[p, 1]
    nx = totals[p, 2]
    py = totals[p, 3]
    ay = totals[p, 4]
    ny = totals[p, 5]
    for m in range(coefs.shape[0]):
        alpha = coefs[m, 0]
        gamma = coefs[m, 1]
        kappa = coefs[m, 2]
        sign = signs[p, m]
        thr = thresholds[p, m]
        # |d| ≥ thr is sign·d ≥ thr or −sign·d ≥ thr (sign is ±1: exact); one-sided
        # tests only the first, with the second threshold out of reach.
        other = thr if two_sided else np.inf
        hits = 0
        for t in range(width):
            sp = np.float64(sums[q, t])
            sa = np.float64(sums[q + 1, t])
            sn = np.float64(sums[q + 2, t])
            vx = alpha * (px - sp) + gamma * (ax - sa)
            vy = alpha * (py + sp) + gamma * (ay + sa)
            mx = (kappa * (nx - sn)) / (vx if vx > 0 else 1.0)
            my = (kappa * (ny + sn)) / (vy if vy > 0 else 1.0)
            mx = mx if vx > 0 else 0.0
            my = my if vy > 0 else 0.0
            d = sign * (mx - my)
            hits += (d >= thr) | (-d >= other)
        out[p, m] += hits


@njit(parallel=True, cache=True, nogil=True)
def _gemm_hits(diffs_t: np.ndarray, coins_t: np.ndarray, n_shuffles: int, totals: np.ndarray,
               coefs: np.ndarray, signs: np.ndarray, thresholds: np.ndarray, two_sided: bool,
               out: np.ndarray) -> None:
    """Adds to ``out`` the counts of extreme shuffles of the exchanged sums formed by float32
    products of ``diffs_t`` (3·pairs × units) with ``coins_t`` (blocks × units ×
    _GEMM_SHUFFLES), a few pairs per thread (BLAS on one thread per call)."""
    n_pairs = totals.shape[0]
    for b in prange((n_pairs + _GEMM_PAIRS - 1) // _GEMM_PAIRS):
        p0 = b * _GEMM_PAIRS
        p1 = min(n_pairs, p0 + _GEMM_PAIRS)
        block = diffs_t[3 * p0:3 * p1]
        for k in range(coins_t.shape[0]):
            width = min(_GEMM_SHUFFLES, n_shuffles - k * _GEMM_SHUFFLES)
            sums = np.dot(block, coins_t[k])
            for p in range(p0, p1):
                _count_pair(sums, 3 * (p - p0), p, width, totals, coefs, signs, thresholds,
                            two_sided, out)


@njit(parallel=True, cache=True, nogil=True)
def _sum_hits(sums: np.ndarray, width: int, totals: np.ndarray, coefs: np.ndarray,
              signs: np.ndarray, thresholds: np.ndarray, two_sided: bool,
              out: np.ndarray) -> None:
    """:func:`_count_pair` for every pair of ``sums`` (3·pairs × shuffles)."""
    for p in prange(totals.shape[0]):
        _count_pair(sums, 3 * p, p, width, totals, coefs, signs, thresholds, two_sided, out)


@njit(parallel=True, cache=True, nogil=True)
def _coin_blocks(key: np.uint64, start: int, n_shuffles: int, unit_start: int,
                 out: np.ndarray) -> None:
    """The coins of ``n_shuffles`` shuffles from ``start`` for units from ``unit_start`` (a
    multiple of 64) into zeroed ``out``: ``out[k, u, t]`` is unit ``unit_start + u``'s coin
    in shuffle ``start + k·width + t`` (as ``kernels.coins``)."""
    width = out.shape[2]
    units = out.shape[1]
    n_words = (units + 63) // 64
    first_word = unit_start // 64
    for k in prange(out.shape[0]):
        first = k * width
        count = min(width, n_shuffles - first)
        words = np.empty(width, dtype=np.uint64)
        for w in range(n_words):
            word_id = np.uint64(first_word + w + 1)
            for t in range(count):
                counter = np.uint64(start + first + t) * np.uint64(_WORD_STRIDE) + word_id
                words[t] = _mix64(key + np.uint64(_GOLDEN) * counter)
            for b in range(min(64, units - 64 * w)):
                row = 64 * w + b
                for t in range(count):
                    out[k, row, t] = np.float32((words[t] >> np.uint64(b)) & np.uint64(1))


@njit(cache=True)
def response_counts(words: np.ndarray, tables: np.ndarray, every: np.ndarray,
                    base: np.ndarray, groups: np.ndarray, outcomes: np.ndarray,
                    coefs: np.ndarray, observed: np.ndarray,
                    two_sided: bool) -> np.ndarray:
    """Per metric, how many rows of coin ``words`` give a difference at least as extreme.

    ``tables`` (bytes × 256 × 3): the singles' (POS, ACT, N2) per byte value; ``groups``
    (g × 3): each group's first bit, width and first row in ``outcomes`` (rows × 2 × 3);
    ``coefs`` (metrics × 3): alpha, gamma, kappa; ``observed``: each metric's difference.
    """
    n_metrics = coefs.shape[0]
    counts = np.zeros(n_metrics, dtype=np.int64)
    first = np.empty(3, dtype=np.int64)
    second = np.empty(3, dtype=np.int64)
    for s in range(words.shape[0]):
        for c in range(3):
            first[c] = base[0, c]
            second[c] = base[1, c] + every[c]
        for b in range(tables.shape[0]):
            value = (words[s, b // 8] >> np.uint64(8 * (b % 8))) & np.uint64(255)
            for c in range(3):
                first[c] += tables[b, value, c]
                second[c] -= tables[b, value, c]
        for g in range(groups.shape[0]):
            index = np.int64(0)
            for j in range(groups[g, 1]):
                position = groups[g, 0] + j
                bit = (words[s, position // 64] >> np.uint64(position % 64)) & np.uint64(1)
                index |= np.int64(bit) << j
            row = groups[g, 2] + index
            for c in range(3):
                first[c] += outcomes[row, 0, c]
                second[c] += outcomes[row, 1, c]
        for m in range(n_metrics):
            diff = _value(first, coefs[m]) - _value(second, coefs[m])
            target = observed[m]
            threshold = abs(target) - REL_TOL * abs(target)
            if two_sided:
                stat = abs(diff)
            else:
                stat = diff if target >= 0 else -diff
            if stat >= threshold:
                counts[m] += 1
    return counts


@njit(cache=True, inline="always")
def _value(totals: np.ndarray, coef: np.ndarray) -> float:
    v = coef[0] * totals[0] + coef[1] * totals[1]
    return coef[2] * totals[2] / v if v > 0 else 0.0


# numba's workqueue threading layer (without TBB or OpenMP) ends the process when two
# threads launch parallel kernels at once, as muceval's threads may: they take turns.
_LAUNCH = threading.Lock()
_Kernel = TypeVar("_Kernel", bound=Callable[..., None])


def _taking_turns(kernel: _Kernel) -> _Kernel:
    def launch(*args: object) -> None:
        with _LAUNCH:
            kernel(*args)

    launch.__doc__ = kernel.__doc__
    return cast(_Kernel, launch)


_approx_kernel = _taking_turns(_approx_kernel)
_tails = _taking_turns(_tails)
_gemm_hits = _taking_turns(_gemm_hits)
_sum_hits = _taking_turns(_sum_hits)
_coin_blocks = _taking_turns(_coin_blocks)
