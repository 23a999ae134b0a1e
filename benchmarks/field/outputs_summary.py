"""``field.py summary`` for suites with several outputs (issue 41 item 5).

Multi-objective suites: per contender the final hypervolume (mean over cells), the log
hypervolume difference to the reference front (:mod:`isoline.bench.outputs`), its mean
rank with a 95% bootstrap interval over cells, and the paired one-sided Wilcoxon test of
the best-ranked contender against each (Benjamini-Hochberg). Constrained suites: the same
ranks on the best feasible value (runs without a feasible point rank last, tied), the
share of runs that found a feasible point and of feasible evaluations. Both: summed
suggestion time against Optuna GP's. The auto contender repeats the run of the method it
picks with the same seed, so it is ranked as a stand-in for that run (as in the field
summary), the others without it; an auto that repeats no contender's run is ranked as one
of them.
"""

from __future__ import annotations

import argparse
import shlex
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy import stats

from isoline.bench.config import BenchConfig
from isoline.bench.outputs import CellTable, constrained_cells, hypervolume_cells
from isoline.bench.ranks import (
    mean_interval,
    mean_rank_interval,
    stand_in_column,
    stand_in_ranks,
)
from isoline.bench.report import (
    RunData,
    copy_lines,
    crash_lines,
    git_commit,
    part_lines,
    suggestion_costs,
    version_lines,
)
from isoline.bench.runner import make_problem
from isoline.bench.stats import benjamini_hochberg, to_markdown

TIME_REFERENCE = "Optuna GP"


def _problems() -> object:
    cache: dict[tuple[str, int], object] = {}

    def problem_of(spec: object) -> object:
        key = (spec.problem.label, spec.seed)  # type: ignore[attr-defined]
        if key not in cache:
            cache[key] = make_problem(spec)  # type: ignore[arg-type]
        return cache[key]

    return problem_of


def _rows(
    t: CellTable, runs: list[RunData], kind: str, auto: int | None
) -> list[dict[str, object]]:
    labels = list(t.labels)
    S, shown, share = t.stat, t.shown, t.feasible_share
    keep = [j for j in range(len(labels)) if j != auto]
    mean, lo, hi = mean_rank_interval(S[:, keep])
    R = stats.rankdata(S[:, keep], axis=1)
    best_k = int(np.argmin(R.mean(axis=0)))
    best = keep[best_k]
    p = np.full(len(labels), np.nan)
    for j in range(len(labels)):
        if j != best and np.any(S[:, j] != S[:, best]):
            p[j] = stats.wilcoxon(S[:, j], S[:, best], alternative="greater").pvalue
    p_bh = np.asarray(benjamini_hochberg(p.tolist()), dtype=float)
    rank = dict(zip(keep, zip(mean, lo, hi)))
    if auto is not None:
        a_mean, a_lo, a_hi = mean_interval(stand_in_ranks(S[:, keep], S[:, auto]))
        rank[auto] = (a_mean[0], a_lo[0], a_hi[0])
    cells = set(t.cells)
    costs = suggestion_costs(runs, cells, TIME_REFERENCE)
    out = []
    for j in sorted(range(len(labels)), key=lambda j: rank[j][0]):
        lab = labels[j]
        row: dict[str, object] = {
            "contender": lab + (" (stand-in)" if j == auto else ""),
            "mean rank [95% CI]": "{:.2f} [{:.2f}, {:.2f}]".format(*rank[j]),
        }
        if kind == "multi-objective":
            row["hypervolume (mean)"] = float(np.mean(shown[:, j]))
            row["log10 HV difference (median)"] = float(np.median(S[:, j]))
        else:
            found = np.isfinite(shown[:, j])
            row["runs with a feasible point"] = f"{int(found.sum())}/{len(found)}"
            row["log10 regret (median)"] = float(np.median(S[:, j]))
            row["feasible evals (mean share)"] = float(np.mean(share[:, j]))
        row["p vs best (BH)"] = "best" if j == best else float(p_bh[j])
        row.update(costs.get(lab, {}))
        out.append(row)
    return out


