"""Compare a method row run later against the rows of a committed benchmark report.

For a row added to a config after its other rows ran (and whose store is gone), e.g.
``synthetic_100_nu03.yaml`` against ``results/neuralbo/synthetic_100/report.md``: reads the
new row's final values from the store and the committed rows' mean, SEM and number of runs
from the report's tables, and prints per cell the new row's mean +- SEM, its rank, and
one-sided Welch t-tests in both directions against every committed row, computed from the
summary statistics (``scipy.stats.ttest_ind_from_stats``; the same p-values as the report's
Welch tests up to the report's 4 significant digits), Benjamini-Hochberg-corrected over the
table as in :func:`isoline.bench.stats.ttest_table`.

    .venv/bin/python benchmarks/neuralbo/row_vs_report.py benchmarks/neuralbo/synthetic_100_nu03.yaml \
        --storage .bench_stores/neuralbo_synthetic_100.db \
        --report benchmarks/results/neuralbo/synthetic_100/report.md
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
from scipy import stats

from isoline.bench.config import load_config
from isoline.bench.report import collect
from isoline.bench.stats import benjamini_hochberg, to_markdown

ROW = re.compile(
    r"^\| (?P<method>[^|]+?) \| (?P<runs>\d+) \| \d+ \| \**(?P<mean>[-+.\deE]+)\** "
    r"\+- (?P<sem>[-+.\deE]+) \|"
)


def report_rows(path: Path) -> dict[str, dict[str, tuple[float, float, int]]]:
    """``cell -> method -> (mean, SEM, runs)`` from a runner report's per-cell tables."""
    out: dict[str, dict[str, tuple[float, float, int]]] = {}
    cell = None
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            cell = line[3:].strip()
        elif cell is not None and (m := ROW.match(line)):
            out.setdefault(cell, {})[m["method"]] = (
                float(m["mean"]),
                float(m["sem"]),
                int(m["runs"]),
            )
    if not out:
        raise ValueError(f"no per-cell result tables found in {path}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config", type=Path, help="config of the new row (one method)")
    ap.add_argument("--storage", required=True)
    ap.add_argument("--report", type=Path, required=True, help="committed report.md")
    ap.add_argument("--alpha", type=float, default=0.05)
    a = ap.parse_args()
    cfg = load_config(a.config)
    if len(cfg.methods) != 1:
        raise SystemExit(f"{a.config} must have exactly one method, has {len(cfg.methods)}")
    row = cfg.methods[0].label
    committed = report_rows(a.report)
    runs = [r for r in collect(cfg, a.storage) if len(r.values) >= r.spec.budget]
    summary, tests = [], []
    for prob in cfg.problems:
        finals = np.array([r.curve()[-1] for r in runs if r.spec.problem.label == prob.label])
        if prob.label not in committed or finals.size < 2:
            continue
        mean, sem, n = float(finals.mean()), float(stats.sem(finals)), int(finals.size)
        others = {m: v for m, v in committed[prob.label].items() if m != row}
        lower = [m for m, (mu, _, _) in others.items() if mu < mean]
        summary.append(
            {
                "cell": prob.label,
                "runs": n,
                "mean": mean,
                "SEM": sem,
                "rank": 1 + len(lower),
                "of": 1 + len(others),
                "lowest": not lower,
                "lower rows": ", ".join(lower) or "-",
            }
        )
        for m, (mu, s, k) in others.items():
            p = {
                alt: float(
                    stats.ttest_ind_from_stats(
                        mu,
                        s * np.sqrt(k),
                        k,
                        mean,
                        sem * np.sqrt(n),
                        n,
                        equal_var=False,
                        alternative=alt,
                    ).pvalue
                )
                for alt in ("greater", "less")
            }
            tests.append(
                {
                    "cell": prob.label,
                    "baseline": m,
                    "mean_baseline": mu,
                    "mean_row": mean,
                    "p_worse": p["greater"],
                    "p_better": p["less"],
                }
            )
    for key in ("p_worse", "p_better"):
        for t, pa in zip(tests, benjamini_hochberg([t[key] for t in tests])):
            t[key + "_bh"] = bool(pa <= a.alpha)
    print(f"'{row}' ({a.config}, store {a.storage}) against the rows of {a.report}\n")
    print(to_markdown(summary))
    print(
        f"\nOne-sided Welch tests from summary statistics, BH at FDR {a.alpha} over "
        f"{len(tests)} tests per direction: p_worse = p(baseline mean > {row} mean), "
        f"p_better = p(baseline mean < {row} mean); *_bh = rejected after correction.\n"
    )
    print(to_markdown(tests))


if __name__ == "__main__":
    main()
