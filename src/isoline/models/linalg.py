"""Dense linear algebra shared by the models: the Cholesky factor with jitter."""

from __future__ import annotations

import torch

__all__ = ["JITTERS", "GPFitError", "cholesky"]

#: relative jitters tried, in order, when a covariance is not numerically positive definite
JITTERS = (0.0, 1e-10, 1e-8, 1e-6, 1e-4, 1e-2)


class GPFitError(RuntimeError):
    """The GP could not be made numerically usable (non-finite posterior)."""


def cholesky(K: torch.Tensor, max_jitter: float = 1e-4) -> torch.Tensor:
    """Lower Cholesky factor of ``K`` ``(..., n, n)``, adding jitter where needed.

    Tries the relative jitters of :data:`JITTERS` up to ``max_jitter``, each times the
    largest diagonal entry of ``K`` (one jitter for the whole batch).

    Raises:
        GPFitError: if ``K`` is not positive definite even with ``max_jitter``.
    """
    scale = float(K.diagonal(dim1=-2, dim2=-1).abs().max().clamp_min(1e-300))
    eye = torch.eye(K.shape[-1], dtype=K.dtype)
    for jitter in (j for j in JITTERS if j <= max_jitter):
        L, info = torch.linalg.cholesky_ex(K + jitter * scale * eye)
        if int(info.max()) == 0 and torch.isfinite(L).all():
            return L
    raise GPFitError(f"covariance is not positive definite even with jitter {max_jitter}")
