"""Space-filling designs in the unit cube: random, Sobol and rank-1 lattices."""

from __future__ import annotations

import numpy as np

__all__ = [
    "INIT_DESIGNS",
    "LATTICE_METHODS",
    "Lattice",
    "covering_radius_estimate",
    "initial_design",
    "lattice_design",
    "min_pairwise_distance",
    "rank1_lattice",
    "sobol",
    "uniform",
]

#: names served lazily from :mod:`isoline.designs.lattice` (it imports numba)
_LATTICE_NAMES = (
    "LATTICE_METHODS",
    "Lattice",
    "covering_radius_estimate",
    "lattice_design",
    "min_pairwise_distance",
    "rank1_lattice",
)


def __getattr__(name: str) -> object:
    if name in _LATTICE_NAMES:
        from isoline.designs import lattice

        return getattr(lattice, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: initial-design kinds accepted by ``init=``; "centre" is the cube's centre followed by
#: scrambled Sobol points (local methods started at the centre, as the GIBO/MPD code does)
INIT_DESIGNS = ("sobol", "random", "lattice", "centre")


def uniform(n: int, d: int, seed: int | np.random.Generator = 0) -> np.ndarray:
    """``(n, d)`` i.i.d. uniform points."""
    return np.random.default_rng(seed).random((n, d))


def sobol(n: int, d: int, seed: int | None = 0, scramble: bool = True) -> np.ndarray:
    """``(n, d)`` Sobol points (scipy.stats.qmc), scrambled with ``seed`` by default.

    Any ``n`` is allowed; the first ``n`` points of the sequence are returned.
    """
    if n == 0:
        return np.empty((0, d))
    from scipy.stats import qmc  # scipy.stats is slow to import: loaded on first use

    eng = qmc.Sobol(d, scramble=scramble, seed=seed)
    m = int(np.ceil(np.log2(max(n, 2))))
    return eng.random_base2(m)[:n]


def initial_design(kind: str, n: int, d: int, seed: int = 0) -> np.ndarray:
    """``(n, d)`` initial design of the given ``kind`` (one of :data:`INIT_DESIGNS`)."""
    if kind not in INIT_DESIGNS:
        raise ValueError(f"init must be one of {INIT_DESIGNS}, got {kind!r}")
    if n == 0:
        return np.empty((0, d))
    if kind == "sobol":
        return sobol(n, d, seed=seed)
    if kind == "random":
        return uniform(n, d, seed)
    if kind == "centre":
        return np.vstack([np.full((1, d), 0.5), sobol(n - 1, d, seed=seed)])
    from isoline.designs.lattice import lattice_design

    return lattice_design(n, d, seed=seed)
