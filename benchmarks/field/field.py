"""isoline against the field (issue 18): run a suite config, then summarize it.

    python benchmarks/field/field.py run benchmarks/field/bbob.yaml --storage S \
        [--problems REGEX] [--seeds 0-2] [--workers 2]
    python benchmarks/field/field.py summary benchmarks/field/bbob.yaml --storage S \
        --out benchmarks/results/field/bbob

``run`` runs (or resumes) the config's studies into the store, a part at a time if asked.
``summary`` reads every finished study and writes, per suite: each contender's mean rank
with a 95% bootstrap interval over (problem, seed) cells; the normalized score (bayesmark
style: 0 = the best value any contender reached in that cell, 1 = random search's median
over the suite's seeds); paired one-sided Wilcoxon tests of the best contender against
every other (Benjamini-Hochberg); for BBOB the fraction of (function, target) pairs solved
against evaluations (ECDF, PNG); the suggestion time per run (the wall time between a
result's arrival and the next point's start, summed); and failures (failed evaluations,
unfinished or crashed runs). The commit and command are written beside the tables.
Suites with several objectives or constraints get their own metrics (hypervolume, best
feasible value; see ``outputs_summary.py``).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(1, str(Path(__file__).resolve().parent))  # its sibling outputs_summary

import json
import re
import shlex
import time
from collections import defaultdict

import numpy as np
from scipy import stats

from isoline.bench.config import BenchConfig, load_config
from isoline.bench.outputs import kind_of
from isoline.bench.ranks import (
    cell_ranks,
    mean_interval,
    mean_rank_interval,
    normalized_scores,
    stand_in_column,
    stand_in_ranks,
    wilcoxon_against_best,
)
from isoline.bench.report import (
    RunData,
    collect,
    copy_lines,
    crash_lines,
    git_commit,
    part_lines,
    suggestion_costs,
    version_lines,
)
from isoline.bench.runner import make_problem, report_crashes, run_bench
from isoline.bench.stats import benjamini_hochberg, to_markdown

#: the contender whose suggestion time the others are compared with
TIME_REFERENCE = "Optuna GP"


def _parts_file(storage: str) -> Path:
    return Path(storage + ".parts.jsonl")


def _contenders(cfg: BenchConfig, pattern: str | None) -> BenchConfig:
    """The config with only the contenders whose label ``pattern`` matches (all if ``None``)."""
    if not pattern:
        return cfg
    keep = [m for m in cfg.methods if re.search(pattern, m.label)]
    if not keep:
        raise SystemExit(f"--methods {pattern!r} matches no contender label")
    return dataclasses.replace(cfg, methods=keep)


def run(args: argparse.Namespace) -> None:
    full = load_config(args.config).subset(seeds=args.seeds, problems=args.problems)
    cfg = _contenders(full, args.methods)
    chosen = {m.label for m in cfg.methods}
    others = [r for r in full.runs() if r.method.label not in chosen]  # auto may copy them
    with _parts_file(args.storage).open("a") as fh:
        part = {"commit": git_commit(), "started": time.strftime("%Y-%m-%d %H:%M"),
                "command": shlex.join(["python", *sys.argv])}  # fmt: skip
        fh.write(json.dumps(part) + "\n")
    out = run_bench(cfg, args.storage, workers=args.workers, progress=not args.quiet,
                    others=others)  # fmt: skip
    done = sum(not s.skipped for s in out)
    print(f"{cfg.name}: {len(out)} runs, {done} run now, {len(out) - done} already finished")
    if report_crashes(out):
        raise SystemExit(1)


def _final(r: RunData) -> float:
    """Best noise-free value of a complete run, as precision above the optimum if known."""
    b = r.best_so_far()
    v = float(b[-1]) if len(b) and np.isfinite(b[-1]) else np.inf
    return v - r.optimum if r.optimum is not None and np.isfinite(v) else v


def _cells(
    cfg: BenchConfig, runs: list[RunData]
) -> tuple[list[str], list[tuple[str, int]], np.ndarray, dict[str, list[str]]]:
    """Contender labels, complete cells and ``F (cells, contenders)``; and per contender
    what is missing or incomplete."""
    labels = [m.label for m in cfg.methods]
    by = {(r.spec.problem.label, r.spec.seed, r.spec.method.label): r for r in runs}
    cells, rows = [], []
    missing: dict[str, list[str]] = defaultdict(list)
    for spec in cfg.runs():
        key = (spec.problem.label, spec.seed, spec.method.label)
        r = by.get(key)
        if r is None or len(r.values) < spec.budget:
            missing[spec.method.label].append(f"{spec.problem.label}/seed{spec.seed}")
    for p in cfg.problems:
        for s in cfg.seeds:
            got = [by.get((p.label, s, m)) for m in labels]
            budget = p.budget or cfg.budget
            if all(r is not None and len(r.values) >= budget for r in got):
                cells.append((p.label, s))
                rows.append([_final(r) for r in got if r is not None])
    return labels, cells, np.array(rows).reshape(-1, len(labels)), missing


def _random_median(cells: list[tuple[str, int]], F: np.ndarray, labels: list[str]) -> np.ndarray:
    j = labels.index("random")
    per_problem: dict[str, list[float]] = defaultdict(list)
    for (p, _), v in zip(cells, F[:, j]):
        per_problem[p].append(v)
    return np.array([np.median(per_problem[p]) for p, _ in cells])


def _auto_note(auto: int | None) -> str:
    """The sentence on how the auto contender is ranked, if it is a stand-in."""
    if auto is None:
        return ""
    return (" The auto contender runs the method it chooses, with the same seed: it is ranked "
            "as a stand-in for that method's run (which it repeats), the other contenders "
            "without it.")  # fmt: skip


def _auto_row(F: np.ndarray, a: np.ndarray, med: np.ndarray, best: int
              ) -> tuple[float, float, float, float, float, float]:  # fmt: skip
    """auto's mean rank with its bootstrap interval (as ``mean_rank_interval``), score
    mean and median, and raw p of the best contender against it."""
    mean, lo, hi = mean_interval(stand_in_ranks(F, a))
    S = normalized_scores(np.column_stack([F, a]), med)[:, -1]
    diff = a - F[:, best]
    p_auto = (
        stats.wilcoxon(a, F[:, best], alternative="greater").pvalue if np.any(diff != 0) else np.nan
    )
    return (float(mean[0]), float(lo[0]), float(hi[0]),
            float(np.nanmean(S)), float(np.nanmedian(S)), float(p_auto))  # fmt: skip


def _rank_table(labels: list[str], F: np.ndarray, med: np.ndarray, runs: list[RunData],
                cells: list[tuple[str, int]], auto: int | None = None) -> list[dict[str, object]]:  # fmt: skip
    """Rows of the rank table, best first. ``auto``: the column of the auto contender,
    ranked as a stand-in for the run it repeats (:func:`stand_in_ranks`); the other
    contenders are ranked without it."""
    auto_values = None
    if auto is not None:
        auto_label = labels[auto]
        auto_values = F[:, auto]
        F = np.delete(F, auto, axis=1)
        labels = [lab for j, lab in enumerate(labels) if j != auto]
    mean, lo, hi = mean_rank_interval(F)
    best, p, p_bh = wilcoxon_against_best(F)
    S = normalized_scores(F, med)
    score_mean = np.nanmean(S, axis=0)
    score_median = np.nanmedian(S, axis=0)
    if auto_values is not None:
        a_mean, a_lo, a_hi, a_smean, a_smed, a_p = _auto_row(F, auto_values, med, best)
        adjusted = benjamini_hochberg([*p.tolist(), a_p])
        p_bh = np.asarray(adjusted, dtype=float)
        labels = [*labels, auto_label]
        mean, lo, hi = np.append(mean, a_mean), np.append(lo, a_lo), np.append(hi, a_hi)
        score_mean = np.append(score_mean, a_smean)
        score_median = np.append(score_median, a_smed)
    keep = set(cells)
    costs = suggestion_costs(runs, keep, TIME_REFERENCE)
    failed: dict[str, int] = defaultdict(int)
    for r in runs:
        if (r.spec.problem.label, r.spec.seed) in keep:
            failed[r.spec.method.label] += r.n_failed
    rows = []
    for j in np.argsort(mean):
        lab = labels[j]
        rows.append({
            "contender": lab,
            "mean rank [95% CI]": f"{mean[j]:.2f} [{lo[j]:.2f}, {hi[j]:.2f}]",
            "score mean": float(score_mean[j]),
            "score median": float(score_median[j]),
            "p vs best (BH)": "best" if j == best else float(p_bh[j]),
            **costs.get(lab, {}),
            "failed evals": failed[lab],
        })  # fmt: skip
    return rows


def _per_problem(labels: list[str], F: np.ndarray, cells: list[tuple[str, int]],
                 auto: int | None) -> list[dict[str, object]]:  # fmt: skip
    """Rows of the per-problem table: each contender's mean rank on each problem's cells
    and, in brackets, its mean final value there; ``auto`` ranked as a stand-in, as in
    :func:`_rank_table`. Rows in the order of the overall mean rank."""
    others = [j for j in range(len(labels)) if j != auto]
    R = np.full(F.shape, np.nan)
    R[:, others] = cell_ranks(F[:, others])
    if auto is not None:
        R[:, auto] = stand_in_ranks(F[:, others], F[:, auto])
    by_problem: dict[str, list[int]] = defaultdict(list)
    for i, (p, _) in enumerate(cells):
        by_problem[p].append(i)
    rows = []
    for j in np.argsort(R.mean(axis=0)):
        row: dict[str, object] = {"contender": labels[j]}
        for prob, idx in by_problem.items():
            row[f"{prob} ({len(idx)})"] = f"{R[idx, j].mean():.2f} ({F[idx, j].mean():.4g})"
        rows.append(row)
    return rows


def _ecdf(
    cfg: BenchConfig, runs: list[RunData], cells: list[tuple[str, int]], out: Path
) -> list[str]:
    """Fraction of (function, target) pairs solved against evaluations / d, per dimension."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keep = set(cells)
    curves: dict[int, dict[str, list[np.ndarray]]] = defaultdict(lambda: defaultdict(list))
    problems: dict[tuple[str, int], object] = {}
    for r in runs:
        key = (r.spec.problem.label, r.spec.seed)
        if key not in keep or not hasattr(make_problem(r.spec), "fraction_solved"):
            continue
        if key not in problems:
            problems[key] = make_problem(r.spec)
        prob = problems[key]
        v = np.where(np.isfinite(r.values), r.values, np.inf)
        curves[prob.dim][r.spec.method.label].append(prob.fraction_solved(v))  # type: ignore[attr-defined]
    written = []
    for d, by_label in sorted(curves.items()):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        colors = plt.get_cmap("tab20").colors
        for i, lab in enumerate(m.label for m in cfg.methods):
            if lab in by_label:
                c = np.mean(by_label[lab], axis=0)
                own = lab.startswith("isoline")
                ax.plot(np.arange(1, len(c) + 1) / d, c, label=lab, color=colors[(2 * i) % 20 + (i >= 10)],
                        lw=2.2 if own else 1.3, ls="-" if own or lab == "random" else "--")  # fmt: skip
        ax.set_xlabel("evaluations / d")
        ax.set_ylabel("fraction of (function, target) pairs")
        ax.set_title(
            f"BBOB d = {d}: {len(next(iter(by_label.values())))} (function, instance) runs per contender"
        )
        ax.legend(fontsize=7, ncol=2)
        ax.grid(alpha=0.3)
        name = f"ecdf_d{d}.png"
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        written.append(name)
    return written


