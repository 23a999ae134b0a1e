"""GPs of several outputs of the same evaluations (several objectives, constraints).

:func:`fit_gps` fits one GP per output, each with its own hyperparameters, with the
kernels and priors :func:`isoline.models.gp.fit_gp` gives one output, as one batched
BoTorch ``SingleTaskGP``: the fit runs one L-BFGS-B per output in a single batched loop, and
an acquisition gets all outputs from one model call instead of one call per output.
:meth:`OutputGPs.model_list` gives the same fitted GPs as BoTorch's ``ModelListGP`` of
one-output models, for code that needs that form.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

import numpy as np
import torch
from botorch.models import ModelListGP, SingleTaskGP
from botorch.models.transforms.input import InputTransform

from isoline.models.gp_fit import PRIORS, build_model, check_data, fit_model
from isoline.models.linalg import GPFitError
from isoline.params import Space
from isoline.validation import check_bool, check_choice

__all__ = ["OutputGPs", "fit_gps"]


class OutputGPs:
    """Independent GPs of ``m`` outputs, fitted together by :func:`fit_gps`.

    Attributes:
        model: one BoTorch ``SingleTaskGP`` with ``m`` outputs (a batch of ``m`` GPs); it
            predicts in the units of each column of ``Y``.
        num_outputs: ``m``.
    """

    def __init__(
        self,
        model: SingleTaskGP,
        X: torch.Tensor,
        Y: torch.Tensor,
        build: Callable[[torch.Tensor, torch.Tensor], SingleTaskGP],
    ) -> None:
        self.model = model.eval()
        _explicit_sparse_checks()
        self.num_outputs = int(model.num_outputs)
        self._X, self._Y, self._build = X, Y, build
        with torch.no_grad():
            mean = model.posterior(X).mean
        if not torch.isfinite(mean).all():
            raise GPFitError("the GPs' posterior mean at the data is not finite")

    @property
    def y_scales(self) -> np.ndarray:
        """``(m,)`` standard deviations used to standardize each output."""
        stdvs = cast(Any, self.model).outcome_transform.stdvs
        return stdvs.detach().reshape(-1).numpy().copy()

    def state(self) -> dict[str, np.ndarray]:
        """Raw hyperparameters as numpy arrays (pass as ``fit_gps(init=...)``)."""
        return {n: p.detach().numpy().copy() for n, p in self.model.named_parameters()}

    def model_list(self) -> ModelListGP:
        """The same GPs as BoTorch's ``ModelListGP`` of ``m`` one-output models (output
        ``j``'s hyperparameters are the batch's ``j``-th)."""
        batched = dict(self.model.named_parameters())
        models = []
        for j in range(self.num_outputs):
            one = self._build(self._X, self._Y[:, j : j + 1])
            with torch.no_grad():
                for name, p in one.named_parameters():
                    value = batched[name][j]
                    if value.shape != p.shape:
                        raise GPFitError(f"{name}: output {j} has shape {tuple(value.shape)}")
                    p.copy_(value)
            models.append(one.eval())
        return ModelListGP(*models)


def _explicit_sparse_checks() -> None:
    """Make torch's sparse-invariant checking an explicit choice, keeping its value.

    Joint posterior samples of the batched model over the evaluated points (the noisy
    Monte-Carlo acquisitions' cached Cholesky path) build sparse interpolation tensors, and
    torch warns at each build while the checking is left at its implicit default (off).
    Leaving it off, explicitly, changes nothing but the warning; checking a user turned
    on stays on."""
    checks = torch.sparse.check_sparse_tensor_invariants
    if not checks.is_enabled():
        checks.disable()


def fit_gps(
    X: np.ndarray,
    Y: np.ndarray,
    *,
    kernel: str = "matern52",
    fit: bool = True,
    init: Mapping[str, np.ndarray] | None = None,
    input_transform: InputTransform | None = None,
    ftol: float | None = None,
    log_params: bool = False,
    priors: str = "botorch",
    arc: Space | None = None,
) -> OutputGPs:
    """Fit one GP per column of ``Y (n, m)`` (``m >= 2``) at ``X (n, d)`` in ``[0, 1]^d``.

    The arguments are :func:`isoline.models.gp.fit_gp`'s, for learned hyperparameters (each
    output's own, maximized on its own marginal likelihood); ``init`` comes from
    :meth:`OutputGPs.state`. Raises :class:`GPFitError` if the posterior is not finite.
    """
    Xt, Yt = check_data(X, Y)
    if Yt.ndim != 2 or Yt.shape[1] < 2:
        raise ValueError(f"Y must be an (n, m) array of m >= 2 outputs, got {tuple(Yt.shape)}")
    priors = check_choice(priors, "priors", PRIORS)
    log_params = check_bool(log_params, "log_params")
    if priors == "optuna" and log_params:
        raise ValueError("priors='optuna' is not searched in log space (log_params False)")

    def build(Xb: torch.Tensor, Yb: torch.Tensor) -> SingleTaskGP:
        return build_model(Xb, Yb, kernel, "constant", input_transform, log_params, priors, arc)

    model = build(Xt, Yt)
    return fit_model(model, fit, init, ftol, lambda m: OutputGPs(m, Xt, Yt, build))
