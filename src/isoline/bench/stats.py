"""Significance tests of final values, as the NeuralBO paper's Tables 1-2 (§7.1).

The paper first checks each method's sample of final values (one per run) for normality
with a Kolmogorov-Smirnov test (Table 1), then runs, for every baseline, a one-sided
two-sample t-test of ``H0: mu_baseline <= mu_ref`` against ``Ha: mu_baseline > mu_ref``
(isoline minimizes: a small p says the reference method reaches lower values), and
controls the false discovery rate with the Benjamini-Hochberg procedure (Table 2, where
"T" means H0 is rejected).

Input everywhere: ``results[cell][method] -> sequence of final values`` where a cell is
a (problem, dimension) label such as ``"Ackley D=10"``. Non-finite values are dropped.
Outputs are lists of plain dicts (no pandas) and Markdown renderings of them.

The paper tests one direction only. ``alternative="less"`` tests the other one,
``H0: mu_baseline >= mu_ref`` against ``Ha: mu_baseline < mu_ref`` (the baseline reaches
lower values), so a report can also show where a baseline beats the reference.

Notes: the KS test here compares the standardized sample (sample mean, ``ddof=1``
standard deviation) with ``N(0, 1)``, as the paper describes; estimating the parameters
makes it conservative (Lilliefors' correction would be exact). Welch's t-test (unequal
variances) is the default; ``equal_var=True`` gives Student's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

__all__ = [
    "benjamini_hochberg",
    "ks_normality",
    "ks_table",
    "markdown_ks_table",
    "markdown_ttest_table",
    "one_sided_ttest",
    "to_markdown",
    "ttest_table",
]

Results = Mapping[str, Mapping[str, ArrayLike]]
FAMILIES = ("table", "cell")
ALTERNATIVES = ("greater", "less")


def _finite(values: ArrayLike) -> np.ndarray:
    a = np.asarray(values, dtype=float).reshape(-1)
    return a[np.isfinite(a)]


def ks_normality(values: ArrayLike) -> float:
    """KS p-value of the standardized sample against ``N(0, 1)``; NaN if undefined.

    Undefined when fewer than 3 finite values remain or they are all equal.
    """
    a = _finite(values)
    if a.size < 3 or np.ptp(a) == 0:
        return float("nan")
    z = (a - a.mean()) / a.std(ddof=1)
    return float(stats.kstest(z, "norm").pvalue)


def one_sided_ttest(
    baseline: ArrayLike,
    reference: ArrayLike,
    equal_var: bool = False,
    alternative: str = "greater",
) -> float:
    """p-value of ``Ha: mean(baseline) > mean(reference)`` (two-sample t-test), or of
    ``Ha: mean(baseline) < mean(reference)`` with ``alternative="less"``.

    Welch's test by default, Student's with ``equal_var=True``. NaN when either sample
    has fewer than 2 finite values or both have zero variance.
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    b, r = _finite(baseline), _finite(reference)
    if b.size < 2 or r.size < 2 or (np.ptp(b) == 0 and np.ptp(r) == 0):
        return float("nan")
    return float(stats.ttest_ind(b, r, equal_var=equal_var, alternative=alternative).pvalue)


def benjamini_hochberg(pvalues: Sequence[float]) -> np.ndarray:
    """BH-adjusted p-values (``scipy.stats.false_discovery_control``); NaNs stay NaN
    and are not counted in the family."""
    p = np.asarray(pvalues, dtype=float).reshape(-1)
    if np.any((p < 0) | (p > 1)):
        raise ValueError(f"pvalues must lie in [0, 1], got {p.tolist()}")
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = stats.false_discovery_control(p[ok], method="bh")
    return out


def _check_results(results: Results) -> None:
    if not isinstance(results, Mapping) or not results:
        raise TypeError("results must be a non-empty mapping cell -> {method: values}")
    for cell, per_method in results.items():
        if not isinstance(per_method, Mapping) or not per_method:
            raise TypeError(f"results[{cell!r}] must be a non-empty mapping method -> values")


