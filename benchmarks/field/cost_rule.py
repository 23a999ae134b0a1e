"""Apply a cost rule of the form of ``hpo_cost.yaml`` / ``constrained_cost.yaml`` to a suite.

    python benchmarks/field/cost_rule.py benchmarks/field/hpo_cost.yaml --storage S \
        --finals benchmarks/results/field/hpo_cost/finals.npz --base 'isoline gp-ei' \
        --reference 'Optuna GP' --candidates 'gp-ei lean' 'gp-ei leaner'

For each candidate, on the cells of ``finals.npz`` (a field summary's; every contender
finished): (a) its summed method CPU (the studies' attrs ``method_cpu`` over those cells)
over the reference's, and (b) the cells where its final is lower / higher than the base's
and the paired one-sided Wilcoxon signed-rank test that it is higher (worse; zero
differences dropped, scipy's default). For a suite with several outputs (a finals.npz of
``outputs_summary.py``) the finals are its ``stat``: for constraints the log regret of the
best feasible value, where a run with no feasible point is one decade above the cell's
worst, so it is worse than any run with one. A candidate passes if (a) <= 1.0 and in (b) it is
worse in no more cells than better with p >= 0.05; of those passing, the one with the
lower summed CPU is named.

With ``--margin M`` the finals clause is a non-inferiority test instead (the form of
``hpo_cost_confirm.yaml``): on the normalized scores of the field summary (0 = the best
value in the cell, 1 = random search's median on the problem; ``finals.npz`` must hold a
``random`` column), the upper end of the one-sided 95% percentile bootstrap interval of
the mean score difference candidate minus base is below ``M``, and the one-sided Wilcoxon
test that the candidate is worse gives p >= 0.05; the cell counts are reported, not
tested.

With ``--sign-margin P`` the finals clause is a sign-based non-inferiority test (the form
of ``constrained_cost_confirm.yaml``, for finals too bimodal for a mean): of the cells
where candidate and base differ, the candidate is lower in ``k``; the exact one-sided
binomial test of "the candidate is lower with probability at most P" gives p < 0.05. A
``random`` column is then a floor: a candidate worse than random search in more cells
than better fails. The rule text itself lives in each config's header.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.stats import binomtest, wilcoxon

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from field import _random_median  # noqa: E402

from isoline.bench.config import load_config  # noqa: E402
from isoline.bench.ranks import mean_interval, normalized_scores  # noqa: E402
from isoline.run_loop import METHOD_CPU  # noqa: E402
from isoline.store import Store  # noqa: E402


def summed_cpu(store: Store, suite: str, label: str, cells: list[str]) -> float:
    """Method CPU of ``label``'s runs on ``cells`` (``problem/seedN``), summed."""
    total = 0.0
    for cell in cells:
        problem, seed = cell.rsplit("/", 1)
        name = f"{suite}/{problem}/{label}/{seed}"
        study = store.get_study(name)
        if study is None or METHOD_CPU not in study.attrs:
            raise SystemExit(f"no study {name} with its method CPU in the store")
        total += float(study.attrs[METHOD_CPU])
    return total


def score_gap(F: np.ndarray, labels: list[str], cells: list[str], label: str, base: str
              ) -> tuple[float, float]:  # fmt: skip
    """Mean normalized-score difference ``label`` minus ``base`` over the cells where both
    scores are defined, and the upper end of its one-sided 95% bootstrap interval."""
    pairs = [(c.rsplit("/", 1)[0], 0) for c in cells]
    S = normalized_scores(F, _random_median(pairs, F, labels))
    d = S[:, labels.index(label)] - S[:, labels.index(base)]
    mean, _, upper = mean_interval(d[~np.isnan(d)], level=0.90)
    return float(mean[0]), float(upper[0])


def sign_clause(F: np.ndarray, labels: list[str], v: np.ndarray, better: int, worse: int,
                margin: float) -> tuple[bool, str]:  # fmt: skip
    """The ``--sign-margin`` finals clause for a candidate with finals ``v``, and its
    lines for the report."""
    n = better + worse
    p = float(binomtest(better, n, margin, alternative="greater").pvalue) if n else 1.0
    ok = p < 0.05
    lines = (f"\n  sign test: lower in {better} of {n} differing cells; one-sided binomial "
             f"p = {p:.4f} against a share <= {margin} "
             f"({'non-inferior' if ok else 'not shown'})")  # fmt: skip
    if "random" in labels:
        r = F[:, labels.index("random")]
        above, below = int((v > r).sum()), int((v < r).sum())
        lines += f"\n  against random: lower in {below}, higher in {above}"
        ok = ok and above <= below
    return ok, lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("config")
    p.add_argument("--storage", required=True)
    p.add_argument("--finals", required=True)
    p.add_argument("--base", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--candidates", nargs="+", required=True)
    p.add_argument("--margin", type=float, help="non-inferiority margin on normalized scores")
    p.add_argument("--sign-margin", type=float,
                   help="non-inferiority margin on the share of cells the candidate wins")  # fmt: skip
    a = p.parse_args()
    suite = load_config(a.config).name
    f = np.load(a.finals)
    labels, cells = list(f["labels"]), [str(c) for c in f["cells"]]
    F = f["F"] if "F" in f.files else f["stat"]  # outputs_summary.py: the paired tests' value
    store = Store(a.storage, readonly=True, create=False)
    ref = summed_cpu(store, suite, a.reference, cells)
    base_cpu = summed_cpu(store, suite, a.base, cells)
    base = F[:, labels.index(a.base)]
    print(f"{len(cells)} cells; summed method CPU: {a.reference} {ref:.0f} s, "
          f"{a.base} {base_cpu:.0f} s ({base_cpu / ref:.2f}x)")  # fmt: skip
    passing = []
    for label in a.candidates:
        v = F[:, labels.index(label)]
        cpu = summed_cpu(store, suite, label, cells)
        better, worse = int((v < base).sum()), int((v > base).sum())
        pw = float(wilcoxon(v, base, alternative="greater").pvalue) if better + worse else 1.0
        gap = ""
        if a.sign_margin is not None:
            finals_ok, gap = sign_clause(F, labels, v, better, worse, a.sign_margin)
            ok = cpu / ref <= 1.0 and finals_ok
        elif a.margin is None:
            ok = cpu / ref <= 1.0 and worse <= better and pw >= 0.05
        else:
            mean, upper = score_gap(F, labels, cells, label, a.base)
            ok = cpu / ref <= 1.0 and upper < a.margin and pw >= 0.05
            gap = f"; score gap {mean:+.3f} (95% upper {upper:+.3f}, margin {a.margin})"
        print(f"{label}: CPU {cpu:.0f} s = {cpu / ref:.2f}x {a.reference}; better {better}, "
              f"worse {worse}, tied {len(cells) - better - worse} than {a.base}; "
              f"one-sided Wilcoxon (worse) p = {pw:.3f}{gap}; "
              f"{'passes' if ok else 'fails'}")  # fmt: skip
        if ok:
            passing.append((cpu, label))
    print(f"adopted: {min(passing)[1]}" if passing else "adopted: none (the base stays)")


if __name__ == "__main__":
    main()
