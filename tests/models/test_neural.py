"""NeuralBO's network, TrainNN and NTK variance (isoline.models.neural)."""

from __future__ import annotations

import math

import pytest
import torch
from torch.func import jacrev

from isoline.models.neural import (
    DTYPE,
    NTKVariance,
    fit_network,
    init_weights,
    network_forward,
    network_inputs,
    refine_minimizers,
    train_network,
    weight_gradients,
)


def _direct_variance(weights, Zt, Zq, lam):
    """sigma^2 of Algorithm 1 line 3 with the full p x p matrix U (autograd gradients)."""

    def h(params, z):
        return network_forward(list(params), z)

    def grads(Z):
        return torch.cat([j.reshape(Z.shape[0], -1) for j in jacrev(h)(tuple(weights), Z)], 1)

    G, Gq = grads(Zt), grads(Zq)
    m = weights[0].shape[0] if len(weights) > 1 else weights[0].shape[1]
    U = lam * torch.eye(G.shape[1], dtype=DTYPE) + G.T @ G / m
    return lam * ((Gq @ torch.linalg.inv(U)) * Gq).sum(1) / m


@pytest.mark.parametrize("depth,zero_last", [(2, True), (2, False), (3, False), (1, False)])
def test_woodbury_and_primal_equal_direct_form(depth: int, zero_last: bool) -> None:
    g = torch.Generator().manual_seed(depth)
    weights = init_weights(4, 6, depth, g, zero_last=zero_last)
    Zt = network_inputs(torch.rand(7, 3, generator=g, dtype=DTYPE))
    Zq = network_inputs(torch.rand(9, 3, generator=g, dtype=DTYPE))
    direct = _direct_variance(weights, Zt, Zq, lam=0.2)
    for form in ("primal", "dual"):
        torch.testing.assert_close(NTKVariance(weights, Zt, 0.2, form=form)(Zq), direct)
    # variance at a training point is below the prior variance there
    prior = NTKVariance(weights, Zt[:1], 1e6)(Zq[:1])
    assert float(NTKVariance(weights, Zq[:1], 0.2)(Zq[:1])) < float(prior)


def test_paper_init_has_only_last_layer_active_and_zero_output() -> None:
    g = torch.Generator().manual_seed(0)
    weights = init_weights(11, 50, 2, g)
    Z = network_inputs(torch.rand(5, 10, generator=g, dtype=DTYPE))
    assert torch.all(network_forward(weights, Z) == 0)  # h(x; theta_0) = 0 (paper §4)
    assert weight_gradients(weights, Z).shape == (5, 50)  # p_eff = m, not m d + m
    # the form with the cheaper per-query cost: dual for t small, primal once t >~ m
    assert NTKVariance(weights, Z, 0.01).form == "dual"
    Zbig = network_inputs(torch.rand(60, 10, generator=g, dtype=DTYPE))
    v = NTKVariance(weights, Zbig, 0.01)
    assert v.form == "primal" and v.p_eff == 50
    torch.testing.assert_close(v(Z), NTKVariance(weights, Zbig, 0.01, form="dual")(Z))


def test_variance_is_differentiable_and_chunking_is_exact() -> None:
    g = torch.Generator().manual_seed(1)
    weights = init_weights(3, 20, 2, g, zero_last=False)
    v = NTKVariance(weights, network_inputs(torch.rand(5, 2, generator=g, dtype=DTYPE)), 0.1)
    Zq = network_inputs(torch.rand(50, 2, generator=g, dtype=DTYPE))
    torch.testing.assert_close(v(Zq, chunk=7), v(Zq))
    X = torch.rand(3, 2, generator=g, dtype=DTYPE, requires_grad=True)
    v(network_inputs(X)).sum().backward()
    assert X.grad is not None and torch.isfinite(X.grad).all()


def test_network_inputs_are_centred_with_bias_coordinate() -> None:
    Z = network_inputs(torch.tensor([[0.0, 0.5, 1.0]], dtype=DTYPE))
    torch.testing.assert_close(
        Z, torch.tensor([[-1.0, 0.0, 1.0, 1.0]], dtype=DTYPE) / math.sqrt(2.0)
    )


def test_sphere_inputs_have_unit_norm_and_keep_direction() -> None:
    X = torch.tensor([[0.5, 0.5, 0.5], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0]], dtype=DTYPE)
    Z, S = network_inputs(X), network_inputs(X, sphere=True)
    torch.testing.assert_close(S.norm(dim=1), torch.ones(3, dtype=DTYPE))
    torch.testing.assert_close(S * Z.norm(dim=1, keepdim=True), Z)
    torch.testing.assert_close(
        S[0], torch.tensor([0.0, 0.0, 0.0, 1.0], dtype=DTYPE)
    )  # centre: pole


