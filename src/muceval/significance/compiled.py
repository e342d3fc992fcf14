"""The compiled kernels (numba), imported at first use by :mod:`muceval.significance.kernels`
and :mod:`muceval.significance.bootstrap`: a small run on the NumPy paths never loads numba.

Every function here has a NumPy reference in those modules that gives the same result (the
tests compare them); this module holds only the compiled loops.
"""

from __future__ import annotations

import os

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


@njit(parallel=True, cache=True)
def _approx_kernel(
    tables: np.ndarray, block_start: np.ndarray, totals: np.ndarray, coefs: np.ndarray,
    signs: np.ndarray, thresholds: np.ndarray, two_sided: bool, shuffles: int, key: np.uint64,
    chunk: int, seg_words: np.ndarray, out: np.ndarray
) -> None:
    n_pairs = totals.shape[0]
    n_metrics = coefs.shape[0]
    n_chunks = (shuffles + chunk - 1) // chunk
    bias = (1 << (_FIELD_BITS - 1)) * (1 + (1 << _FIELD_BITS) + (1 << (2 * _FIELD_BITS)))
    mask = (1 << _FIELD_BITS) - 1
    half = 1 << (_FIELD_BITS - 1)
    for item in prange(n_pairs * n_chunks):
        p = item // n_chunks
        c = item % n_chunks
        start = c * chunk
        stop = min(shuffles, start + chunk)
        b0 = block_start[p]
        nb = block_start[p + 1] - b0
        n_words = (nb + _PER_WORD - 1) // _PER_WORD
        px = totals[p, 0]
        ax = totals[p, 1]
        nx = totals[p, 2]
        py = totals[p, 3]
        ay = totals[p, 4]
        ny = totals[p, 5]
        local = np.zeros(n_metrics, dtype=np.int64)
        # Shuffles go in batches: first the summed exchanges (table gathers),
        # then each metric over the batch in a branch-free loop that the
        # compiler vectorises (same IEEE divisions as the reference).
        xp = np.empty(_BATCH)
        xa = np.empty(_BATCH)
        xn = np.empty(_BATCH)
        yp = np.empty(_BATCH)
        ya = np.empty(_BATCH)
        yn = np.empty(_BATCH)
        for i0 in range(start, stop, _BATCH):
            size = min(_BATCH, stop - i0)
            sw = seg_words[p]
            for t in range(size):
                i = i0 + t
                s = 0
                sp = 0
                sa = 0
                sn = 0
                for w in range(n_words):
                    counter = np.uint64(i) * np.uint64(_WORD_STRIDE) + np.uint64(w + 1)
                    word = _mix64(key + np.uint64(_GOLDEN) * counter)
                    last = min(_PER_WORD, nb - w * _PER_WORD)
                    for k in range(last):
                        idx = np.int64(
                            (word >> np.uint64(_BLOCK_BITS * k)) & np.uint64(_TABLE - 1)
                        )
                        s += tables[b0 + w * _PER_WORD + k, idx]
                    # A pair too large for one packed sum is summed in segments, each
                    # unpacked before its fields could overflow.
                    if (w + 1) % sw == 0:
                        u = s + bias
                        sp += (u & mask) - half
                        sa += ((u >> _FIELD_BITS) & mask) - half
                        sn += (u >> (2 * _FIELD_BITS)) - half
                        s = 0
                u = s + bias
                sp += (u & mask) - half
                sa += ((u >> _FIELD_BITS) & mask) - half
                sn += (u >> (2 * _FIELD_BITS)) - half
                xp[t] = px - sp
                xa[t] = ax - sa
                xn[t] = nx - sn
                yp[t] = py + sp
                ya[t] = ay + sa
                yn[t] = ny + sn
            for m in range(n_metrics):
                alpha = coefs[m, 0]
                gamma = coefs[m, 1]
                kappa = coefs[m, 2]
                sign = signs[p, m]
                thr = thresholds[p, m]
                other = thr if two_sided else np.inf  # as in _count_pair
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
                local[m] += hits
        for m in range(n_metrics):
            out[p, c, m] = local[m]


