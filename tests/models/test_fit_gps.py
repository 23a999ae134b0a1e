"""The GPs of several outputs fitted as one batch (isoline.models.outputs.fit_gps)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from isoline.models.gp import GP, fit_gp
from isoline.models.outputs import OutputGPs, fit_gps
from isoline.models.rounding import space_rounding
from isoline.testing import conditional_space


def _data(n: int = 24, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``X (n, 3)``, two outputs of scales 1 and 1e4, and test points."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    Y = np.c_[np.sin(5 * X).sum(1), 1e4 * (X[:, 0] - 0.3) ** 2 + 2e3 * X[:, 2]]
    return X, Y, rng.random((7, 3))


def _column(gps: OutputGPs, X: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
    with torch.no_grad():
        post = gps.model.posterior(torch.as_tensor(X))
    return post.mean[:, j].numpy(), post.variance[:, j].numpy()


def _close(gps: OutputGPs, alone: list[GP], X: np.ndarray, rtol: float) -> None:
    for j, gp in enumerate(alone):
        mean, var = _column(gps, X, j)
        m1, v1 = gp.posterior(X)
        np.testing.assert_allclose(mean, m1, rtol=rtol, atol=rtol * gp.y_scale)
        np.testing.assert_allclose(var, v1, rtol=rtol, atol=rtol * gp.y_scale**2)


@pytest.mark.parametrize("priors", ["botorch", "optuna"])
def test_unfitted_batch_is_each_columns_gp(priors: str) -> None:
    """Same starting hyperparameters: output j of the batch is fit_gp's GP of column j,
    each standardized by its own scale."""
    X, Y, Xs = _data()
    gps = fit_gps(X, Y, priors=priors, fit=False)
    alone = [fit_gp(X, y, priors=priors, fit=False) for y in Y.T]
    assert gps.num_outputs == 2
    np.testing.assert_allclose(gps.y_scales, [gp.y_scale for gp in alone], rtol=1e-12)
    _close(gps, alone, Xs, rtol=1e-9)


@pytest.mark.parametrize("priors", ["botorch", "optuna"])
def test_each_output_gets_the_hyperparameters_it_would_get_alone(priors: str) -> None:
    """The batch's fit maximizes each output's marginal likelihood on its own (BoTorch's
    batched L-BFGS-B): its lengthscales and predictions are those of separate fits, not
    one compromise between outputs of very different shapes and scales."""
    X, Y, Xs = _data()
    gps = fit_gps(X, Y, priors=priors, ftol=1e-9)
    alone = [fit_gp(X, y, priors=priors, ftol=1e-9) for y in Y.T]
    base = gps.model.covar_module
    base = getattr(base, "base_kernel", base)
    ls = base.lengthscale.detach().reshape(2, -1).numpy()
    np.testing.assert_allclose(ls, [gp.lengthscales for gp in alone], rtol=0.05)
    assert not np.allclose(ls[0], ls[1], rtol=0.2)  # the two outputs differ
    _close(gps, alone, Xs, rtol=1e-3)


def test_warm_start_state_roundtrip() -> None:
    X, Y, Xs = _data()
    gps = fit_gps(X, Y)
    again = fit_gps(X, Y, init=gps.state(), fit=False)
    for j in range(2):
        np.testing.assert_allclose(_column(again, Xs, j), _column(gps, Xs, j), rtol=1e-12)


def test_arc_kernel_batch_is_each_columns_arc_gp() -> None:
    space = conditional_space()
    rng = np.random.default_rng(2)
    U = space.round(rng.random((20, space.dim)))
    Y = np.c_[np.sin(3 * U.sum(1)), 100.0 * U[:, 0]]
    rounding = space_rounding(space)
    gps = fit_gps(U, Y, kernel="rbf", arc=space, input_transform=rounding, fit=False)
    alone = [
        fit_gp(U, y, kernel="rbf", arc=space, input_transform=rounding, fit=False) for y in Y.T
    ]
    assert gps.model.covar_module.raw_angle.shape[0] == 2  # an angle set per output
    _close(gps, alone, space.round(rng.random((6, space.dim))), rtol=1e-9)


@pytest.mark.parametrize(
    ("Y", "match"),
    [
        (np.zeros((24, 1)), "m >= 2 outputs"),
        (np.zeros(24), "m >= 2 outputs"),
        (np.r_[np.zeros((23, 2)), [[0.0, np.nan]]], "finite"),
        (np.zeros((23, 2)), "24 rows but y has 23"),
    ],
)
def test_bad_outputs(Y: np.ndarray, match: str) -> None:
    X, _, _ = _data()
    with pytest.raises(ValueError, match=match):
        fit_gps(X, Y)


@pytest.mark.parametrize("priors", ["botorch", "optuna"])
def test_model_list_holds_the_same_fitted_gps(priors: str) -> None:
    """The one-output models of ``model_list`` (for Monte-Carlo acquisitions) carry the
    batch's fitted hyperparameters: their posteriors are the batch's outputs."""
    X, Y, Xs = _data()
    gps = fit_gps(X, Y, priors=priors)
    models = gps.model_list().models
    assert len(models) == 2
    with torch.no_grad():
        for j, one in enumerate(models):
            post = one.posterior(torch.as_tensor(Xs))
            mean, var = _column(gps, Xs, j)
            np.testing.assert_allclose(post.mean.reshape(-1).numpy(), mean, rtol=1e-9)
            np.testing.assert_allclose(post.variance.reshape(-1).numpy(), var, rtol=1e-9)


def test_joint_samples_raise_no_sparse_warning() -> None:
    """The noisy MC acquisitions' cached-Cholesky samples of the batched model leave no
    torch warning about implicit sparse-invariant checks, and the checks' value stays."""
    from botorch.sampling import SobolQMCNormalSampler

    from isoline.methods.gp_outputs import constrained_log_nei

    X, Y, Xt = _data()
    Y[:, 1] -= np.median(Y[:, 1])  # some feasible, some not
    gps = fit_gps(X, Y)
    acqf = constrained_log_nei(gps, X, np.empty((0, 3)), SobolQMCNormalSampler(torch.Size([8])))
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="Sparse invariant checks")
        for _ in range(2):
            acqf(torch.as_tensor(Xt).unsqueeze(1))
    assert not torch.sparse.check_sparse_tensor_invariants.is_enabled()
