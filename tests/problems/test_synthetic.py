"""Registry, Problem base behaviour and the synthetic functions."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from isoline import problems
from isoline.designs import sobol
from isoline.problems.base import Problem
from isoline.problems.synthetic import Michalewicz

TABLE4 = ["rosenbrock", "nesterov", "different-powers", "dixon-price", "levy", "ackley"]
DOMAINS = {"levy": (-10.0, 10.0), "michalewicz": (0.0, math.pi)}


@pytest.mark.parametrize("name", TABLE4 + ["michalewicz"])
@pytest.mark.parametrize("dim", [2, 6, 20])
def test_known_optimum_value_at_optimum_x(name: str, dim: int) -> None:
    p = problems.get(name, dim=dim)
    lo, hi = DOMAINS.get(name, (-2.0, 2.0))
    assert np.all(p.space.lower == lo) and np.all(p.space.upper == hi)
    assert p.optimum is not None and p.optimum_x is not None
    assert p.noise_free(p.optimum_x) == pytest.approx(p.optimum, abs=1e-12)
    # no point of a dense design beats the optimum
    X = p.space.from_unit(sobol(2048, dim, seed=1))
    assert p.evaluate_batch(X).min() >= p.optimum - 1e-12


@pytest.mark.parametrize("dim,value", [(2, -1.8013), (5, -4.687658), (10, -9.66015)])
def test_michalewicz_reproduces_published_minima(dim: int, value: float) -> None:
    assert problems.get("michalewicz", dim=dim).optimum == pytest.approx(value, abs=1e-4)


def test_michalewicz_optimum_is_a_local_minimum() -> None:
    p = problems.get("michalewicz", dim=8)
    rng = np.random.default_rng(0)
    for _ in range(50):
        x = np.clip(p.optimum_x + rng.normal(0, 1e-3, 8), 0, math.pi)
        assert p.noise_free(x) >= p.optimum


def test_formulas_at_hand_checked_points() -> None:
    x = np.array([0.5, -1.0, 2.0])
    assert problems.get("rosenbrock", dim=3).noise_free(x) == pytest.approx(
        100 * (-1 - 0.25) ** 2 + 0.25 + 100 * (2 - 1) ** 2 + 4
    )
    assert problems.get("nesterov", dim=3).noise_free(x) == pytest.approx(
        0.25 * 0.5 + abs(-1 - 1 + 1) + abs(2 - 2 + 1)
    )
    assert problems.get("different-powers", dim=3).noise_free(x) == pytest.approx(
        0.5**2 + 1.0**7 + 2.0**12
    )
    assert problems.get("dixon-price", dim=3).noise_free(x) == pytest.approx(
        0.25 + 2 * (2 - 0.5) ** 2 + 3 * (8 + 1) ** 2
    )
    assert problems.get("ackley", dim=3).noise_free(np.ones(3)) == pytest.approx(
        -20 * math.exp(-0.2) - math.e + 20 + math.e
    )


@pytest.mark.parametrize("name", TABLE4 + ["michalewicz", "gp-sample"])
def test_evaluate_batch_matches_pointwise(name: str) -> None:
    p = problems.get(name, dim=5, noise_std=0.0)
    X = p.space.from_unit(np.random.default_rng(0).random((7, 5)))
    np.testing.assert_allclose(p.evaluate_batch(X), [p.noise_free(x) for x in X], rtol=1e-10)


def test_noise_is_seeded_and_reports_noise_free() -> None:
    x = np.full(4, 0.3)
    a = problems.get("ackley", dim=4, noise_std=0.5, seed=3)
    b = problems.get("ackley", dim=4, noise_std=0.5, seed=3)
    c = problems.get("ackley", dim=4, noise_std=0.5, seed=4)
    ya = [a(x) for _ in range(5)]
    yb = [b(x) for _ in range(5)]
    assert ya == yb
    assert [y for y, _ in ya] != [c(x)[0] for _ in range(5)]
    values = [y for y, _ in ya]
    assert len(set(values)) == 5  # repeats get independent noise
    assert all(info["noise_free"] == a.noise_free(x) for _, info in ya)
    # noise has roughly the requested scale
    many = np.array([a(x)[0] for _ in range(2000)]) - a.noise_free(x)
    assert abs(many.std() - 0.5) < 0.05 and abs(many.mean()) < 0.05


def test_noise_keyed_by_trial_number_ignores_call_order() -> None:
    x = np.full(3, 0.2)
    a = problems.get("levy", dim=3, noise_std=1.0, seed=0)
    b = problems.get("levy", dim=3, noise_std=1.0, seed=0)
    forward = [a(x, number=k)[0] for k in range(4)]
    backward = [b(x, number=k)[0] for k in reversed(range(4))][::-1]
    assert forward == backward and len(set(forward)) == 4
    with pytest.raises(ValueError, match="number"):
        a(x, number=-1)


def test_noise_free_problem_returns_plain_float() -> None:
    p = problems.get("levy", dim=3)
    y = p(np.zeros(3))
    assert isinstance(y, float) and y == p.noise_free(np.zeros(3))


def test_range_noise_spec() -> None:
    p = problems.get("ackley", dim=10, noise_std="1%range", seed=0)
    X = p.space.from_unit(sobol(4096, 10, seed=0))
    vals = p.evaluate_batch(X)
    expected = math.sqrt(0.01 * (vals.max() - 0.0))
    assert p.noise_std == pytest.approx(expected)
    assert p.spec["noise_std"] == "1%range"


def test_pickle_round_trip_continues_the_same_noise_sequence() -> None:
    p = problems.get("rosenbrock", dim=3, noise_std=1.0, seed=7)
    x = np.array([0.1, 0.2, 0.3])
    p(x)
    q = pickle.loads(pickle.dumps(p))
    assert p(x) == q(x)
    r = problems.get(**p.spec)
    assert r.noise_free(x) == p.noise_free(x) and r.noise_std == p.noise_std


def test_bounds_option_and_its_validation() -> None:
    p = problems.get("ackley", dim=3, bounds=(-32.768, 32.768))
    assert p.space.upper[0] == 32.768 and p.optimum == 0.0
    with pytest.raises(ValueError, match="outside the bounds|lies outside"):
        problems.get("rosenbrock", dim=3, bounds=(-2.0, 0.5))
    with pytest.raises(ValueError, match="lo < hi"):
        problems.get("ackley", dim=3, bounds=(1.0, -1.0))
    m = problems.get("michalewicz", dim=3, bounds=(0.0, 2.0))
    assert np.all(m.optimum_x <= 2.0) and m.optimum > Michalewicz(3).optimum


def test_bad_input_errors_name_the_choices() -> None:
    with pytest.raises(ValueError, match="choose one of"):
        problems.get("no-such-problem")
    with pytest.raises(ValueError, match="allowed: any d >= 2"):
        problems.get("rosenbrock", dim=1)
    with pytest.raises(TypeError, match="dim must be an integer"):
        problems.get("ackley", dim=2.5)
    with pytest.raises(TypeError, match="its options are"):
        problems.get("ackley", dim=2, lengthscale=3)
    with pytest.raises(ValueError, match="noise_std"):
        problems.get("ackley", dim=2, noise_std=-1.0)
    with pytest.raises(ValueError, match="noise_std"):
        problems.get("ackley", dim=2, noise_std="loud")
    p = problems.get("ackley", dim=2)
    with pytest.raises(ValueError, match="shape"):
        p(np.zeros(3))
    with pytest.raises(ValueError, match="outside the bounds"):
        p(np.array([0.0, 3.0]))
    with pytest.raises(ValueError, match="finite"):
        p(np.array([0.0, np.nan]))


def test_available_lists_every_problem_with_dims() -> None:
    rows = problems.available()
    names = [r.name for r in rows]
    assert set(TABLE4 + ["michalewicz", "gp-sample"]) <= set(names)
    assert all(isinstance(r.description, str) and r.dims for r in rows)


def test_regret_and_lower_bound() -> None:
    p = problems.get("michalewicz", dim=2)  # optimum about -1.80, not 0
    assert p.optimum is not None and p.optimum < -1.5
    assert p.regret(1.5) == pytest.approx(1.5 - p.optimum)
    np.testing.assert_allclose(p.regret(np.array([1.0, 2.0])), [1.0 - p.optimum, 2.0 - p.optimum])

    class Distance(Problem):
        name = "distance"

        def _evaluate(self, x: np.ndarray) -> float:
            return float(np.abs(x).sum()) + 1.0

    bounded = Distance(1, [-1.0], [1.0], lower_bound=0.5)
    assert bounded.optimum is None and bounded.lower_bound == 0.5
    assert bounded.regret(2.0) == pytest.approx(1.5)
    with pytest.raises(ValueError, match="'distance' has no known optimum or lower bound"):
        Distance(1, [-1.0], [1.0]).regret(2.0)