def _direction_note(cfg: BenchConfig) -> str:
    """What the values are in when the config maximizes (isoline minimizes the negated
    objective; ``F`` in ``finals.npz`` keeps those minimized values)."""
    if cfg.direction != "maximize":
        return ""
    return (" The config maximizes: isoline minimizes the objective negated, and the final "
            "values (F in finals.npz) are those minimized values, lower is better; a run's "
            "value is its highest objective value negated.")  # fmt: skip


def summary(args: argparse.Namespace) -> None:
    cfg = _contenders(
        load_config(args.config).subset(seeds=args.seeds, problems=args.problems), args.methods
    )
    runs = collect(cfg, args.storage)
    parts = (
        [json.loads(x) for x in _parts_file(args.storage).read_text().splitlines()]
        if _parts_file(args.storage).exists()
        else []
    )
    kind = kind_of(runs)
    if kind != "single":  # several objectives or constraints: their own metrics
        from outputs_summary import summarize

        summarize(args, cfg, runs, kind, parts)
        return
    if "random" not in (m.label for m in cfg.methods):
        raise SystemExit(
            f"{cfg.name} has no contender labelled 'random': a one-objective summary scores "
            "each run against random search's median; pooled_pairs.py --suite compares two "
            "contenders without it"
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    labels, cells, F, missing = _cells(cfg, runs)
    if not cells:
        raise SystemExit("no cell has a complete run of every contender yet")
    med = _random_median(cells, F, labels)
    auto = stand_in_column(F, cfg.auto_index)
    lines = [
        f"# {cfg.name}: isoline against the field",
        "",
        "Runs (commit, start, command of each part; a later part re-runs only the studies not finished):",
        "",
    ]
    lines += part_lines(parts) + [
        "", f"Summary: `python benchmarks/field/field.py summary {args.config} --storage S --out {args.out}"
        f"{' --methods ' + shlex.quote(args.methods) if args.methods else ''}"
        f"{' --seeds ' + args.seeds if args.seeds else ''}"
        f"{' --problems ' + shlex.quote(args.problems) if args.problems else ''}` "
        f"at {git_commit()}.", "",
        f"{len(cells)} complete cells (problem x seed) of {len(cfg.problems) * len(cfg.seeds)} in the config. "
        "Values are the best noise-free value of each run (precision above the optimum where the "
        "problem knows it). Rank 1 = best in a cell; the interval is a 95% percentile bootstrap "
        "over cells; score 0 = best value of any contender in the cell, 1 = random search's "
        "median on that problem; p: paired one-sided Wilcoxon test of the best-ranked contender "
        "against each, Benjamini-Hochberg over the table; suggestion time: wall seconds between "
        f"a result and the next point (median over runs), and the summed time over {TIME_REFERENCE}'s; "
        "CPU: the CPU seconds of the method's ask and tell (median over runs, and summed over "
        f"{TIME_REFERENCE}'s; unaffected by other jobs on the machine, blank for runs stored "
        "before it was recorded)."
        + _auto_note(auto)
        + _direction_note(cfg),
        "", "## All complete cells", "", to_markdown(_rank_table(labels, F, med, runs, cells, auto)), ""]  # fmt: skip
    groups: dict[str, list[int]] = defaultdict(list)
    for i, (p, _) in enumerate(cells):
        m = re.search(r"-d(\d+)$", p)
        groups[f"d = {m.group(1)}" if m else "other problems"].append(i)
    if len(groups) > 1:
        by_dim = sorted(
            groups.items(), key=lambda kv: (not kv[0].startswith("d = "), len(kv[0]), kv[0])
        )
        for g, idx in by_dim:
            if len(idx) >= 2:
                lines += [f"## {g} ({len(idx)} cells)", "",
                          to_markdown(_rank_table(labels, F[idx], med[idx], runs, [cells[i] for i in idx], auto)), ""]  # fmt: skip
    if len({p for p, _ in cells}) > 1:
        lines += ["## Per problem: mean rank (mean final value), cells in brackets", "",
                  to_markdown(_per_problem(labels, F, cells, auto)), ""]  # fmt: skip
    pngs = _ecdf(cfg, runs, cells, out)
    if pngs:
        lines += ["## Fraction of (function, target) pairs solved (COCO's 51 targets)", ""]
        lines += [f"![{p}]({p})" for p in pngs] + [""]
    if missing:
        lines += ["## Missing or incomplete runs", ""]
        lines += [
            f"- {lab}: {len(v)} ({', '.join(v[:6])}{' ...' if len(v) > 6 else ''})"
            for lab, v in missing.items()
        ]
        lines += [""] + crash_lines(runs)
    lines += [""] + copy_lines(runs) + version_lines(runs)
    (out / "README.md").write_text("\n".join(lines) + "\n")
    np.savez(
        out / "finals.npz",
        F=F,
        direction=np.array(cfg.direction),
        labels=np.array(labels),
        cells=np.array([f"{p}/seed{s}" for p, s in cells]),
    )
    print((out / "README.md").read_text())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run or resume a suite (or part of it)")
    r.add_argument("config")
    r.add_argument("--storage", required=True)
    r.add_argument("--problems", help="regular expression on problem labels")
    r.add_argument("--seeds", help="e.g. 0-2 or 0,3")
    r.add_argument("--methods", help="regular expression on contender labels")
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--quiet", action="store_true")
    r.set_defaults(func=run)
    s = sub.add_parser("summary", help="tables and plots of the finished cells")
    s.add_argument("config")
    s.add_argument("--storage", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--methods", help="regular expression on contender labels: rank only these")
    s.add_argument("--seeds", help="only these seeds, e.g. 5-9")
    s.add_argument("--problems", help="regular expression on problem labels: only these")
    s.set_defaults(func=summary)
    args = ap.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