def ks_table(results: Results) -> list[dict[str, object]]:
    """Table 1: one row per cell, ``{"cell": cell, method: KS p-value, ...}``."""
    _check_results(results)
    return [
        {"cell": cell, **{m: ks_normality(v) for m, v in per_method.items()}}
        for cell, per_method in results.items()
    ]


def ttest_table(
    results: Results,
    reference: str,
    *,
    alpha: float = 0.05,
    equal_var: bool = False,
    family: str = "table",
    alternative: str = "greater",
) -> list[dict[str, Any]]:
    """Table 2: one-sided t-test of every baseline against ``reference``, BH-corrected.

    Args:
        results: ``cell -> method -> final values``; every cell must contain ``reference``.
        reference: the method tested as better (the paper's NeuralBO).
        alpha: false discovery rate of the BH procedure, in ``(0, 1)``.
        equal_var: Student's instead of Welch's test.
        family: ``"table"`` corrects over all tests at once, ``"cell"`` within each cell.
        alternative: ``"greater"`` (the paper's: is the baseline's mean higher, i.e.
            worse?) or ``"less"`` (is it lower, i.e. better than the reference?).

    Returns one dict per (cell, baseline): ``cell, baseline, n_baseline, n_reference,
    mean_baseline, mean_reference, p_value, p_adjusted, reject`` (``reject``: H0 rejected
    at FDR ``alpha``; False when the test is undefined).
    """
    _check_results(results)
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    rows: list[dict[str, Any]] = []
    for cell, per_method in results.items():
        if reference not in per_method:
            raise ValueError(
                f"reference {reference!r} is missing from cell {cell!r}; "
                f"methods there: {sorted(per_method)}"
            )
        ref = _finite(per_method[reference])
        for method, values in per_method.items():
            if method == reference:
                continue
            b = _finite(values)
            rows.append(
                {
                    "cell": cell,
                    "baseline": method,
                    "n_baseline": int(b.size),
                    "n_reference": int(ref.size),
                    "mean_baseline": float(b.mean()) if b.size else float("nan"),
                    "mean_reference": float(ref.mean()) if ref.size else float("nan"),
                    "p_value": one_sided_ttest(
                        b, ref, equal_var=equal_var, alternative=alternative
                    ),
                }
            )
    groups = [rows] if family == "table" else [[r for r in rows if r["cell"] == c] for c in results]
    for group in groups:
        adjusted = benjamini_hochberg([r["p_value"] for r in group])
        for r, pa in zip(group, adjusted):
            r["p_adjusted"] = float(pa)
            r["reject"] = bool(np.isfinite(pa) and pa <= alpha)
    return rows


def _fmt(v: object, digits: int = 3) -> str:
    if isinstance(v, bool):
        return "T" if v else "F"
    if isinstance(v, (float, np.floating)):
        if np.isnan(v):
            return "n/a"
        return f"{v:.{digits}g}"
    return str(v)


def to_markdown(rows: Sequence[Mapping[str, object]], columns: Sequence[str] | None = None) -> str:
    """A Markdown table of ``rows`` (dicts) with the given ``columns`` (default: the
    first row's keys); floats with 3 significant digits, booleans as T/F."""
    if not rows:
        return ""
    cols = list(columns) if columns is not None else list(rows[0])
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(_fmt(r.get(c, "")) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


def markdown_ks_table(results: Results) -> str:
    """Table 1 as Markdown: cells down, methods across, KS p-values."""
    rows = ks_table(results)
    methods = list(dict.fromkeys(m for r in rows for m in r if m != "cell"))
    return to_markdown(rows, ["cell", *methods])


def markdown_ttest_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Table 2 as Markdown from :func:`ttest_table` rows: cells down, baselines across,
    each entry ``(p-value, T/F)`` as in the paper."""
    cells = list(dict.fromkeys(r["cell"] for r in rows))
    baselines = list(dict.fromkeys(str(r["baseline"]) for r in rows))
    table = []
    for c in cells:
        entry: dict[str, object] = {"cell": c}
        for r in rows:
            if r["cell"] == c:
                entry[str(r["baseline"])] = f"({_fmt(r['p_value'])}, {_fmt(bool(r['reject']))})"
        table.append(entry)
    return to_markdown(table, ["cell", *baselines])
