"""Rank-1 lattices of maximal separation and robust initial designs (BKOP paper, §7-8).

A rank-1 lattice with ``n`` points and integer generator ``b`` (shape ``(d,)``) is
``X = {x_i = frac(i * b / n) : i = 0..n-1}`` (Eq. 26). Its separation ``2 rho`` is the
smallest toroidal distance between two points, ``min_{i=1..n-1} ||x_i||_T`` (Eqs. 27-28),
computed in O(n d). The paper maximizes the separation as its route to a small covering
radius (fill distance, §8 citing Keller et al. 2007), which its regret bounds for a fixed
initial design depend on (Theorems 7-9, Algorithm 5).

Search methods of :func:`rank1_lattice`:

``korobov``
    best ``b = (1, a, ..., a^(d-1)) mod n`` over ``a`` (Korobov 1960).
``alg6``
    Algorithm 6 (§8.3): candidates ``b = [1, round(n frac|2 cos(2 pi g / p)|)]``,
    ``g = (1..d-1) + i mod p``, for the ``n_primes`` primes ``p >= 2d+1`` and every
    offset ``i < p``.
``scs``
    successive coordinate search (Lyu 2017; Ebert et al. 2018): every coordinate in turn
    is set to its best value with the others fixed, for ``sweeps`` sweeps (paper: 150),
    from a seeded random start (the paper does not state its start).
``alg7``
    Algorithm 7: ``scs`` with ``sweeps`` (paper: 3) from every Algorithm 6 candidate.
``best``
    this module's search: Algorithm 7, then iterated local search (ILS) chains started
    from its ``chains`` best distinct results; each round re-draws ``perturb`` random
    entries of the chain's generator, runs SCS to convergence and keeps the result when
    it is at least as good (so chains also walk along plateaus of the max-min
    criterion). Deterministic for a seed, and never worse than ``alg7``.

The search kernels are compiled with numba (:mod:`isoline.designs.lattice_search`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial import cKDTree

from isoline.designs import lattice_search as ls
from isoline.validation import check_int

__all__ = [
    "LATTICE_METHODS",
    "Lattice",
    "alg6_generators",
    "covering_radius_estimate",
    "korobov_generator",
    "lattice_design",
    "lattice_min_distance",
    "lattice_points",
    "min_pairwise_distance",
    "rank1_lattice",
]

#: search methods accepted by :func:`rank1_lattice`
LATTICE_METHODS = ("korobov", "alg6", "scs", "alg7", "best")


@dataclass(frozen=True, eq=False)
class Lattice:
    """A rank-1 lattice found by :func:`rank1_lattice`.

    Attributes:
        points: ``(n, d)`` points ``frac(i * generator / n)`` in ``[0, 1)^d``, row ``i``.
        generator: ``(d,)`` int64 generating vector ``b`` (entries in ``0..n-1``).
        min_distance: separation ``2 rho``: smallest toroidal distance between two points.
        method: the search method that produced it.
        info: search details (e.g. ``sweeps`` run, ``starts`` tried, ``korobov_a``).
    """

    points: np.ndarray
    generator: np.ndarray
    min_distance: float
    method: str
    info: dict[str, object] = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Number of points."""
        return int(self.points.shape[0])


# -- validation ------------------------------------------------------------------------


def _check_generator(generator: object, n: int) -> np.ndarray:
    b = np.asarray(generator)
    if b.ndim != 1 or b.size < 1 or not np.issubdtype(b.dtype, np.integer):
        raise ValueError(f"generator must be a 1-D array of integers, got {generator!r}")
    return np.ascontiguousarray(b.astype(np.int64) % n)


# -- lattice basics (Eqs. 26-28) ---------------------------------------------------------


def lattice_points(generator: np.ndarray, n: int, shift: np.ndarray | None = None) -> np.ndarray:
    """``(n, d)`` points ``frac(i * b / n + shift)``, ``i = 0..n-1`` (Eq. 26; exact
    integer arithmetic before the division). ``shift`` ``(d,)`` defaults to 0."""
    n = check_int(n, "n", 1)
    b = _check_generator(generator, n)
    i = np.arange(n, dtype=np.int64)[:, None]
    x = ((i * b[None, :]) % n) / n
    if shift is not None:
        x = np.mod(x + np.asarray(shift, dtype=float)[None, :], 1.0)
        x[x >= 1.0] = 0.0  # frac of values a rounding step below an integer
    return x