def _data(n: int = 40, d: int = 2, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    X = torch.rand(n, d, generator=g, dtype=DTYPE)
    y = ((X - 0.3) ** 2).sum(1)
    return network_inputs(X), (y - y.mean()) / y.std()


def test_training_reduces_loss_and_regularizes_towards_theta0() -> None:
    Z, y = _data()
    w0 = init_weights(3, 100, 2, torch.Generator().manual_seed(0))
    kw = dict(lam=0.01, lr=1e-3, batch_size=50, generator=torch.Generator().manual_seed(1))
    before = float(0.5 * ((network_forward(w0, Z) - y) ** 2).mean())
    w, losses, diverged = train_network(w0, w0, Z, y, epochs=200, **kw)
    after = float(0.5 * ((network_forward(w, Z) - y) ** 2).mean())
    assert not diverged and after < 0.5 * before
    assert losses[-1] < losses[0]
    # a strong pull to theta_0 keeps the weights near theta_0 and the fit poorer
    w_reg, _, _ = train_network(w0, w0, Z, y, epochs=200, **{**kw, "lam": 10.0})
    dist = lambda a: sum(float(((p - q) ** 2).sum()) for p, q in zip(a, w0))  # noqa: E731
    assert dist(w_reg) < dist(w)


def test_divergence_is_detected_and_recovered() -> None:
    Z, y = _data()
    w0 = init_weights(3, 100, 2, torch.Generator().manual_seed(0))
    _, _, diverged = train_network(
        w0,
        w0,
        Z,
        y,
        lam=0.01,
        lr=50.0,
        epochs=20,
        batch_size=50,
        generator=torch.Generator().manual_seed(0),
    )
    assert diverged
    w, rep = fit_network(
        w0,
        w0,
        Z,
        y,
        lam=0.01,
        lr=50.0,
        epochs=20,
        batch_size=50,
        generator=torch.Generator().manual_seed(0),
    )
    assert rep.n_failures >= 1 and rep.lr < 50.0 and math.isfinite(rep.loss)
    assert all(torch.isfinite(p).all() for p in w)
    # when every attempt fails, the prior network theta_0 comes back (finite, h = 0)
    w, rep = fit_network(
        w0,
        w0,
        Z,
        y,
        lam=0.01,
        lr=1e12,
        epochs=5,
        batch_size=50,
        generator=torch.Generator().manual_seed(0),
        max_retries=1,
    )
    assert rep.reinitialized and rep.n_failures == 2
    assert all(torch.equal(a, b) for a, b in zip(w, w0))


def test_refine_minimizers_improves_and_stays_in_the_cube() -> None:
    def bowl(X: torch.Tensor) -> torch.Tensor:
        return ((X - torch.tensor([0.2, 1.3], dtype=DTYPE)) ** 2).sum(-1)

    X0 = torch.tensor([[0.9, 0.1], [0.5, 0.5]], dtype=DTYPE)
    X, f = refine_minimizers(bowl, X0)
    torch.testing.assert_close(
        X, torch.tensor([[0.2, 1.0], [0.2, 1.0]], dtype=DTYPE), atol=1e-5, rtol=0
    )
    assert torch.all(f <= bowl(X0))


@pytest.mark.parametrize("depth", [2, 3])
def test_biases_enter_forward_and_ntk_like_explicit_bias_vectors(depth: int) -> None:
    g = torch.Generator().manual_seed(7 + depth)
    weights = init_weights(4, 6, depth, g, zero_last=False, bias=True)
    assert [tuple(w.shape) for w in weights][1:] == [(6, 7)] * (depth - 2) + [(1, 7)]
    assert all(bool((w[:, -1] == 0).all()) for w in weights[1:])  # biases start at 0
    weights = [w + 0.3 * torch.randn(w.shape, generator=g, dtype=DTYPE) for w in weights]
    Z = network_inputs(torch.rand(5, 3, generator=g, dtype=DTYPE))
    a = torch.relu(Z @ weights[0].T)  # explicit: a_l = relu(W a_{l-1} + b)
    for W in weights[1:-1]:
        a = torch.relu(a @ W[:, :-1].T + W[:, -1])
    h = math.sqrt(6) * (a @ weights[-1][:, :-1].T + weights[-1][:, -1]).squeeze(-1)
    torch.testing.assert_close(network_forward(weights, Z), h)
    Zq = network_inputs(torch.rand(4, 3, generator=g, dtype=DTYPE))
    direct = _direct_variance(weights, Z, Zq, lam=0.2)  # autograd through network_forward
    for form in ("primal", "dual"):
        torch.testing.assert_close(NTKVariance(weights, Z, 0.2, form=form)(Zq), direct)


def test_centered_inputs_are_unscaled() -> None:
    Z = network_inputs(torch.tensor([[0.0, 0.25, 1.0]], dtype=DTYPE), scaled=False)
    torch.testing.assert_close(Z, torch.tensor([[-1.0, -0.5, 1.0, 1.0]], dtype=DTYPE))
