"""The hypervolume after each evaluation against its definition: the hypervolume of the
feasible Pareto front of every prefix of the run, computed from scratch (BoTorch's
``Hypervolume``), on random runs with mixed directions, constraints, failed rows,
repeated rows and ties, against a given or an inferred reference point."""

from __future__ import annotations

import numpy as np
import pytest

from isoline.objective import Objective


def _definition(o: Objective, Y: np.ndarray, ref: np.ndarray) -> float:
    """Hypervolume of the feasible rows' Pareto front beyond ``ref``, from scratch."""
    import torch
    from botorch.utils.multi_objective.hypervolume import Hypervolume
    from botorch.utils.multi_objective.pareto import is_non_dominated

    R = o.rows(Y)
    sign = np.array([1.0 if d == "maximize" else -1.0 for d in o.directions])
    P = R[o.feasible(R), : o.n_objectives] * sign  # maximized
    r = np.asarray(ref, dtype=float) * sign
    P = P[(P > r).all(axis=1)]
    if len(P) == 0:
        return 0.0
    P = P[is_non_dominated(torch.as_tensor(P), deduplicate=True).numpy()]
    return float(Hypervolume(torch.as_tensor(r)).compute(torch.as_tensor(P)))


def _run(rng: np.random.Generator, n: int, m: int, n_con: int) -> tuple[Objective, np.ndarray]:
    """A random run: objectives on a coarse grid (ties, repeats) or continuous,
    constraints feasible about two times in three, some failed rows and repeated rows."""
    directions = [str(d) for d in rng.choice(["minimize", "maximize"], m)]
    o = Objective(directions, [f"f{k}" for k in range(m)], [f"c{k}" for k in range(n_con)])
    if rng.random() < 0.5:
        F = rng.integers(0, 4, (n, m)).astype(float)
    else:
        F = rng.normal(size=(n, m))
    C = rng.normal(size=(n, n_con)) - 0.5
    Y = np.hstack([F, C])
    for i in range(1, n):
        u = rng.random()
        if u < 0.1:
            Y[i] = Y[rng.integers(0, i)]  # the same outputs again
        elif u < 0.15:
            Y[i, rng.integers(0, m + n_con)] = rng.choice([np.nan, np.inf, -np.inf])
        elif u < 0.18:
            Y[i] = np.nan
    return o, Y


def _reference(rng: np.random.Generator, o: Objective, Y: np.ndarray) -> np.ndarray | None:
    """The inferred reference point, or one between the objectives' quantiles (some rows
    dominate it, some not)."""
    ok = o.feasible(Y)
    if rng.random() < 0.5:
        return o.reference_point(Y) if ok.any() else None
    F = Y[ok, : o.n_objectives] if ok.any() else np.zeros((1, o.n_objectives))
    q = np.array([0.8 if d == "minimize" else 0.2 for d in o.directions])
    q = q * rng.uniform(0.7, 1.2, o.n_objectives)
    return np.array([np.quantile(F[:, k], min(q[k], 1.0)) for k in range(o.n_objectives)])


@pytest.mark.parametrize("seed", range(12))
def test_history_equals_the_hypervolume_of_every_prefix(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = (2, 3, 4, 5)[seed % 4]
    o, Y = _run(rng, int(rng.integers(15, 40)), m, int(rng.integers(0, 3)))
    ref = _reference(rng, o, Y)
    if ref is None:
        pytest.skip("no feasible row to infer a reference point from")
    want = [_definition(o, Y[: i + 1], ref) for i in range(len(Y))]
    np.testing.assert_allclose(o.hypervolume_history(Y, ref), want, rtol=1e-9, atol=1e-12)
    assert o.hypervolume(Y, ref) == pytest.approx(want[-1], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("m", [2, 3, 4, 5])
def test_history_on_a_run_whose_every_row_joins_the_front(m: int) -> None:
    """Rows on a sphere (none dominates another), maximized in one objective, among
    infeasible rows that dominate them and repeats: the front grows at almost every
    step, to well over a hundred points."""
    rng = np.random.default_rng(m)
    n = 150
    F = np.abs(rng.normal(size=(n, m)))
    F /= np.linalg.norm(F, axis=1, keepdims=True)
    F[:, 0] = -F[:, 0]  # maximized below: the same front
    C = np.where(rng.random(n) < 0.15, 1.0, -1.0)[:, None]
    F[C[:, 0] > 0] *= 0.5  # an infeasible row dominating feasible ones
    o = Objective(["maximize", *["minimize"] * (m - 1)], [f"f{k}" for k in range(m)], ["c"])
    Y = np.hstack([F, C])
    Y[10::17] = Y[3::17][: len(Y[10::17])]  # repeats of earlier rows
    ref = o.reference_point(Y)
    assert len(o.pareto_indices(Y)) > 100
    want = [o.hypervolume(Y[: i + 1], ref) for i in range(n)]
    np.testing.assert_allclose(o.hypervolume_history(Y, ref), want, rtol=1e-12)
    if m <= 3:  # and the final value against BoTorch's (slow in more objectives)
        assert want[-1] == pytest.approx(_definition(o, Y, ref), rel=1e-9)


def test_the_last_value_is_the_hypervolume_of_the_whole_run() -> None:
    rng = np.random.default_rng(7)
    for m in (2, 3, 4):
        o, Y = _run(rng, 60, m, 1)
        ref = o.reference_point(Y)
        assert o.hypervolume_history(Y, ref)[-1] == o.hypervolume(Y, ref)
