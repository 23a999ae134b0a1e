"""Compiled (numba) kernels for the rank-1 lattice search of the BKOP paper, §8.

A rank-1 lattice with ``n`` points and integer generator ``b`` (shape ``(d,)``) is
``x_i = frac(i * b / n)``, ``i = 0..n-1`` (Eq. 26). Its separation is computed from the
lattice points alone (Eq. 28): ``(2 rho)^2 = min_{i=1..n-1} ||x_i||_T^2``. Everything here
works in exact integer arithmetic on ``n^2 * ||x_i||_T^2 = sum_j h[i * b_j mod n]`` with
``h[k] = min(k, n - k)^2`` (:func:`sq_dist_table`), so comparisons and ties are exact and
results are bit-for-bit reproducible. Because ``h[k] = h[n - k]``, point ``i`` and point
``n - i`` have the same norm, so only ``i = 1..n//2`` is scanned; for the same reason a
generator entry ``c`` and ``n - c`` give mirror-image lattices, so coordinate searches try
only ``c = 1..n//2``.

Kernels are single-threaded on purpose (the machine is shared).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "alg7_search",
    "argmax_min_sq_norm",
    "ils_chain",
    "korobov_search",
    "min_sq_norm",
    "min_sq_norms",
    "scs",
    "sq_dist_table",
    "sq_norms",
]

_INT64_MAX = np.iinfo(np.int64).max


def sq_dist_table(n: int) -> np.ndarray:
    """``(n,)`` int64 table ``h[k] = min(k, n - k)^2`` (``n^2`` times the squared 1-D
    toroidal distance of ``k / n`` to 0, Eq. 27)."""
    k = np.arange(n, dtype=np.int64)
    return np.minimum(k, n - k) ** 2


@njit(cache=True, nogil=True)
def sq_norms(b: np.ndarray, n: int, h: np.ndarray) -> np.ndarray:
    """``(n//2 + 1,)`` array ``s[i] = n^2 ||x_i||_T^2`` for ``i = 0..n//2`` (``s[0] = 0``)."""
    m = n // 2
    d = b.shape[0]
    out = np.zeros(m + 1, dtype=np.int64)
    for j in range(d):
        bj = b[j] % n
        res = 0
        for i in range(1, m + 1):
            res += bj
            if res >= n:
                res -= n
            out[i] += h[res]
    return out


@njit(cache=True, nogil=True)
def min_sq_norm(b: np.ndarray, n: int, h: np.ndarray, stop_at: int = -1) -> int:
    """``n^2 (2 rho)^2 = min_{i=1..n-1} sum_j h[i b_j mod n]`` in O(n d) (Eq. 28).

    Stops early and returns some value ``<= stop_at`` as soon as the minimum is known to
    be ``<= stop_at`` (used to discard candidates that cannot beat the incumbent).
    """
    m = n // 2
    d = b.shape[0]
    best = _INT64_MAX
    for i in range(1, m + 1):
        s = 0
        for j in range(d):
            s += h[(i * b[j]) % n]
            if s >= best:
                break
        if s < best:
            best = s
            if best <= stop_at:
                return best
    return best


@njit(cache=True, nogil=True)
def min_sq_norms(bases: np.ndarray, n: int, h: np.ndarray) -> np.ndarray:
    """``(K,)`` exact :func:`min_sq_norm` of every row of ``bases`` ``(K, d)``."""
    k = bases.shape[0]
    out = np.empty(k, dtype=np.int64)
    for r in range(k):
        out[r] = min_sq_norm(bases[r], n, h, -1)
    return out


@njit(cache=True, nogil=True)
def argmax_min_sq_norm(bases: np.ndarray, n: int, h: np.ndarray) -> tuple[int, int]:
    """Index and value of the first row of ``bases`` ``(K, d)`` with the largest
    :func:`min_sq_norm` (the greedy loop of Algorithm 6, lines 4-12: a candidate replaces
    the incumbent only if strictly better)."""
    best_val = -1
    best_idx = -1
    for r in range(bases.shape[0]):
        v = min_sq_norm(bases[r], n, h, best_val)
        if v > best_val:
            best_val = v
            best_idx = r
    return best_idx, best_val


@njit(cache=True, nogil=True)
def _coordinate_step(
    b: np.ndarray,
    j: int,
    n: int,
    h: np.ndarray,
    tot: np.ndarray,
    cur: int,
    rest: np.ndarray,
    cand: np.ndarray,
    surv: np.ndarray,
) -> tuple[int, int]:
    """Best replacement of ``b[j]``: returns (best ``c`` or -1 if none beats ``cur``, value).

    ``tot[i]`` ``(n//2 + 1,)`` holds the squared norms of the current lattice points and
    ``cur`` their minimum; ``rest``, ``cand`` and ``surv`` are scratch arrays of the same
    length.
    Candidates ``c = 1..n//2`` are tried in increasing order and one replaces the incumbent
    only if strictly better (so the smallest maximizer wins, and a tie with the current
    entry keeps it).

    Branch and bound: with ``R_i`` the squared norm of point ``i`` without coordinate
    ``j``, every candidate's value is at most ``U = min_i R_i + max(h)``, so only points
    with ``R_i <= U`` matter. They are sorted by ``R_i``; a candidate is tested on the
    points with ``R_i <= s`` (``s`` = best value so far) in that order and dropped at the
    first one with ``R_i + h[i c mod n] <= s``; the value of a surviving candidate is the
    minimum over the sorted points, stopped once ``R_i`` reaches the running minimum.
    A branch-free pass first drops the candidates failing on the two smallest ``R_i``.
    """
    m = n // 2
    bj = b[j]
    rmin = _INT64_MAX
    res = 0  # i * bj mod n, updated by addition (no division in the O(n) loops)
    for i in range(1, m + 1):
        res += bj
        if res >= n:
            res -= n
        r = tot[i] - h[res]
        rest[i] = r
        if r < rmin:
            rmin = r
    upper = rmin + h[m]
    nl = 0
    for i in range(1, m + 1):
        if rest[i] <= upper:
            cand[nl] = i
            nl += 1
    order = np.argsort(rest[cand[:nl]], kind="mergesort")
    pts = cand[:nl][order]
    s = cur
    na = 0
    while na < nl and rest[pts[na]] <= s:
        na += 1
    best_c = -1
    # branch-free prefilter with the first two points (s only grows, so a candidate
    # failing against the initial s fails later too); survivors are listed in order
    ns = 0
    if na == 0:
        for c in range(1, m + 1):
            surv[ns] = c
            ns += 1
    else:
        i0 = pts[0]
        r0 = rest[i0]
        i1 = pts[1] if na > 1 else pts[0]
        r1 = rest[i1]
        res0 = 0
        res1 = 0
        for c in range(1, m + 1):
            res0 += i0
            if res0 >= n:
                res0 -= n
            res1 += i1
            if res1 >= n:
                res1 -= n
            surv[ns] = c
            ns += (r0 + h[res0] > s) & (r1 + h[res1] > s)
    for t in range(ns):
        c = surv[t]
        ok = True
        for k in range(na):
            i = pts[k]
            if rest[i] + h[(i * c) % n] <= s:
                ok = False
                break
        if not ok:
            continue
        sc = _INT64_MAX
        for k in range(nl):
            i = pts[k]
            if rest[i] >= sc:
                break
            v = rest[i] + h[(i * c) % n]
            if v < sc:
                sc = v
        s = sc
        best_c = c
        while na < nl and rest[pts[na]] <= s:
            na += 1
    return best_c, s


@njit(cache=True, nogil=True)
def _scs_inplace(b: np.ndarray, n: int, h: np.ndarray, sweeps: int) -> tuple[int, int]:
    """Successive coordinate search on ``b`` ``(d,)`` in place; returns (value, sweeps run).

    One sweep visits j = 0..d-1 and replaces ``b_j`` by the ``c`` in ``1..n//2`` that
    maximizes the lattice's :func:`min_sq_norm` with the other entries fixed (see
    :func:`_coordinate_step`). Stops early after a sweep without any change, since further
    sweeps would repeat it exactly.
    """
    m = n // 2
    d = b.shape[0]
    tot = sq_norms(b, n, h)
    cur = _INT64_MAX
    for i in range(1, m + 1):
        if tot[i] < cur:
            cur = tot[i]
    rest = np.empty(m + 1, dtype=np.int64)
    cand = np.empty(m + 1, dtype=np.int64)
    surv = np.empty(m + 1, dtype=np.int64)
    done = 0
    for _ in range(sweeps):
        changed = False
        for j in range(d):
            c, s = _coordinate_step(b, j, n, h, tot, cur, rest, cand, surv)
            if c > 0:
                b[j] = c
                res = 0
                for i in range(1, m + 1):
                    res += c
                    if res >= n:
                        res -= n
                    tot[i] = rest[i] + h[res]
                cur = s
                changed = True
        done += 1
        if not changed:
            break
    return cur, done


@njit(cache=True, nogil=True)
def scs(b0: np.ndarray, n: int, h: np.ndarray, sweeps: int) -> tuple[np.ndarray, int, int]:
    """SCS from ``b0`` ``(d,)``: returns (new generator, ``n^2 (2 rho)^2``, sweeps run).

    Successive coordinate search (Lyu 2017; Ebert et al. 2018) as used by the BKOP paper,
    §8.3-8.4, with the separation of Eq. 28 as the criterion.
    """
    b = b0 % n
    val, done = _scs_inplace(b, n, h, sweeps)
    return b, val, done


@njit(cache=True, nogil=True)
def alg7_search(
    bases: np.ndarray, n: int, h: np.ndarray, sweeps: int, keep: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Algorithm 7, lines 4-14: SCS (``sweeps`` = T) from every row of ``bases`` ``(K, d)``.

    Returns the ``keep`` best distinct improved generators ``(keep', d)``, their values
    ``n^2 (2 rho)^2`` ``(keep',)`` (descending) and start indices ``(keep',)``, with
    ``keep' <= keep`` (fewer if fewer distinct results). Row 0 is Algorithm 7's answer: a
    later start replaces an earlier one only if strictly better.
    """
    d = bases.shape[1]
    top_b = np.zeros((keep, d), dtype=np.int64)
    top_v = np.full(keep, -1, dtype=np.int64)
    top_i = np.full(keep, -1, dtype=np.int64)
    count = 0
    for r in range(bases.shape[0]):
        b, v, _ = scs(bases[r], n, h, sweeps)
        if count == keep and v <= top_v[keep - 1]:
            continue
        duplicate = False
        for k in range(count):
            if top_v[k] == v:
                same = True
                for j in range(d):
                    if top_b[k, j] != b[j]:
                        same = False
                        break
                if same:
                    duplicate = True
                    break
        if duplicate:
            continue
        pos = count if count < keep else keep - 1
        while pos > 0 and top_v[pos - 1] < v:
            if pos < keep:
                top_b[pos] = top_b[pos - 1]
                top_v[pos] = top_v[pos - 1]
                top_i[pos] = top_i[pos - 1]
            pos -= 1
        top_b[pos] = b
        top_v[pos] = v
        top_i[pos] = r
        if count < keep:
            count += 1
    return top_b[:count], top_v[:count], top_i[:count]


@njit(cache=True, nogil=True)
def korobov_search(n: int, d: int, h: np.ndarray) -> tuple[int, int]:
    """Best Korobov generator ``b = (1, a, a^2, ..., a^(d-1)) mod n`` (Korobov 1960).

    Tries ``a = 1..n//2`` (``n - a`` gives the same lattice up to reflections of every
    other coordinate, hence the same separation) and returns (first best ``a``, value
    ``n^2 (2 rho)^2``).
    """
    b = np.empty(d, dtype=np.int64)
    best_val = -1
    best_a = 1
    for a in range(1, n // 2 + 1):
        b[0] = 1 % n
        for j in range(1, d):
            b[j] = (b[j - 1] * a) % n
        v = min_sq_norm(b, n, h, best_val)
        if v > best_val:
            best_val = v
            best_a = a
    return best_a, best_val


@njit(cache=True, nogil=True)
def ils_chain(
    b0: np.ndarray,
    n: int,
    h: np.ndarray,
    positions: np.ndarray,
    values: np.ndarray,
    sweeps: int,
) -> tuple[np.ndarray, int]:
    """Iterated local search with SCS as the local search; returns (generator, value).

    Starts with SCS from ``b0`` ``(d,)``; round ``r`` sets ``b[positions[r, k]] =
    values[r, k]`` on a copy of the incumbent (``positions``, ``values``: ``(rounds, p)``),
    runs SCS (at most ``sweeps`` sweeps) and keeps the result if it is at least as good
    (ties move the chain along plateaus of the max-min criterion).
    """
    best_b, best_val, _ = scs(b0, n, h, sweeps)
    for r in range(positions.shape[0]):
        x = best_b.copy()
        for k in range(positions.shape[1]):
            x[positions[r, k]] = values[r, k]
        xb, xv, _ = scs(x, n, h, sweeps)
        if xv >= best_val:
            best_b = xb
            best_val = xv
    return best_b, best_val