def lattice_min_distance(generator: np.ndarray, n: int) -> float:
    """Separation ``2 rho = min_{i=1..n-1} ||frac(i b / n)||_T`` of the lattice (Eq. 28),
    in O(n d); 0 if two points coincide. Shift-invariant."""
    n = check_int(n, "n", 2)
    b = _check_generator(generator, n)
    return _to_distance(ls.min_sq_norm(b, n, ls.sq_dist_table(n), -1), n)


def _to_distance(sq_value: int, n: int) -> float:
    return math.sqrt(int(sq_value)) / n


# -- candidate generators ----------------------------------------------------------------


def _primes_from(p0: int, count: int) -> np.ndarray:
    """The ``count`` smallest primes ``>= p0``."""
    hi = max(2 * p0, 64)
    while True:
        sieve = np.ones(hi + 1, dtype=bool)
        sieve[:2] = False
        for p in range(2, math.isqrt(hi) + 1):
            if sieve[p]:
                sieve[p * p :: p] = False
        primes = np.flatnonzero(sieve)
        primes = primes[primes >= p0]
        if primes.size >= count:
            return primes[:count]
        hi *= 2


def alg6_generators(n: int, d: int, n_primes: int = 50) -> np.ndarray:
    """``(K, d)`` candidate generators of Algorithm 6 (lines 1-8), in the paper's order.

    For each of the ``n_primes`` smallest primes ``p >= 2d + 1`` and each offset
    ``i = 0..p-1``: ``g = (q + i) mod p`` with ``q = (1, ..., d-1)``,
    ``g = round(n * frac(|2 cos(2 pi g / p)|))`` (halves rounded up) and ``b = [1, g]``,
    reduced mod ``n``. ``K`` is the sum of the primes.
    """
    n = check_int(n, "n", 2)
    d = check_int(d, "d", 1)
    n_primes = check_int(n_primes, "n_primes", 1)
    q = np.arange(1, d, dtype=np.int64)
    blocks = []
    for p in _primes_from(2 * d + 1, n_primes):
        g = (q[None, :] + np.arange(p, dtype=np.int64)[:, None]) % p
        frac = np.mod(np.abs(2.0 * np.cos(2.0 * np.pi * g / p)), 1.0)
        g = np.floor(n * frac + 0.5).astype(np.int64)
        blocks.append(np.hstack([np.ones((p, 1), dtype=np.int64), g]))
    return np.ascontiguousarray(np.vstack(blocks) % n)


def korobov_generator(a: int, n: int, d: int) -> np.ndarray:
    """``(d,)`` Korobov generator ``(1, a, a^2, ..., a^(d-1)) mod n``."""
    b = np.empty(d, dtype=np.int64)
    b[0] = 1 % n
    for j in range(1, d):
        b[j] = (b[j - 1] * a) % n
    return b


# -- search methods -----------------------------------------------------------------------


_Found = tuple[np.ndarray, int, dict[str, object]]  # (generator, n^2 (2 rho)^2, info)


