"""Convergence plots: mean best value over seeds with a standard-error band."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["plot_convergence", "mean_and_sem"]


def mean_and_sem(curves: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Align curves of unequal length on evaluations 1..n; return ``(n, mean, sem)``.

    Each curve is carried forward at its last value; positions where some curve has no
    finite value yet are left out of the mean at that evaluation.
    """
    length = max(len(c) for c in curves)
    M = np.full((len(curves), length), np.nan)
    for i, c in enumerate(curves):
        M[i, : len(c)] = c
        if 0 < len(c) < length:
            M[i, len(c) :] = c[-1]
    count = np.sum(np.isfinite(M), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nanmean(np.where(count > 0, M, 0.0), axis=0)
        sd = np.nanstd(M, axis=0, ddof=1) if len(curves) > 1 else np.zeros(length)
        sem = np.where(count > 1, sd / np.sqrt(np.maximum(count, 1)), 0.0)
    mean = np.where(count > 0, mean, np.nan)
    return np.arange(1, length + 1), mean, sem


def plot_convergence(
    curves: Mapping[str, Sequence[np.ndarray]],
    ax: Any = None,
    title: str | None = None,
    ylabel: str = "best value so far",
    log: bool = False,
) -> Any:
    """Plot one line per method (mean over its curves) with a +-1 SEM band.

    Args:
        curves: method label -> list of ``(n_i,)`` best-so-far curves (one per seed).
        ax: matplotlib axes to draw into (a new figure if ``None``).
        log: logarithmic y axis (for regrets).
    Returns:
        The axes.
    """
    import matplotlib

    if ax is None:
        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6, 4))
    for label, cs in curves.items():
        cs = [np.asarray(c, dtype=float) for c in cs if len(c)]
        if not cs:
            continue
        x, mean, sem = mean_and_sem(cs)
        (line,) = ax.plot(x, mean, label=f"{label} (n={len(cs)})", lw=1.6)
        ax.fill_between(x, mean - sem, mean + sem, color=line.get_color(), alpha=0.2, lw=0)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("evaluations")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return ax