@njit(cache=True, nogil=True)
def _dp_kernel(unique: np.ndarray, counts: np.ndarray, rows: int, cols: int, neg: int,
               budget: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    # The cells hold probabilities times 2^pending: each unit doubles instead of halving
    # every cell (one pass over the rows instead of two). Scaling by a power of two is exact,
    # so the cells are bit for bit the halved ones once scaled back (below every 900 units,
    # far from overflow, and at the end).
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
            new_rows = min(rows, used_rows + a)
            # In place, rows from the bottom so that row i-a is still the old one.
            for i in range(new_rows - 1, -1, -1):
                src = i - a
                if a == 0:
                    # Same row (b > 0): columns from the right, so sources are still unread.
                    if lo[i] > hi[i]:
                        continue
                    s_lo = lo[i]
                    s_hi = hi[i]
                    for j in range(s_hi + b, s_lo - 1, -1):
                        v = grid[i, j]
                        if j - b >= s_lo and j - b <= s_hi:
                            v += grid[i, j - b]
                        grid[i, j] = v
                    hi[i] = s_hi + b
                    continue
                if src >= 0 and src < used_rows and lo[src] <= hi[src]:
                    t_lo = lo[src] + b
                    t_hi = hi[src] + b
                    for j in range(t_lo, t_hi + 1):
                        grid[i, j] += grid[src, j - b]
                    if t_lo < lo[i]:
                        if lo[i] > hi[i]:
                            # Row was empty: cells between are zero already.
                            hi[i] = max(hi[i], t_hi)
                        lo[i] = t_lo
                    if t_hi > hi[i]:
                        hi[i] = t_hi
            used_rows = new_rows
            pending += 1
            if pending == 900:
                for i in range(used_rows):
                    for j in range(lo[i], hi[i] + 1):
                        grid[i, j] *= 2.0 ** -900
                pending = 0
            if budget > 0.0:
                # Trim negligible mass from row ends while the total stays in budget.
                scale = 2.0 ** -pending
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
    scale = 2.0 ** -pending
    for i in range(used_rows):
        for j in range(lo[i], hi[i] + 1):
            grid[i, j] *= scale
    return grid, lo, hi, dropped


@njit(cache=True, nogil=True)
def _tail_mass(
    grid: np.ndarray, lo: np.ndarray, hi: np.ndarray, off_v: int, off_n: int, g_v: int,
    g_n: int, neg: int, vx: int, nx: int, vy: int, ny: int, kappa: float, sign: float,
    thr: float, two_sided: bool
) -> float:
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


@njit(parallel=True, cache=True)
def _tails(values: np.ndarray, a: np.ndarray, b: np.ndarray,  # pragma: no cover - compiled
           where: np.ndarray, out: np.ndarray) -> None:
    # Only the order statistics the two quantiles need: the smallest and the largest
    # few differences, kept sorted by insertion (most samples fail one comparison).
    n_metrics, _, samples = values.shape
    small_cap = where[1] + 1
    large_cap = samples - where[2]
    for n in prange(a.shape[0]):
        small = np.empty(small_cap)
        large = np.empty(large_cap)  # negated: the largest differences, ascending
        for m in range(n_metrics):
            ns = 0
            nl = 0
            for s in range(samples):
                d = values[m, a[n], s] - values[m, b[n], s]
                ns = _keep_smallest(small, ns, small_cap, d)
                nl = _keep_smallest(large, nl, large_cap, -d)
            for q in range(4):
                k = where[q]
                out[n, m, q] = small[k] if k < small_cap else -large[samples - 1 - k]


@njit(cache=True, inline="always")
def _count_pair(sums: np.ndarray, q: int, p: int, width: int, totals: np.ndarray,
                coefs: np.ndarray, signs: np.ndarray, thresholds: np.ndarray, two_sided: bool,
                out: np.ndarray) -> None:
    """Adds to ``out[p]`` the shuffles among ``width`` whose exchanged sums (rows q, q+1,
    q+2 of ``sums``: POS, ACT, N2) are at least as extreme, per metric, with the same IEEE
    operations as :func:`_approx_kernel`."""
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


@njit(parallel=True, cache=True)
def _gemm_hits(diffs_t: np.ndarray, coins_t: np.ndarray, n_shuffles: int, totals: np.ndarray,
               coefs: np.ndarray, signs: np.ndarray, thresholds: np.ndarray, two_sided: bool,
               out: np.ndarray) -> None:
    """Counts of extreme shuffles from exchanged sums formed by float32 matrix products.

    ``diffs_t``: 3·pairs × units (each pair's differing units first, zeros after), exact in
    float32 because every partial sum stays below 2^24; ``coins_t``: blocks × units ×
    _GEMM_SHUFFLES of the shared coin stream (coin j of a shuffle exchanges each pair's
    j-th differing unit, as everywhere). Each thread takes a few pairs, multiplies their
    differences by a block of coins (BLAS, one thread per call) and counts every metric
    over the block. Adds to ``out``.
    """
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


@njit(parallel=True, cache=True)
def _sum_hits(sums: np.ndarray, width: int, totals: np.ndarray, coefs: np.ndarray,
              signs: np.ndarray, thresholds: np.ndarray, two_sided: bool,
              out: np.ndarray) -> None:
    """:func:`_count_pair` for every pair of exchanged sums formed elsewhere (3·pairs ×
    shuffles; the pairs with more units than one product takes)."""
    for p in prange(totals.shape[0]):
        _count_pair(sums, 3 * p, p, width, totals, coefs, signs, thresholds, two_sided, out)


@njit(parallel=True, cache=True)
def _coin_blocks(key: np.uint64, start: int, n_shuffles: int, unit_start: int,
                 out: np.ndarray) -> None:
    """The coins of shuffles ``start`` … ``start + n_shuffles - 1`` for units ``unit_start``
    (a multiple of 64) onwards, as float32 0/1 in the layout :func:`_gemm_hits` multiplies
    by: ``out[k, u, t]`` is unit ``unit_start + u``'s coin in shuffle ``start + k·width + t``
    (the same words and bits as ``kernels.coins``). ``out`` comes zeroed; shuffles past the
    end stay zero."""
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
