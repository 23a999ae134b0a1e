"""Tests of rank-1 lattices (BKOP paper §8) and the lattice initial design."""

from __future__ import annotations

import math

import numpy as np
import pytest

import isoline.designs as designs
from isoline.designs import lattice as lat
from isoline.designs import lattice_search as ls


def brute_torus_min_distance(points: np.ndarray) -> float:
    """O(N^2 d) smallest pairwise toroidal distance (Eq. 27)."""
    diff = np.abs(points[:, None, :] - points[None, :, :])
    diff = np.minimum(diff, 1.0 - diff)
    dist = np.sqrt((diff**2).sum(axis=-1))
    dist[np.diag_indices(len(points))] = np.inf
    return float(dist.min())


# -- known lattices by hand ---------------------------------------------------------------


def test_points_of_small_lattice_by_hand() -> None:
    x = lat.lattice_points(np.array([1, 2]), 5)
    expected = np.array([[0, 0], [1, 2], [2, 4], [3, 1], [4, 3]]) / 5
    np.testing.assert_array_equal(x, expected)
    # i = 1: (1/5, 2/5), i = 2: (2/5, 1/5 on the torus) -> |x|^2 = 5/25
    assert lat.lattice_min_distance(np.array([1, 2]), 5) == pytest.approx(math.sqrt(0.2), abs=1e-15)


def test_fibonacci_lattice_by_hand() -> None:
    # n = 8, b = (1, 3): squared norms of points i = 1..4 are 10, 8, 10, 32 (/64)
    expected = math.sqrt(8) / 8
    assert lat.lattice_min_distance(np.array([1, 3]), 8) == pytest.approx(expected, abs=1e-15)


def test_one_dimensional_and_degenerate_lattices() -> None:
    assert lat.lattice_min_distance(np.array([1]), 10) == pytest.approx(0.1)
    assert lat.lattice_min_distance(np.array([3]), 10) == pytest.approx(0.1)  # gcd(3, 10) = 1
    assert lat.lattice_min_distance(np.array([2]), 10) == 0.0  # x_5 = x_0
    assert lat.lattice_min_distance(np.array([2, 4]), 10) == 0.0
    assert lat.lattice_min_distance(np.array([2, 5]), 10) > 0.0  # gcd(2, 5, 10) = 1


def test_korobov_generator_by_hand() -> None:
    np.testing.assert_array_equal(lat.korobov_generator(3, 7, 4), [1, 3, 2, 6])


def test_alg6_candidates_by_hand() -> None:
    # d = 2: p0 = 5, the first prime is 5; offset i = 0 gives g = 1 and
    # round(11 * frac(|2 cos(2 pi / 5)|)) = round(11 * 0.618...) = 7
    bases = lat.alg6_generators(11, 2, n_primes=2)
    assert bases.shape == (5 + 7, 2)
    np.testing.assert_array_equal(bases[:, 0], 1)
    assert bases[0, 1] == 7
    assert bases[4, 1] == 0  # g = 0: |2 cos 0| = 2, frac = 0
    assert list(lat._primes_from(21, 4)) == [23, 29, 31, 37]


# -- toroidal min distance in O(N d) vs O(N^2) ------------------------------------------------


@pytest.mark.parametrize("case", range(12))
def test_min_distance_matches_brute_force(case: int) -> None:
    rng = np.random.default_rng(case)
    n = int(rng.integers(2, 90))
    d = int(rng.integers(1, 7))
    b = rng.integers(0, n, size=d)
    points = lat.lattice_points(b, n)
    expected = brute_torus_min_distance(points)
    assert lat.lattice_min_distance(b, n) == pytest.approx(expected, abs=1e-12)
    assert lat.min_pairwise_distance(points, toroidal=True) == pytest.approx(expected, abs=1e-12)


def test_min_pairwise_distance_box_versus_torus() -> None:
    x = np.array([[0.05, 0.5], [0.95, 0.5], [0.5, 0.5]])
    assert lat.min_pairwise_distance(x) == pytest.approx(0.45)
    assert lat.min_pairwise_distance(x, toroidal=True) == pytest.approx(0.1)


# -- search kernels against brute force ---------------------------------------------------------


