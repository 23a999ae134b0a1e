"""The mixed acquisition search: reduced coordinates and the alternating search."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from botorch.acquisition import AcquisitionFunction, qLogExpectedImprovement

import isoline as iso
from isoline.acquisition import maximize, negated
from isoline.encoding import DiscreteLayout
from isoline.methods.registry import make_method
from isoline.mixed_search import ReducedSpace, maximize_mixed
from isoline.models.gp import fit_gp
from isoline.models.rounding import space_rounding


def _space() -> iso.Space:
    return iso.Space(
        {
            "r": iso.Real(0.0, 1.0),
            "k": iso.Integer(1, 5),
            "c": iso.Categorical(["a", "b", "c"]),
            "w": iso.Integer(2, 300, log=True),
        }
    )


def test_layout_lists_small_integers_and_one_hot_blocks() -> None:
    space = _space()
    layout = space.discrete_layout()
    assert list(layout.ordinal) == [1]  # w has 299 values: relaxed
    k_values = layout.ordinal[1]
    assert len(k_values) == 5
    np.testing.assert_allclose(k_values, (np.arange(5) + 0.5) / 5)
    assert layout.one_hot == ((2, 5),)
    assert layout.columns == [1, 2, 3, 4]
    assert list(space.discrete_layout(max_values=300).ordinal) == [1, 5]


def test_reduced_space_round_trips_rounded_points() -> None:
    space = _space()
    red = ReducedSpace(space.dim, space.discrete_layout())
    assert red.dim == space.dim - 2
    U = torch.tensor(space.round(np.random.default_rng(0).random((20, space.dim))))
    assert torch.equal(red.expand(red.reduce(U)), U)
    B = red.bounds(torch.stack([torch.zeros(space.dim), torch.ones(space.dim)]).double())
    assert B[:, red.block_columns[0]].tolist() == [0.0, 2.0]
    assert B[:, red.position[1]].tolist() == [0.1, 0.9]


class _Known(AcquisitionFunction):
    """A known maximum: r = 0.3, k = 4, c = "c" (the encoding of ``_space``)."""

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        x = X[..., 0, :]
        k_target = (4 - 1 + 0.5) / 5
        return -((x[..., 0] - 0.3) ** 2) - (x[..., 1] - k_target) ** 2 + 0.5 * x[..., 4]


def _model(space: iso.Space):  # type: ignore[no-untyped-def]
    U = space.round(np.random.default_rng(1).random((8, space.dim)))
    return fit_gp(U, U.sum(1), input_transform=space_rounding(space)).model


def test_alternating_search_finds_the_discrete_optimum() -> None:
    space = _space()
    acqf = _Known(_model(space))
    torch.manual_seed(0)
    X, value = maximize(acqf, space.dim, discrete=space.discrete_layout(),
                        num_restarts=4, raw_samples=64)  # fmt: skip
    config = space.decode(X)[0]
    assert config["k"] == 4 and config["c"] == "c"
    assert abs(config["r"] - 0.3) < 1e-4
    assert value == pytest.approx(0.5, abs=1e-6)


def test_a_greedy_batch_is_distinct_and_leaves_the_pending_points() -> None:
    space = _space()
    rng = np.random.default_rng(2)
    U = space.round(rng.random((12, space.dim)))
    y = np.sum((U - 0.4) ** 2, axis=1)
    gp = fit_gp(U, y, input_transform=space_rounding(space))
    pending = torch.tensor(space.round(rng.random((1, space.dim))))
    acqf = qLogExpectedImprovement(gp.model, best_f=-float(y.min()),
                                   posterior_transform=negated(), X_pending=pending)  # fmt: skip
    torch.manual_seed(0)
    B = torch.stack([torch.zeros(space.dim), torch.ones(space.dim)]).double()
    X = maximize_mixed(acqf, B, 2, space.discrete_layout(), num_restarts=4, raw_samples=64)
    assert X.shape == (2, space.dim)
    assert not torch.allclose(space_rounding(space).transform(X)[0],
                              space_rounding(space).transform(X)[1])  # fmt: skip
    assert torch.equal(acqf.X_pending, pending)


def test_fixed_features_inside_a_one_hot_block_are_refused() -> None:
    space = _space()
    B = torch.stack([torch.zeros(space.dim), torch.ones(space.dim)]).double()
    with pytest.raises(ValueError, match="one-hot block"):
        maximize_mixed(_Known(_model(space)), B, 1, space.discrete_layout(),
                       num_restarts=2, raw_samples=16, fixed_features={3: 1.0})  # fmt: skip


class _Bowl(AcquisitionFunction):
    """Maximum at (0.7, 0.7)."""

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return -((X[..., 0, :] - 0.7) ** 2).sum(-1)


def test_an_empty_layout_is_a_continuous_search() -> None:
    model = _model(iso.Space({"r": iso.Real(0.0, 1.0), "s": iso.Real(0.0, 1.0)}))
    B = torch.stack([torch.zeros(2), torch.ones(2)]).double()
    torch.manual_seed(0)
    X = maximize_mixed(_Bowl(model), B, 1, DiscreteLayout({}, ()), num_restarts=2,
                       raw_samples=16)  # fmt: skip
    np.testing.assert_allclose(X.numpy(), [[0.7, 0.7]], atol=1e-4)


def test_gp_ei_searches_discrete_columns_locally_and_gp_ts_refuses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    space = _space()
    m = make_method("gp-ei", space.dim, seed=0, space=space, discrete_search="local", n_init=6)
    for _ in range(6):  # the initial design: the next proposal is the search's
        x = m.ask()
        m.tell(x, np.sum((x - 0.4) ** 2, axis=1))
    searched = []

    def spy(
        acqf: AcquisitionFunction, B: torch.Tensor, q: int, layout: DiscreteLayout, **kw: Any
    ) -> torch.Tensor:
        searched.append(layout)
        return maximize_mixed(acqf, B, q, layout, **kw)

    monkeypatch.setattr("isoline.acquisition.maximize_mixed", spy)
    x = m.ask()
    assert [layout.columns for layout in searched] == [space.discrete_layout().columns]
    np.testing.assert_array_equal(space.round(x), x)
    with pytest.raises(ValueError, match="discrete_search"):
        make_method("gp-ts", space.dim, space=space, discrete_search="local")
    with pytest.raises(ValueError, match="start_at_best"):
        make_method("gp-ts", space.dim, space=space, start_at_best=True)
    with pytest.raises(ValueError, match="discrete_search"):
        make_method("gp-ei", space.dim, space=space, discrete_search="exhaustive")
