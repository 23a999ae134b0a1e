"""The rounding input transform: the GP sees the configuration that is evaluated."""

from __future__ import annotations

import numpy as np
import torch

import isoline as iso
from isoline.models.gp import fit_gp
from isoline.models.rounding import SpaceRounding, space_rounding


def _space() -> iso.Space:
    return iso.Space(
        {
            "r": iso.Real(1e-3, 1.0, log=True),
            "k": iso.Integer(1, 5),
            "w": iso.Integer(2, 300, log=True),
            "c": iso.Categorical(["a", "b", "c"]),
        }
    )


def test_transform_equals_space_round_and_passes_gradients() -> None:
    space = _space()
    U = np.random.default_rng(0).random((50, space.dim))
    X = torch.tensor(U, requires_grad=True)
    R = SpaceRounding(space).transform(X)
    np.testing.assert_array_equal(R.detach().numpy(), space.round(U))
    R.sum().backward()
    assert X.grad is not None and torch.all(X.grad[:, 0] == 1.0)  # the real column


def test_no_transform_without_discrete_parameters() -> None:
    assert space_rounding(None) is None
    assert space_rounding(iso.Space({"x": iso.Real(0, 1)})) is None
    assert isinstance(space_rounding(_space()), SpaceRounding)


def test_gp_posterior_is_constant_on_a_configuration_cell() -> None:
    space = _space()
    rng = np.random.default_rng(1)
    U = space.round(rng.random((12, space.dim)))
    y = np.sin(U.sum(1))
    gp = fit_gp(U, y, input_transform=space_rounding(space))
    a = U[0].copy()
    b = a.copy()
    b[1] = np.clip(b[1] + 0.03, 0, 1)  # inside the same integer cell (width 0.2)
    b[4:] = b[4:] * 0.9 + 0.01  # same argmax of the one-hot block
    assert space.decode(np.stack([a, b]))[0] == space.decode(np.stack([a, b]))[1]
    seen = gp.model.input_transform(torch.tensor(np.stack([a, b])))
    assert torch.equal(seen[0], seen[1])
    with torch.no_grad():
        post = gp.model.posterior(torch.tensor(np.stack([a, b])))
    mean = post.mean.squeeze(-1).numpy()
    # Equal inputs; the batched linear algebra may still differ in the last bit per row.
    assert abs(mean[0] - mean[1]) <= 1e-12 * max(1.0, abs(mean[0]))
    plain = fit_gp(U, y)
    with torch.no_grad():
        m2 = plain.model.posterior(torch.tensor(np.stack([a, b]))).mean.squeeze(-1).numpy()
    assert abs(m2[0] - m2[1]) > 1e-6


def test_maximize_holds_discrete_columns_at_the_starts() -> None:
    from botorch.acquisition import UpperConfidenceBound

    from isoline.acquisition import maximize

    space = _space()
    rng = np.random.default_rng(2)
    U = space.round(rng.random((15, space.dim)))
    gp = fit_gp(U, -np.sum((U - 0.4) ** 2, axis=1), input_transform=space_rounding(space))
    acqf = UpperConfidenceBound(gp.model, beta=0.5)
    starts = rng.random((4, 1, space.dim))
    X, value = maximize(acqf, space.dim, discrete=space.discrete_columns,
                        initial_conditions=starts)  # fmt: skip
    assert X.shape == (1, space.dim) and np.isfinite(value)
    held = space.discrete_columns
    match = [k for k in range(4) if np.array_equal(starts[k, 0, held], X[0, held])]
    assert match, "the discrete columns moved away from every start"
    with torch.no_grad():
        start_value = float(acqf(torch.tensor(starts[match[0]])[None]))
    assert value >= start_value - 1e-12