def brute_coordinate_step(b: np.ndarray, j: int, n: int) -> tuple[int, int]:
    """Best c in 1..n//2 for b_j (strictly better than now, first maximizer) by brute force."""
    i = np.arange(1, n // 2 + 1)
    h = ls.sq_dist_table(n)
    per = h[(i[:, None] * b[None, :]) % n]
    rest = per.sum(axis=1) - per[:, j]
    c = np.arange(1, n // 2 + 1)
    scores = (rest[None, :] + h[(c[:, None] * i[None, :]) % n]).min(axis=1)
    current = int(per.sum(axis=1).min())
    if scores.max() > current:
        return int(c[np.argmax(scores)]), int(scores.max())
    return -1, current


@pytest.mark.parametrize("case", range(40))
def test_coordinate_step_matches_brute_force(case: int) -> None:
    rng = np.random.default_rng(100 + case)
    n = int(rng.integers(2, 160))
    d = int(rng.integers(1, 8))
    b = rng.integers(0, n, size=d).astype(np.int64)
    j = int(rng.integers(d))
    h = ls.sq_dist_table(n)
    tot = ls.sq_norms(b, n, h)
    scratch = [np.empty(n // 2 + 1, dtype=np.int64) for _ in range(3)]
    got = ls._coordinate_step(b, j, n, h, tot, int(tot[1:].min()), *scratch)
    assert tuple(int(v) for v in got) == brute_coordinate_step(b, j, n)


@pytest.mark.parametrize("case", range(10))
def test_compiled_scs_equals_numpy_scs(case: int) -> None:
    rng = np.random.default_rng(200 + case)
    n = int(rng.integers(3, 130))
    d = int(rng.integers(1, 7))
    b0 = rng.integers(0, n, size=d).astype(np.int64)
    h = ls.sq_dist_table(n)
    c = np.arange(n // 2 + 1)
    table = h[(c[:, None] * c[None, :]) % n]
    b1, v1, sweeps = ls.scs(b0, n, h, 30)
    b2, v2 = lat._numpy_scs(b0, n, table, 30)
    np.testing.assert_array_equal(b1, b2)
    assert v1 == v2 == ls.min_sq_norm(b1, n, h, -1)
    assert 1 <= sweeps <= 30
    assert v1 >= ls.min_sq_norm(b0 % n, n, h, -1)  # SCS never loses separation


def test_korobov_search_is_exhaustive() -> None:
    n, d = 89, 4
    values = [lat.lattice_min_distance(lat.korobov_generator(a, n, d), n) for a in range(1, n)]
    assert designs.rank1_lattice(n, d, method="korobov").min_distance == pytest.approx(max(values))


def test_alg6_is_best_candidate() -> None:
    n, d = 97, 3
    bases = lat.alg6_generators(n, d, n_primes=5)
    values = [lat.lattice_min_distance(b, n) for b in bases]
    res = designs.rank1_lattice(n, d, method="alg6", n_primes=5)
    assert res.min_distance == pytest.approx(max(values))
    np.testing.assert_array_equal(res.generator, bases[int(np.argmax(values))])


# -- public API -----------------------------------------------------------------------------


@pytest.mark.parametrize("method", designs.LATTICE_METHODS)
def test_lattice_object(method: str) -> None:
    res = designs.rank1_lattice(60, 3, method=method, seed=1)
    assert res.points.shape == (60, 3) and res.generator.shape == (3,)
    assert res.generator.dtype == np.int64
    assert np.all(res.points >= 0.0) and np.all(res.points < 1.0)
    np.testing.assert_array_equal(res.points, lat.lattice_points(res.generator, 60))
    assert res.min_distance == pytest.approx(brute_torus_min_distance(res.points), abs=1e-12)
    assert res.method == method and res.n == 60


@pytest.mark.parametrize("method", designs.LATTICE_METHODS)
def test_deterministic_for_a_seed(method: str) -> None:
    a = designs.rank1_lattice(150, 5, method=method, seed=3)
    b = designs.rank1_lattice(150, 5, method=method, seed=3)
    np.testing.assert_array_equal(a.generator, b.generator)
    np.testing.assert_array_equal(a.points, b.points)
    assert a.min_distance == b.min_distance


def test_scs_seed_changes_start() -> None:
    a = designs.rank1_lattice(500, 8, method="scs", seed=0)
    b = designs.rank1_lattice(500, 8, method="scs", seed=1)
    assert not np.array_equal(a.info["start"], b.info["start"])


def test_scs_explicit_start_and_sweeps() -> None:
    start = np.ones(4, dtype=np.int64)
    one = designs.rank1_lattice(101, 4, method="scs", start=start, sweeps=1)
    many = designs.rank1_lattice(101, 4, method="scs", start=start, sweeps=150)
    assert one.info["sweeps"] == 1
    assert many.min_distance >= one.min_distance > lat.lattice_min_distance(start, 101)


@pytest.mark.parametrize(
    ("n", "d", "value"),
    [(1000, 10, 0.59632), (1000, 20, 1.0051), (2000, 10, 0.54658)],
)
def test_alg6_reproduces_paper_table(n: int, d: int, value: float) -> None:
    """Algorithm 6 rows of Tables 1-2 of the BKOP paper, to the 5 digits printed."""
    res = designs.rank1_lattice(n, d, method="alg6")
    unit = 10.0 ** (math.floor(math.log10(value)) - 4)
    assert abs(res.min_distance - value) <= 0.5 * unit


def test_korobov_reproduces_paper_table() -> None:
    """Korobov row of Table 1 (n = 1000, d = 10): 0.56639."""
    res = designs.rank1_lattice(1000, 10, method="korobov")
    assert res.min_distance == pytest.approx(0.56639, abs=5e-6)


@pytest.mark.parametrize(("n", "d"), [(101, 4), (128, 6), (257, 5), (300, 8)])
def test_best_at_least_alg7_and_alg6(n: int, d: int) -> None:
    alg6 = designs.rank1_lattice(n, d, method="alg6").min_distance
    alg7 = designs.rank1_lattice(n, d, method="alg7").min_distance
    best = designs.rank1_lattice(n, d, method="best", rounds=300)
    assert best.min_distance >= alg7 >= alg6
    assert best.min_distance == pytest.approx(lat.lattice_min_distance(best.generator, n))


@pytest.mark.parametrize(
    ("kwargs", "match", "error"),
    [
        ({"n": 1, "d": 3}, "n must be", ValueError),
        ({"n": 0, "d": 3}, "n must be", ValueError),
        ({"n": 10, "d": 0}, "d must be", ValueError),
        ({"n": 10.5, "d": 3}, "n must be", TypeError),
        ({"n": 10.0, "d": 3}, "n must be", TypeError),
        ({"n": "10", "d": 3}, "n must be", TypeError),
        ({"n": True, "d": 3}, "n must be", TypeError),
        ({"n": 10, "d": 2.5}, "d must be", TypeError),
        ({"n": 10, "d": 3, "method": "sobol"}, "method must be one of", ValueError),
        ({"n": 10, "d": 3, "method": None}, "method must be one of", ValueError),
        ({"n": 10, "d": 3, "seed": -1}, "seed must be", ValueError),
        ({"n": 10, "d": 3, "method": "alg6", "sweeps": 3}, "unknown option", ValueError),
        ({"n": 10, "d": 3, "method": "scs", "sweeps": 0}, "sweeps must be", ValueError),
        ({"n": 10, "d": 3, "method": "scs", "start": [1, 2]}, "start must have shape", ValueError),
        ({"n": 10, "d": 3, "method": "best", "chains": 0}, "chains must be", ValueError),
    ],
)
def test_bad_input(kwargs: dict, match: str, error: type[Exception]) -> None:
    with pytest.raises(error, match=match):
        designs.rank1_lattice(**kwargs)


def test_numpy_integers_accepted() -> None:
    res = designs.rank1_lattice(np.int64(50), np.int32(2), method="korobov")
    assert res.points.shape == (50, 2)


# -- initial design (Algorithm 5) -------------------------------------------------------------


def test_lattice_design_is_a_shifted_lattice() -> None:
    n, d = 20, 6
    x = designs.lattice_design(n, d, seed=4)
    assert x.shape == (n, d) and np.all(x >= 0.0) and np.all(x < 1.0)
    gen = np.array(lat._design_generator(n, d))
    shift = np.random.default_rng(4).random(d)
    np.testing.assert_allclose(x, lat.lattice_points(gen, n, shift))
    # a shift modulo 1 keeps the toroidal separation of the lattice
    assert brute_torus_min_distance(x) == pytest.approx(lat.lattice_min_distance(gen, n))


def test_lattice_design_determinism_and_seeds() -> None:
    a = designs.lattice_design(30, 5, seed=0)
    np.testing.assert_array_equal(a, designs.lattice_design(30, 5, seed=0))
    assert not np.allclose(a, designs.lattice_design(30, 5, seed=1))
    np.testing.assert_array_equal(a, designs.initial_design("lattice", 30, 5, seed=0))


def test_lattice_design_beats_random_and_sobol_separation() -> None:
    n, d = 64, 8
    x = designs.lattice_design(n, d, seed=0)
    sep = lat.min_pairwise_distance(x, toroidal=True)
    assert sep > lat.min_pairwise_distance(designs.sobol(n, d, seed=0), toroidal=True)
    assert sep > lat.min_pairwise_distance(designs.uniform(n, d, seed=0), toroidal=True)


def test_lattice_design_small_and_edge_sizes() -> None:
    assert designs.lattice_design(0, 3).shape == (0, 3)
    one = designs.lattice_design(1, 3, seed=2)
    np.testing.assert_array_equal(one, np.random.default_rng(2).random(3)[None, :])
    two = designs.lattice_design(2, 1, seed=0)
    assert abs(two[0, 0] - two[1, 0]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="d must be"):
        designs.lattice_design(5, 0)


def test_lattice_design_for_small_n_never_runs_the_compiled_search(monkeypatch) -> None:
    """Small designs take the pure-NumPy path, so they never wait for numba to compile
    the lattice search (checked by what runs, not by a clock)."""

    def compiled(*args: object, **kwargs: object) -> None:
        raise AssertionError("a small design ran the compiled lattice search")

    kernels = [name for name in dir(ls) if hasattr(getattr(ls, name), "py_func")]
    assert "ils_chain" in kernels and "argmax_min_sq_norm" in kernels
    for name in kernels:
        monkeypatch.setattr(ls, name, compiled)
    monkeypatch.setattr(lat, "alg6_generators", compiled)
    lat._design_generator.cache_clear()
    try:
        assert designs.lattice_design(100, 100, seed=0).shape == (100, 100)
        assert designs.lattice_design(50, 20, seed=0).shape == (50, 20)
        assert designs.lattice_design(256, 8, seed=0).shape == (256, 8)
    finally:
        lat._design_generator.cache_clear()  # nothing made with the stubs outlives the test


def test_design_generator_beats_korobov() -> None:
    n, d = 100, 10
    gen = np.array(lat._design_generator(n, d))
    assert lat.lattice_min_distance(gen, n) >= designs.rank1_lattice(n, d, "korobov").min_distance


# -- covering radius ------------------------------------------------------------------------------


@pytest.mark.parametrize("toroidal", [False, True])
def test_covering_radius_of_a_grid(toroidal: bool) -> None:
    k, d = 4, 3
    g = (np.arange(k) + 0.5) / k
    grid = np.stack(np.meshgrid(*[g] * d, indexing="ij"), axis=-1).reshape(-1, d)
    exact = math.sqrt(d) / (2 * k)  # cell corners (and box corners)
    est = lat.covering_radius_estimate(grid, n_samples=2000, seed=0, toroidal=toroidal)
    assert est <= exact + 1e-12
    assert est >= 0.97 * exact


def test_covering_radius_single_point_and_refinement() -> None:
    x = np.full((1, 2), 0.5)
    exact = math.sqrt(2) / 2
    est = lat.covering_radius_estimate(x, n_samples=50, seed=1)
    assert exact * 0.98 <= est <= exact + 1e-12
    raw = lat.covering_radius_estimate(x, n_samples=50, seed=1, refine=0)
    assert raw <= est


def test_covering_radius_bad_input() -> None:
    with pytest.raises(ValueError, match="points must"):
        lat.covering_radius_estimate(np.array([[1.5, 0.2]]))
    with pytest.raises(ValueError, match="points must"):
        lat.covering_radius_estimate(np.zeros(3))
    with pytest.raises(ValueError, match="n_samples must"):
        lat.covering_radius_estimate(np.zeros((2, 2)), n_samples=0)
