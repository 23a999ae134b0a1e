"""Parameter importance: how much a random forest fitted to the study's evaluations loses
when one parameter's values are shuffled.

The forest is scikit-learn's ``RandomForestRegressor`` (Breiman, "Random Forests", Machine
Learning 2001) and the measure scikit-learn's ``permutation_importance``: the mean drop
in the forest's R^2 on the evaluations when one parameter's column is permuted, which
treats a categorical parameter (coded by its choice index) as one feature like any other.
scikit-learn is a dependency of isoline already; Optuna's fANOVA evaluator (Hutter, Hoos
& Leyton-Brown, "An Efficient Approach for Assessing Hyperparameter Importance", ICML
2014) would need Optuna, an optional extra.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from isoline.validation import check_int
from isoline.visualization.common import StudyResult, figure, finished, select

__all__ = ["MIN_EVALUATIONS", "param_importances", "plot_param_importances"]

#: the fewest finished evaluations an importance is computed from
MIN_EVALUATIONS = 5


def param_importances(
    result: StudyResult,
    params: Sequence[str] | None = None,
    *,
    n_trees: int = 48,
    n_repeats: int = 6,
    seed: int = 0,
) -> dict[str, float]:
    """Each parameter's importance, normalized to sum to 1 (all 0 when no parameter
    matters to the forest), most important first.

    Args:
        result: a :class:`~isoline.Result` (e.g. from :func:`isoline.load`).
        params: the parameters to rank (default: all); the forest is fitted to these.
        n_trees: trees of the forest.
        n_repeats: permutations of each parameter.
        seed: seed of the forest and the permutations (the same seed, the same numbers).

    Raises:
        ValueError: fewer than :data:`MIN_EVALUATIONS` finished evaluations, or a name in
            ``params`` is not a parameter.
    """
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.inspection import permutation_importance

    n_trees = check_int(n_trees, "n_trees", 1)
    n_repeats = check_int(n_repeats, "n_repeats", 1)
    chosen = select(result, params)
    ok = finished(result, MIN_EVALUATIONS, "parameter importance")
    X = np.column_stack([p.codes(list(ok[p.column])) for p in chosen])
    y = ok["value"].to_numpy(dtype=float)
    forest = RandomForestRegressor(n_estimators=n_trees, random_state=seed).fit(X, y)
    drop = permutation_importance(forest, X, y, n_repeats=n_repeats, random_state=seed)
    gain = np.clip(np.nan_to_num(drop.importances_mean), 0.0, None)
    total = gain.sum()
    share = gain / total if total > 0 else np.zeros_like(gain)
    ranked = sorted(zip((p.name for p in chosen), share), key=lambda t: -t[1])
    return {name: float(s) for name, s in ranked}


def plot_param_importances(
    result: StudyResult,
    params: Sequence[str] | None = None,
    *,
    ax: Any = None,
    seed: int = 0,
    importances: Mapping[str, float] | None = None,
) -> Any:
    """A horizontal bar per parameter, its :func:`param_importances` share (the most
    important on top).

    Args:
        importances: the shares if :func:`param_importances` gave them already (then
            ``params`` and ``seed`` are not used).

    Returns:
        The matplotlib Figure.

    Raises:
        ValueError: as :func:`param_importances`.
    """
    shares = (
        dict(importances)
        if importances is not None
        else param_importances(result, params, seed=seed)
    )
    fig, (ax,) = figure(ax, width=6.0, height=0.5 * len(shares) + 1.6)
    names = list(shares)[::-1]
    bars = ax.barh(names, [shares[n] for n in names], color="tab:blue", gid="importances")
    ax.bar_label(bars, fmt="%.2f", fontsize=8, padding=2)
    ax.set_xlim(0, 1.1 * max(max(shares.values()), 0.1))
    ax.set_xlabel("importance (random forest, permutation)")
    ax.set_title(f"parameter importance in {result.study}")
    ax.grid(alpha=0.3, axis="x")
    return fig