def summarize(args: argparse.Namespace, cfg: BenchConfig, runs: list[RunData], kind: str,
              parts: list[dict[str, str]]) -> None:  # fmt: skip
    """Write README.md and finals.npz of a multi-objective or constrained suite."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    build = hypervolume_cells if kind == "multi-objective" else constrained_cells
    t = build(cfg, runs, _problems())  # type: ignore[arg-type]
    if not t.cells:
        raise SystemExit("no cell has a complete run of every contender yet")
    n_cells = len(cfg.problems) * len(cfg.seeds)
    partial = len(t.cells) < n_cells
    lines = [f"# {cfg.name}: isoline against the field ({kind})", ""]
    if partial:
        lines += [f"**Partial**: {len(t.cells)} of {n_cells} cells (problem x seed) complete; "
                  "no conclusion or target is drawn from these numbers.", ""]  # fmt: skip
    lines += ["Runs (commit, start, command of each part):", ""]
    lines += part_lines(parts)
    subset = "".join(f" --{k} {shlex.quote(str(getattr(args, k)))}"
                     for k in ("problems", "seeds", "methods") if getattr(args, k, None))  # fmt: skip
    lines += ["", f"Summary: `python benchmarks/field/field.py summary {args.config} "
              f"--storage S --out {args.out}{subset}` at {git_commit()}.", ""]  # fmt: skip
    if kind == "multi-objective":
        lines += ["Value of a run: the hypervolume of its feasible evaluations against the "
                  "problem's reference point; ranked by the log10 hypervolume difference to "
                  "the larger of the known maximal hypervolume and that of all runs of the "
                  "cell together (floor 1e-12 of it)."]  # fmt: skip
    else:
        lines += ["Value of a run: its best feasible objective value; a run with no feasible "
                  "evaluation ranks last (tied with any other such run). The paired tests use "
                  "log10 regret against the lower of the known optimum and the best feasible "
                  "value in the cell; a run without a feasible point counts one decade above "
                  "the worst feasible run of its cell."]  # fmt: skip
    auto = stand_in_column(t.stat, cfg.auto_index)
    lines += ["Rank 1 = best in a cell; interval: 95% percentile bootstrap over cells; p: paired "
              "one-sided Wilcoxon test of the best-ranked contender against each, "
              "Benjamini-Hochberg over the table; time: summed suggestion time over "
              f"{TIME_REFERENCE}'s"
              + ("; auto is ranked as a stand-in for the run it repeats." if auto is not None else "."),
              "", f"## All complete cells ({len(t.cells)})", "",
              to_markdown(_rows(t, runs, kind, auto)), ""]  # fmt: skip
    by_problem: dict[str, list[int]] = defaultdict(list)
    for i, (p, _) in enumerate(t.cells):
        by_problem[p].append(i)
    lines += ["## Per problem (mean of the shown value over seeds)", ""]
    head = "hypervolume" if kind == "multi-objective" else "best feasible value"
    table = []
    for p, idx in by_problem.items():
        row: dict[str, object] = {"problem": f"{p} ({len(idx)} seeds, {head})"}
        for j, lab in enumerate(t.labels):
            row[lab] = float(np.mean(t.shown[idx, j]))
        table.append(row)
    lines += [to_markdown(table), ""]
    if t.missing:
        lines += ["## Missing or incomplete runs", ""]
        lines += [f"- {lab}: {len(v)} ({', '.join(v[:6])}{' ...' if len(v) > 6 else ''})"
                  for lab, v in t.missing.items()]  # fmt: skip
        lines += [""] + crash_lines(runs)
    lines += [""] + copy_lines(runs) + version_lines(runs)
    (out / "README.md").write_text("\n".join(lines) + "\n")
    np.savez(out / "finals.npz", stat=t.stat, shown=t.shown, feasible_share=t.feasible_share,
             labels=np.array(t.labels),
             cells=np.array([f"{p}/seed{s}" for p, s in t.cells]))  # fmt: skip
    print((out / "README.md").read_text())
