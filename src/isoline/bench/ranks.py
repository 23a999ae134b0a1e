"""Rank statistics of many contenders over many cells, as a field comparison reports them.

Input everywhere: ``F (cells, contenders)``, the final value (lower is better) of each
contender in each cell, a cell being one (problem, seed) pair that every contender ran.
Ranks follow the convention of benchmark suites that compare optimizers (COCO's
aggregated rankings, bayesmark): within a cell the lowest value gets rank 1, ties share
their mean rank; a contender's score is its mean rank over the cells, with a percentile
bootstrap interval that resamples cells. The normalized score is bayesmark's (Turner et
al., "Bayesian optimization is superior to random search for machine learning
hyperparameter tuning: analysis of the black-box optimization challenge 2020", PMLR 133,
2021): 0 is the best value any contender reached in the cell, 1 the median of random
search on that problem.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from isoline.bench.stats import benjamini_hochberg

__all__ = [
    "cell_ranks",
    "mean_interval",
    "mean_rank_interval",
    "normalized_scores",
    "stand_in_column",
    "stand_in_ranks",
    "wilcoxon_against_best",
]


def _table(F: np.ndarray) -> np.ndarray:
    F = np.asarray(F, dtype=float)
    if F.ndim != 2 or F.shape[0] < 1 or F.shape[1] < 2:
        raise ValueError(f"F must be (cells >= 1, contenders >= 2), got shape {F.shape}")
    if np.isnan(F).any():
        raise ValueError("F has NaN entries: keep only cells every contender finished")
    return F


def cell_ranks(F: np.ndarray) -> np.ndarray:
    """``(cells, contenders)`` ranks within each cell (1 = lowest value, ties averaged)."""
    return np.asarray(stats.rankdata(_table(F), axis=1), dtype=float)


def stand_in_ranks(F: np.ndarray, a: Sequence[float]) -> np.ndarray:
    """``(cells,)`` rank of the value ``a[i]`` in row ``i`` of ``F (cells, contenders)``
    as a stand-in: one entry of the row equal to it (a run it repeats, such as the method
    an automatic choice picked, run with the same seed) is replaced by it instead of
    ranked beside it, so no trajectory counts twice; a value equal to no entry is ranked
    as one more contender. Ties are averaged, as in :func:`cell_ranks`."""
    F = _table(F)
    values = np.asarray(a, dtype=float).reshape(-1)
    if values.shape != (F.shape[0],):
        raise ValueError(f"a must have {F.shape[0]} entries, got {values.shape}")
    out = np.empty(len(values))
    for i, (row, x) in enumerate(zip(F, values)):
        rest = np.delete(row, np.flatnonzero(row == x)[:1])
        out[i] = stats.rankdata(np.append(rest, x))[-1]
    return out


def stand_in_column(F: np.ndarray, j: int | None) -> int | None:
    """``j`` if column ``j`` of ``F (cells, contenders)`` repeats another column's value in
    at least one cell (an automatic choice that ran one of the contenders with the same
    seed), so that it is ranked as a stand-in (:func:`stand_in_ranks`); ``None`` if it
    repeats none, or if ``F`` has one other column only (a stand-in is ranked among the
    others, and one contender alone has no ranks), so that it is ranked as one more
    contender."""
    if j is None:
        return None
    F = _table(F)
    if F.shape[1] < 3:
        return None
    rest = np.delete(F, j, axis=1)
    return j if bool((rest == F[:, [j]]).any()) else None


def mean_rank_interval(
    F: np.ndarray, n_boot: int = 2000, level: float = 0.95, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean rank of each contender and a percentile bootstrap interval over cells.

    Returns:
        ``(mean, lower, upper)``, each ``(contenders,)``.
    """
    return mean_interval(cell_ranks(F), n_boot, level, seed)


def mean_interval(
    R: np.ndarray, n_boot: int = 2000, level: float = 0.95, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column means of ``R (cells, k)`` and their percentile bootstrap intervals, cells
    resampled with replacement (the same resamples for every column)."""
    R = np.asarray(R, dtype=float).reshape(len(R), -1)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, R.shape[0], size=(n_boot, R.shape[0]))
    boot = R[idx].mean(axis=1)
    a = (1.0 - level) / 2.0
    return R.mean(axis=0), np.quantile(boot, a, axis=0), np.quantile(boot, 1.0 - a, axis=0)


#: a span (random median minus best) below this share of their magnitude is rounding: a
#: median that equals the best up to the last bits of a mean of fold scores would
#: otherwise divide a cell's gaps by 1e-16
SPAN_ROUNDING = 1e-12


def normalized_scores(F: np.ndarray, random_median: Sequence[float]) -> np.ndarray:
    """``(cells, contenders)`` bayesmark scores ``(f - best) / (random_median - best)``.

    Args:
        random_median: ``(cells,)`` random search's median final value on each cell's
            problem. A cell where it equals the best value (to rounding:
            :data:`SPAN_ROUNDING` times their magnitude) scores 0 for the contenders that
            reached the best and is otherwise left out (NaN).
    """
    F = _table(F)
    med = np.asarray(random_median, dtype=float).reshape(-1)
    if med.shape != (F.shape[0],):
        raise ValueError(f"random_median must have {F.shape[0]} entries, got {med.shape}")
    best = F.min(axis=1, keepdims=True)
    span = med[:, None] - best
    scale = np.maximum(np.abs(med[:, None]), np.abs(best))
    with np.errstate(divide="ignore", invalid="ignore"):
        S = (F - best) / span
    return np.where(span > SPAN_ROUNDING * scale, S, np.where(F == best, 0.0, np.nan))


def wilcoxon_against_best(F: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """Paired one-sided Wilcoxon signed-rank tests of the best-ranked contender against
    each other one (``Ha``: the other's values are larger), BH-corrected over the family.

    Returns:
        ``(best, p, p_bh)``: the index of the lowest mean rank and ``(contenders,)`` raw
        and adjusted p-values (NaN for the best itself and where all pairs tie).
    """
    R = cell_ranks(F)
    best = int(np.argmin(R.mean(axis=0)))
    p = np.full(F.shape[1], np.nan)
    for j in range(F.shape[1]):
        diff = F[:, j] - F[:, best]
        if j != best and np.any(diff != 0):
            p[j] = stats.wilcoxon(F[:, j], F[:, best], alternative="greater").pvalue
    return best, p, benjamini_hochberg(p.tolist())