def _korobov(n: int, d: int, seed: int) -> _Found:
    a, val = ls.korobov_search(n, d, ls.sq_dist_table(n))
    return korobov_generator(a, n, d), val, {"korobov_a": int(a), "starts": n // 2}


def _alg6(n: int, d: int, seed: int, *, n_primes: int = 50) -> _Found:
    bases = alg6_generators(n, d, n_primes)
    idx, val = ls.argmax_min_sq_norm(bases, n, ls.sq_dist_table(n))
    return bases[idx].copy(), val, {"starts": int(bases.shape[0])}


def _scs(
    n: int, d: int, seed: int, *, sweeps: int = 150, start: np.ndarray | None = None
) -> _Found:
    sweeps = check_int(sweeps, "sweeps", 1)
    if start is None:
        b0 = np.random.default_rng(seed).integers(1, n, size=d, dtype=np.int64)
    else:
        b0 = _check_generator(start, n)
        if b0.shape != (d,):
            raise ValueError(f"start must have shape ({d},), got {b0.shape}")
    b, val, done = ls.scs(b0, n, ls.sq_dist_table(n), sweeps)
    return b, val, {"sweeps": int(done), "start": b0}


def _alg7(n: int, d: int, seed: int, *, n_primes: int = 50, sweeps: int = 3) -> _Found:
    sweeps = check_int(sweeps, "sweeps", 1)
    bases = alg6_generators(n, d, n_primes)
    tops, values, starts = ls.alg7_search(bases, n, ls.sq_dist_table(n), sweeps, 1)
    return tops[0], int(values[0]), {"starts": int(bases.shape[0]), "start_index": int(starts[0])}


def _best(
    n: int,
    d: int,
    seed: int,
    *,
    n_primes: int = 50,
    chains: int = 4,
    rounds: int = 1500,
    perturb: int = 2,
    sweeps: int = 1000,
) -> _Found:
    """Algorithm 7 (T = 3), then ILS chains from its ``chains`` best distinct results
    (``rounds`` rounds each, ``perturb`` random entries re-drawn per round, SCS capped at
    ``sweeps`` sweeps). Never worse than ``alg7`` with the same ``n_primes``."""
    chains = check_int(chains, "chains", 1)
    rounds = check_int(rounds, "rounds", 0)
    perturb = check_int(perturb, "perturb", 1)
    sweeps = check_int(sweeps, "sweeps", 1)
    h = ls.sq_dist_table(n)
    bases = alg6_generators(n, d, n_primes)
    tops, values, _ = ls.alg7_search(bases, n, h, 3, chains)
    rng = np.random.default_rng(seed)
    best_b, best_val, best_chain = tops[0].copy(), int(values[0]), -1
    for c in range(tops.shape[0]):
        positions = rng.integers(0, d, size=(rounds, perturb), dtype=np.int64)
        new_values = rng.integers(1, n // 2 + 1, size=(rounds, perturb), dtype=np.int64)
        b, val = ls.ils_chain(tops[c], n, h, positions, new_values, sweeps)
        if val > best_val:
            best_b, best_val, best_chain = b, int(val), c
    info: dict[str, object] = {
        "starts": int(bases.shape[0]),
        "alg7_value": _to_distance(values[0], n),
        "chains": int(tops.shape[0]),
        "best_chain": best_chain,
    }
    return best_b, best_val, info


_SEARCHES: dict[str, Callable[..., _Found]] = {
    "korobov": _korobov,
    "alg6": _alg6,
    "scs": _scs,
    "alg7": _alg7,
    "best": _best,
}
_OPTIONS: dict[str, tuple[str, ...]] = {
    "korobov": (),
    "alg6": ("n_primes",),
    "scs": ("sweeps", "start"),
    "alg7": ("n_primes", "sweeps"),
    "best": ("n_primes", "chains", "rounds", "perturb", "sweeps"),
}


def rank1_lattice(
    n: int, d: int, method: str = "best", seed: int = 0, **options: object
) -> Lattice:
    """Rank-1 lattice of ``n`` points in ``[0, 1)^d`` with large separation (BKOP §8).

    Args:
        n: number of points, ``n >= 2`` (prime or composite).
        d: dimension, ``d >= 1``.
        method: one of :data:`LATTICE_METHODS` (see the module docstring).
        seed: seed of the random choices of ``scs`` (start) and ``best`` (perturbations);
            the other methods are deterministic and ignore it.
        **options: method options, with the paper's defaults (§8.4):
            ``alg6``: ``n_primes=50`` (M);
            ``scs``: ``sweeps=150`` (T), ``start=None`` (random) or a ``(d,)`` generator;
            ``alg7``: ``n_primes=50``, ``sweeps=3``;
            ``best``: ``n_primes=50``, ``chains=4``, ``rounds=1500`` (per chain),
            ``perturb=2``, ``sweeps=1000``.
            SCS stops early once a sweep changes nothing (identical result).

    Returns:
        :class:`Lattice` with ``points`` ``(n, d)``, ``generator`` ``(d,)`` and
        ``min_distance`` (the toroidal separation ``2 rho``).

    Raises:
        ValueError: ``n``/``d`` not integers or too small, unknown method or option.

    Cost: ``alg7`` runs one 3-sweep SCS per Algorithm 6 candidate (about 7,000-12,500 for
    d = 10..50), ``best`` adds ``chains * rounds`` SCS runs; one sweep is O(d n) with a
    small constant (branch and bound). At n = 3000, d = 50 each takes tens of seconds.
    """
    n = check_int(n, "n", 2)
    d = check_int(d, "d", 1)
    seed = check_int(seed, "seed", 0)
    if not isinstance(method, str) or method not in _SEARCHES:
        raise ValueError(f"method must be one of {LATTICE_METHODS}, got {method!r}")
    unknown = sorted(set(options) - set(_OPTIONS[method]))
    if unknown:
        raise ValueError(
            f"unknown option(s) {unknown} for method {method!r}; allowed: {_OPTIONS[method]}"
        )
    b, val, info = _SEARCHES[method](n, d, seed, **options)
    b = np.ascontiguousarray(np.asarray(b, dtype=np.int64) % n)
    return Lattice(
        points=lattice_points(b, n),
        generator=b,
        min_distance=_to_distance(val, n),
        method=method,
        info=info,
    )


# -- robust initial design (Algorithm 5) ----------------------------------------------------

#: largest ``n`` served by the pure NumPy search of :func:`lattice_design`
_DESIGN_NUMPY_MAX_N = 256


def _numpy_scs(b: np.ndarray, n: int, table: np.ndarray, sweeps: int) -> tuple[np.ndarray, int]:
    """NumPy SCS (same rule and tie-breaking as :func:`lattice_search.scs`) for small
    ``n``: ``table[c, i] = h[c i mod n]`` ``(n//2 + 1, n//2 + 1)``. Returns (b, value)."""
    b = b.copy() % n
    canon = np.minimum(b, n - b)
    tot = table[canon].sum(axis=0)
    cur = int(tot[1:].min())
    for _ in range(sweeps):
        changed = False
        for j in range(b.size):
            rest = tot - table[min(b[j], n - b[j])]
            scores = (rest[None, 1:] + table[1:, 1:]).min(axis=1)
            k = int(np.argmax(scores))
            if scores[k] > cur:
                b[j] = k + 1
                tot = rest + table[k + 1]
                cur = int(scores[k])
                changed = True
        if not changed:
            break
    return b, cur


@functools.lru_cache(maxsize=128)
def _design_generator(n: int, d: int) -> tuple[int, ...]:
    """Seed-independent generator used by :func:`lattice_design` (cached)."""
    h = ls.sq_dist_table(n)
    if n > _DESIGN_NUMPY_MAX_N:
        # compiled: best Algorithm 6 candidate, then one ILS chain of 200 rounds
        bases = alg6_generators(n, d)
        idx, _ = ls.argmax_min_sq_norm(bases, n, h)
        rng = np.random.default_rng(0)
        positions = rng.integers(0, d, size=(200, 2), dtype=np.int64)
        values = rng.integers(1, n // 2 + 1, size=(200, 2), dtype=np.int64)
        b, _ = ls.ils_chain(bases[idx], n, h, positions, values, 1000)
        return tuple(int(v) for v in b)
    m = n // 2
    c = np.arange(m + 1, dtype=np.int64)
    table = h[(c[:, None] * c[None, :]) % n]
    # Korobov candidates a = 1..m scored exactly, then SCS from the 4 best
    powers = np.ones((m, d), dtype=np.int64)
    for j in range(1, d):
        powers[:, j] = (powers[:, j - 1] * c[1:]) % n
    canon = np.minimum(powers, n - powers)
    values = np.array([table[row].sum(axis=0)[1:].min() for row in canon])
    best_b, best_val = None, -1
    for a_idx in np.argsort(-values, kind="stable")[:4]:
        b, val = _numpy_scs(powers[a_idx], n, table, sweeps=50)
        if val > best_val:
            best_b, best_val = b, val
    assert best_b is not None
    return tuple(int(v) for v in best_b)


def lattice_design(n: int, d: int, seed: int = 0) -> np.ndarray:
    """``(n, d)`` robust initial design (Algorithm 5): a shifted rank-1 lattice.

    The generator maximizes the separation (hence keeps the covering radius small) and
    depends only on ``(n, d)``; it is cached. For ``n <= 256`` it is the best of SCS
    (pure NumPy) from the four best Korobov generators (milliseconds); larger ``n`` run
    the compiled search: the best Algorithm 6 candidate, improved by one ILS chain of
    200 rounds (see ``best``; about 0.2 s at n = 1000, d = 50). The lattice
    is then shifted by ``u ~ U[0, 1)^d`` drawn from ``seed`` modulo 1, so different seeds
    give different designs with the same toroidal separation, and no point sits on the
    corner 0. ``n = 1`` gives the single point ``u``.
    """
    n = check_int(n, "n", 0)
    d = check_int(d, "d", 1)
    seed = check_int(seed, "seed", 0)
    if n == 0:
        return np.empty((0, d))
    shift = np.random.default_rng(seed).random(d)
    if n == 1:
        return shift[None, :]
    return lattice_points(np.array(_design_generator(n, d), dtype=np.int64), n, shift)


# -- design quality -------------------------------------------------------------------------


def _as_points(points: np.ndarray, toroidal: bool) -> np.ndarray:
    x = np.asarray(points, dtype=float)
    if x.ndim != 2 or x.shape[0] < 1:
        raise ValueError(f"points must be a non-empty (n, d) array, got shape {x.shape}")
    if not np.all(np.isfinite(x)) or x.min() < 0.0 or x.max() > 1.0:
        raise ValueError("points must lie in [0, 1]^d")
    if toroidal:
        x = np.mod(x, 1.0)
        x[x >= 1.0] = 0.0
    return x


def min_pairwise_distance(points: np.ndarray, toroidal: bool = False) -> float:
    """Smallest distance between two of the ``(n, d)`` points (``n >= 2``) in ``[0, 1]^d``:
    Euclidean, or toroidal (Eq. 27) with ``toroidal=True``. Uses a k-d tree (scipy)."""
    x = _as_points(points, toroidal)
    if x.shape[0] < 2:
        raise ValueError("points must contain at least 2 rows")
    tree = cKDTree(x, boxsize=1.0 if toroidal else None)
    dist, _ = tree.query(x, k=2)
    return float(dist[:, 1].min())


def covering_radius_estimate(
    points: np.ndarray,
    n_samples: int = 8192,
    seed: int = 0,
    toroidal: bool = False,
    refine: int = 64,
    steps: int = 40,
) -> float:
    """Estimate of the covering radius (fill distance) ``sup_x min_i ||x - p_i||`` of
    ``points`` ``(n, d)`` over the box ``[0, 1]^d`` (Euclidean; ``toroidal=True`` uses the
    torus distance of Eq. 27 instead).

    Monte Carlo with local refinement: ``n_samples`` uniform points (``seed``), then the
    ``refine`` farthest ones climb for ``steps`` steps away from their nearest design
    point (step halved on failure, clipped to the box or wrapped on the torus). The
    result is the distance of an actual point of the domain to the design, so it never
    exceeds the true covering radius (a lower estimate); compare designs with the same
    arguments.
    """
    x = _as_points(points, toroidal)
    n_samples = check_int(n_samples, "n_samples", 1)
    seed = check_int(seed, "seed", 0)
    refine = check_int(refine, "refine", 0)
    steps = check_int(steps, "steps", 0)
    d = x.shape[1]
    tree = cKDTree(x, boxsize=1.0 if toroidal else None)
    rng = np.random.default_rng(seed)
    z = rng.random((n_samples, d))
    dist, _ = tree.query(z)
    best = float(dist.max())
    k = min(refine, n_samples)
    if k == 0 or steps == 0:
        return best
    top = np.argsort(-dist, kind="stable")[:k]
    z, dist = z[top], dist[top]
    step = dist / 2.0
    for _ in range(steps):
        _, idx = tree.query(z)
        away = z - x[idx]
        if toroidal:
            away -= np.round(away)
        norm = np.linalg.norm(away, axis=1, keepdims=True)
        unit = away / np.where(norm > 0, norm, 1.0)
        away = np.where(norm > 0, unit, rng.standard_normal(away.shape))
        trial = z + step[:, None] * away
        if toroidal:
            trial = np.mod(trial, 1.0)
            trial[trial >= 1.0] = 0.0
        else:
            trial = np.clip(trial, 0.0, 1.0)
        tdist, _ = tree.query(trial)
        better = tdist > dist
        z[better], dist[better] = trial[better], tdist[better]
        step = np.where(better, step, step / 2.0)
    return max(best, float(dist.max()))
