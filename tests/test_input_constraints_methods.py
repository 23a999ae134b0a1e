"""sobol, gp-ts and turbo on spaces with known linear constraints: what each proposes
itself (before :meth:`Method.ask` removes a solver's slack) already satisfies them."""

from __future__ import annotations

import numpy as np
import pytest

import isoline as iso
from isoline.designs import sobol
from isoline.methods.registry import make_method
from isoline.methods.turbo import TuRBO


def _space(lower: float | None = None) -> iso.Space:
    """Three reals; ``a + b <= 0.8`` (or ``a + b >= lower``: a sliver of the square)."""
    bound = {"upper": 0.8} if lower is None else {"lower": lower}
    params = {"a": iso.Real(0.0, 1.0), "b": iso.Real(0.0, 1.0), "c": iso.Real(0.0, 1.0)}
    return iso.Space(params, constraints=[iso.Linear({"a": 1.0, "b": 1.0}, **bound)])


def _bowl(U: np.ndarray) -> np.ndarray:
    """Minimum at (0.9, 0.9, 0.2), outside ``a + b <= 0.8``: the search meets the boundary."""
    return np.sum((U - np.array([0.9, 0.9, 0.2])) ** 2, axis=1)


@pytest.mark.parametrize(
    ("method", "options"),
    [
        ("sobol", {}),
        ("gp-ts", {"n_candidates": 256}),
        ("gp-ts", {"n_candidates": 256, "refine": False}),
        ("turbo", {"n_candidates": 256}),
    ],  # fmt: skip
)
def test_own_proposals_satisfy_the_constraints(method: str, options: dict) -> None:
    space = _space()
    lin = space.input_constraints
    assert lin is not None
    m = make_method(method, space.dim, seed=3, n_init=4, batch_size=2, space=space, **options)
    raw: list[np.ndarray] = []
    propose = m.propose
    m.propose = lambda q: raw.append(propose(q)) or raw[-1]  # type: ignore[method-assign]
    for _ in range(6):
        U = m.ask()
        assert lin.feasible(U).all()
        m.tell(U, _bowl(U))
    P = np.vstack(raw)
    assert len(P) == 8 and lin.violation(P).max() <= 1e-6, lin.violation(P).max()
    if not options.get("refine", True) or method != "gp-ts":  # candidates: exactly feasible
        assert lin.violation(P).max() <= 0.0


def test_sobol_serves_the_feasible_points_of_its_sequence_in_order() -> None:
    space = _space()
    lin = space.input_constraints
    assert lin is not None
    m = make_method("sobol", space.dim, seed=5, space=space)
    served = np.vstack([m.ask(3) for _ in range(4)])
    seq = sobol(64, space.dim, seed=5)
    np.testing.assert_allclose(served, seq[lin.feasible(seq, 0.0)][:12])


def test_sobol_falls_back_to_the_polytope_sampler_on_a_sliver() -> None:
    space = _space(lower=1.995)  # a share of 1.25e-5 of the square: ~0 of 2^14 points
    lin = space.input_constraints
    assert lin is not None
    m = make_method("sobol", space.dim, seed=0, space=space)
    served = np.vstack([m.ask(4) for _ in range(3)])
    assert lin.feasible(served).all() and len({u.tobytes() for u in served}) == 12
    again = make_method("sobol", space.dim, seed=0, space=space)
    np.testing.assert_array_equal(np.vstack([again.ask(4) for _ in range(3)]), served)


@pytest.mark.parametrize("lower", [None, 1.2, 1.995])
def test_turbo_candidates_lie_in_the_trust_region_and_the_region(lower: float | None) -> None:
    space = _space(lower)
    lin = space.input_constraints
    assert lin is not None
    m = make_method("turbo", space.dim, seed=0, space=space, n_candidates=300)
    assert isinstance(m, TuRBO)
    m.length = 0.2
    x0 = lin.sample(lambda k: sobol(k, 3, seed=1), 1, seed=1)[0]
    ls = np.array([0.5, 1.0, 2.0])
    C = m._candidates(x0, ls, seed=7)
    w = ls / np.exp(np.mean(np.log(ls)))
    lb, ub = np.clip(x0 - w * 0.1, 0, 1), np.clip(x0 + w * 0.1, 0, 1)
    assert C.shape == (300, 3) and lin.feasible(C).all()
    assert np.all((C >= lb - 1e-12) & (C <= ub + 1e-12))
    assert len({c.tobytes() for c in C}) == 300
    np.testing.assert_array_equal(m._candidates(x0, ls, seed=7), C)  # seeded


def test_turbo_recentres_an_infeasible_best_point() -> None:
    space = _space()
    lin = space.input_constraints
    assert lin is not None
    m = make_method("turbo", space.dim, seed=0, space=space, n_candidates=100)
    assert isinstance(m, TuRBO)
    C = m._candidates(np.array([1.0, 1.0, 0.5]), np.ones(3), seed=2)  # a + b = 2 > 0.8
    assert lin.feasible(C).all()
