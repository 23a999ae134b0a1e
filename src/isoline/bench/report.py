"""Benchmark report: convergence plots, final-value and wall-time tables in Markdown."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from isoline.bench.config import BenchConfig, RunSpec
from isoline.bench.plots import plot_convergence
from isoline.objective import Objective
from isoline.run_loop import METHOD_CPU
from isoline.store import Store, Trial

__all__ = ["RunData", "collect", "crash_lines", "part_lines", "version_lines", "write_report"]


@dataclass
class RunData:
    """One finished or partial run as the report sees it."""

    spec: RunSpec
    values: np.ndarray  # (n,) noise-free where known, NaN for failed evaluations
    wall_time: float
    n_failed: int
    optimum: float | None
    #: the point of the run's best value as the objective took it (a configuration dict
    #: on a typed space, ``{name: value}`` on a named Box, else a list), or ``None``
    best_point: Any = None
    #: seconds of wall time between a batch's last result and the next batch's first
    #: start, summed (the first batch counts from the study's creation, the first after a
    #: resume from the resume): the method's suggestion time plus the store's bookkeeping
    suggest_time: float = 0.0
    #: the exception an unfinished run last stopped on (``"TypeError: ..."``), else ``None``
    crash: str | None = None
    #: ``{package: version}`` the run was made with (:func:`isoline.runs.package_versions`);
    #: empty for runs stored before isoline recorded them
    versions: dict[str, str] = field(default_factory=dict)
    #: what the run optimized (the study's record)
    objective: Objective = field(default_factory=Objective)
    #: ``(n, m)`` rows of outputs (user units, NaN rows for failed evaluations) of a run
    #: with several outputs, else ``None``; with constraints and one objective,
    #: :attr:`values` holds the objective of the feasible rows only (NaN elsewhere)
    outputs: np.ndarray | None = None
    #: CPU seconds of the method's ``ask`` and ``tell`` over the run
    #: (:data:`isoline.run_loop.METHOD_CPU`; NaN for a run stored before it was recorded):
    #: unlike :attr:`suggest_time`, unaffected by other jobs on the machine
    suggest_cpu: float = float("nan")

    @property
    def sign(self) -> float:
        """``-1.0`` when the run maximized its one objective (:attr:`values` and
        :meth:`curve` then hold the negated values, as the methods minimized them; times
        ``sign`` they are the user's again), else ``1.0``."""
        o = self.objective
        return -1.0 if o.n_objectives == 1 and o.maximize else 1.0

    def best_so_far(self) -> np.ndarray:
        v = np.where(np.isfinite(self.values), self.values, np.inf)
        run = np.minimum.accumulate(v) if len(v) else v
        return np.where(np.isfinite(run), run, np.nan)

    def curve(self) -> np.ndarray:
        """Best value so far, or simple regret when the optimum is known."""
        b = self.best_so_far()
        return b if self.optimum is None else np.maximum(b - self.optimum, 0.0)


def _value(t: Trial) -> float:
    if t.status != "ok":
        return np.nan
    if t.info and "noise_free" in t.info:
        return float(t.info["noise_free"])
    return np.nan if t.y is None else float(t.y)


def _optimum(spec: RunSpec, cache: dict[tuple[str, int], float | None]) -> float | None:
    key = (spec.problem.label, spec.seed)
    if key not in cache:
        from isoline.bench.runner import make_problem

        try:
            cache[key] = getattr(make_problem(spec), "optimum", None)
        except Exception:  # noqa: BLE001 - the report still shows raw values
            cache[key] = None
    return cache[key]


def collect(cfg: BenchConfig, storage: str) -> list[RunData]:
    """Every run of ``cfg`` present in ``storage`` (missing runs are left out)."""
    out: list[RunData] = []
    cache: dict[tuple[str, int], float | None] = {}
    with Store(storage, create=False, readonly=True) as store:
        for spec in cfg.runs():
            rec = store.get_study(spec.study)
            if rec is None:
                continue
            trials = [t for t in store.trials(rec) if t.status != "pending"]
            if not trials:
                continue
            starts = [t.started for t in trials if t.started]
            ends = [t.finished for t in trials if t.finished]
            wall = (max(ends) - min(rec.created, *starts)) if ends else 0.0
            values = np.array([_value(t) for t in trials])
            objective = Objective.from_dict(rec.attrs.get("objective"))
            outputs = None if objective.single else _outputs(trials, objective.n_outputs)
            if outputs is not None and objective.n_objectives == 1:
                values = np.where(objective.feasible(outputs), values, np.nan)
            maximized = objective.n_objectives == 1 and objective.maximize
            if maximized:  # ranked lower-is-better: minus the values (RunData.sign)
                values = -values
            out.append(
                RunData(
                    spec,
                    values,
                    wall,
                    sum(t.status == "failed" for t in trials),
                    None if maximized else _optimum(spec, cache),
                    _best_point(trials, values, rec.space),
                    _suggest_time(trials, rec.created, rec.attrs.get("resumed", [])),
                    None if rec.finished else _last_crash(rec.attrs),
                    dict(rec.attrs.get("versions", {})),
                    objective,
                    outputs,
                    _method_cpu(rec.attrs),
                )
            )
    return out


def _outputs(trials: list[Trial], m: int) -> np.ndarray:
    """``(n, m)`` output rows of a study's trials; NaN rows where a trial failed."""
    rows = [
        np.asarray(t.outputs, dtype=float)
        if t.status == "ok" and t.outputs is not None
        else np.full(m, np.nan)
        for t in trials
    ]
    return np.array(rows, dtype=float).reshape(-1, m)


def _last_crash(attrs: dict[str, Any]) -> str | None:
    crashes = attrs.get("crashes", [])
    return str(crashes[-1]["error"]) if crashes else None


def crash_lines(runs: list[RunData]) -> list[str]:
    """Markdown lines naming each unfinished run that stopped on an exception."""
    crashed = [r for r in runs if r.crash is not None]
    if not crashed:
        return []
    lines = ["## Crashed runs", "", "Unfinished runs that stopped on an exception (their "
             "evaluations are kept; running the command again resumes them):", ""]  # fmt: skip
    lines += [f"- {r.spec.study} after {len(r.values)} evaluations: {r.crash}" for r in crashed]
    return lines + [""]


def part_lines(parts: list[dict[str, Any]]) -> list[str]:
    """Indented lines, one per entry of a store's run log (``STORE.parts.jsonl``): the
    commit, start and command of each stretch of runs, and each deletion of studies (made
    again later) with when, which, why and the command."""
    lines = []
    for p in parts:
        if "deleted" in p:
            lines.append(f"    deleted {p['deleted']}: {p['studies']} ({p['why']}): {p['command']}")
        else:
            lines.append(f"    {p['commit']} {p['started']}: {p['command']}")
    return lines


def version_lines(runs: list[RunData]) -> list[str]:
    """Markdown lines with the package versions the runs were made with: one line per
    distinct set, with its number of runs (several sets: the environment changed between
    runs, which can change model-based trajectories)."""
    sets = Counter(tuple(sorted(r.versions.items())) for r in runs)
    if not sets:
        return []
    lines = ["## Package versions", ""]
    for versions, n in sets.most_common():
        text = ", ".join(f"{k} {v}" for k, v in versions) if versions else "not recorded"
        lines.append(f"- {n} runs: {text}")
    return lines + [""]


def _method_cpu(attrs: dict[str, Any]) -> float:
    """:attr:`RunData.suggest_cpu` from a study's attributes (NaN if absent or malformed)."""
    value = attrs.get(METHOD_CPU)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return float("nan")


def _suggest_time(trials: list[Trial], created: float, resumed: list[float]) -> float:
    """:attr:`RunData.suggest_time`; a batch that follows a resume (``resumed``: the times
    a reopened study went on after its replay) counts from the resume, so neither the
    interruption nor the replay is taken for suggestion time."""
    starts: dict[int, float] = {}
    ends: dict[int, float] = {}
    for t in trials:
        if t.started is not None:
            starts[t.batch] = min(starts.get(t.batch, t.started), t.started)
        if t.finished is not None:
            ends[t.batch] = max(ends.get(t.batch, t.finished), t.finished)
    total, last = 0.0, created
    for b in sorted(starts):
        last = max([last, *(r for r in resumed if r <= starts[b])])
        total += max(starts[b] - last, 0.0)
        last = ends.get(b, starts[b])
    return total


def _best_point(trials: list[Trial], values: np.ndarray, space: dict[str, Any]) -> Any:
    """The best trial's point with its parameter names (decoded for a typed space)."""
    ok = np.flatnonzero(np.isfinite(values))
    if not ok.size:
        return None
    t = trials[int(ok[np.argmin(values[ok])])]
    if "params" in space and isinstance(t.x, dict):  # a conditional space's: active ones only
        return {p["name"]: t.x[p["name"]] for p in space["params"] if p["name"] in t.x}
    if "params" in space:
        return {p["name"]: v for p, v in zip(space["params"], _decoded(t, space))}
    names = space.get("names")
    x = [float(v) for v in np.ravel(t.x)]
    return dict(zip(names, x)) if names else x


def _decoded(t: Trial, space: dict[str, Any]) -> list[Any]:
    """The configuration of a typed-space trial, as stored with it (``x``)."""
    x = t.x
    if isinstance(x, dict):
        return [x[p["name"]] for p in space["params"]]
    return list(np.ravel(x))


def _fmt_point(point: Any) -> str:
    def one(v: Any) -> str:
        return f"{v:.4g}" if isinstance(v, float) else repr(v)

    if isinstance(point, dict):
        return "{" + ", ".join(f"{k}: {one(v)}" for k, v in point.items()) + "}"
    return "[" + ", ".join(one(v) for v in point) + "]"


def _fmt(v: float) -> str:
    return "nan" if not np.isfinite(v) else f"{v:.4g}"


def final_table(runs: list[RunData]) -> list[dict[str, Any]]:
    """Per method: runs, evaluations, final mean/SEM/median, wall time, failures."""
    rows = []
    for label in dict.fromkeys(r.spec.method.label for r in runs):
        rs = [r for r in runs if r.spec.method.label == label]
        finals = np.array([r.curve()[-1] for r in rs])
        finals = finals[np.isfinite(finals)]
        rows.append(
            {
                "method": label,
                "runs": len(rs),
                "evals": int(np.mean([len(r.values) for r in rs])),
                "mean": float(np.mean(finals)) if finals.size else np.nan,
                "sem": float(np.std(finals, ddof=1) / np.sqrt(finals.size))
                if finals.size > 1
                else 0.0,
                "median": float(np.median(finals)) if finals.size else np.nan,
                "wall": float(np.mean([r.wall_time for r in rs])),
                "failed": int(sum(r.n_failed for r in rs)),
                "finals": finals,
            }
        )
    return rows


def write_report(
    cfg: BenchConfig, storage: str, out_dir: str | Path, command: str | None = None
) -> Path:
    """Write ``report.md`` and one PNG per problem into ``out_dir``; return the report path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    runs = collect(cfg, storage)
    out.mkdir(parents=True, exist_ok=True)
    finals: dict[str, dict[str, np.ndarray]] = {}
    lines = [
        f"# Benchmark report: {cfg.name}",
        "",
        f"Generated {time.strftime('%Y-%m-%d %H:%M:%S')} from `{storage}`"
        + (f" by `{command}`" if command else "")
        + f"; commit `{git_commit()}`.",
        f"Budget {cfg.budget} evaluations, seeds {cfg.seeds}, batch size {cfg.batch_size}.",
        "Values are noise-free where the problem is noisy; with a known optimum the",
        "tables and plots show simple regret (best value so far minus the optimum).",
        "Bands and +- are one standard error of the mean over seeds.",
        "",
    ]
    if cfg.direction == "maximize":
        lines[-1:-1] = [
            "The config maximizes: best values in the tables, best points and plots are",
            "the highest ones, in the objective's own sign; the statistics compare the",
            "minimized values (the objective negated, as isoline optimizes it).",
        ]
    for prob in cfg.problems:
        pruns = [r for r in runs if r.spec.problem.label == prob.label]
        if not pruns:
            lines += [f"## {prob.label}", "", "No runs stored yet.", ""]
            continue
        if pruns[0].outputs is not None and pruns[0].objective.n_objectives > 1:
            from isoline.bench.report_outputs import hypervolume_section, run_problem

            lines += hypervolume_section(prob.label, pruns, run_problem(pruns), out)
            continue
        regret = all(r.optimum is not None for r in pruns)
        sign = pruns[0].sign  # the tables and plots show the user's values
        what = "simple regret" if regret else "best value"
        if sign < 0:
            what = "best value, maximized"
        curves: dict[str, list[np.ndarray]] = {}
        for r in pruns:
            curves.setdefault(r.spec.method.label, []).append(sign * r.curve())
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        positive = regret and all(
            np.isfinite(c).any() and np.nanmin(c) > 0 for cs in curves.values() for c in cs
        )
        plot_convergence(curves, ax=ax, title=prob.label, ylabel=what, log=positive)
        png = f"{_safe(prob.label)}.png"
        fig.tight_layout()
        fig.savefig(out / png, dpi=110)
        plt.close(fig)
        rows = final_table(pruns)
        # the best mean, compared in minimized units
        best = min((r["mean"] for r in rows if np.isfinite(r["mean"])), default=np.nan)
        lines += [f"## {prob.label}", "", f"![{prob.label}]({png})", ""]
        lines += [
            f"| method | runs | evals | final {what} (mean +- SEM) | median | wall time / run (s) | failed evals |",
            "|---|---|---|---|---|---|---|",
        ]
        for row in rows:
            mean = _fmt(sign * row["mean"])
            if row["mean"] == best:
                mean = f"**{mean}**"
            cell, median = f"{mean} +- {_fmt(row['sem'])}", _fmt(sign * row["median"])
            if pruns[0].outputs is not None and not np.isfinite(row["mean"]):
                cell = median = "none feasible"  # constrained: no run of the method found one
            lines.append(
                f"| {row['method']} | {row['runs']} | {row['evals']} | {cell} | "
                f"{median} | {row['wall']:.2f} | {row['failed']} |"
            )
        lines.append("")
        if pruns[0].outputs is not None:  # one objective with constraints
            from isoline.bench.report_outputs import feasibility_lines

            lines += feasibility_lines(pruns)
        lines += _best_points(pruns)
        finals[prob.label] = {r["method"]: r["finals"] for r in rows}
    against = cfg.report.get("against")
    if against:
        lines += _stats_section(finals, against)
    lines += crash_lines(runs)
    lines += version_lines(runs)
    path = out / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def _best_points(runs: list[RunData]) -> list[str]:
    """One line per method: its best point over all runs, with parameter names."""
    out = []
    for label in dict.fromkeys(r.spec.method.label for r in runs):
        rs = [r for r in runs if r.spec.method.label == label and r.best_point is not None]
        if not rs:
            continue
        best = min(rs, key=lambda r: float(np.nanmin(r.values)))
        value = best.sign * float(np.nanmin(best.values))  # the user's: highest if maximized
        out.append(
            f"- {label}: best value {value:.6g} (seed {best.spec.seed}) at "
            f"{_fmt_point(best.best_point)}"
        )
    return ["Best point of each method over its runs:", "", *out, ""] if out else []


def _stats_section(finals: dict[str, dict[str, np.ndarray]], against: str) -> list[str]:
    """KS normality and BH-corrected one-sided t-tests against ``against`` (NeuralBO
    paper Tables 1-2), over the problems where ``against`` has results."""
    from isoline.bench.stats import markdown_ks_table, markdown_ttest_table, ttest_table

    cells = {c: m for c, m in finals.items() if against in m and len(m) > 1}
    if not cells:
        return []
    return [
        "## Statistics",
        "",
        "Kolmogorov-Smirnov normality p-values of the final values:",
        "",
        markdown_ks_table(cells),
        "",
        f"One-sided t-tests, H0: baseline mean <= {against} mean (entry: p-value, and T when",
        "H0 is rejected at FDR 0.05 after Benjamini-Hochberg over the whole table), i.e. T",
        f"where the baseline is significantly worse than {against}:",
        "",
        markdown_ttest_table(ttest_table(cells, against)),
        "",
        f"The other direction, H0: baseline mean >= {against} mean, i.e. T where the baseline",
        f"is significantly better than {against}:",
        "",
        markdown_ttest_table(ttest_table(cells, against, alternative="less")),
        "",
    ]


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label)


def git_commit(where: str | Path | None = None) -> str:
    """Short commit of the git checkout holding ``where`` (default: this isoline package,
    so a benchmark run from a worktree names the worktree's commit), or ``"unknown"``."""
    import subprocess

    where = Path(__file__).parent if where is None else Path(where)
    try:
        return (
            subprocess.run(
                ["git", "-C", str(where), "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                timeout=5,
            ).stdout.strip()  # fmt: skip
            or "unknown"
        )
    except Exception:  # noqa: BLE001
        return "unknown"


def suggestion_costs(
    runs: list[RunData], cells: set[tuple[str, int]], reference: str
) -> dict[str, dict[str, float]]:
    """Per contender label, over its runs in ``cells`` (``(problem label, seed)``): the
    median suggestion wall time per run, the summed wall time over ``reference``'s, and
    the same two for the method's CPU time (:attr:`RunData.suggest_cpu`; NaN when a run
    did not record it)."""
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for r in runs:
        if (r.spec.problem.label, r.spec.seed) in cells:
            wall.setdefault(r.spec.method.label, []).append(r.suggest_time)
            cpu.setdefault(r.spec.method.label, []).append(r.suggest_cpu)
    ref_wall = float(np.sum(wall[reference])) if reference in wall else np.nan
    ref_cpu = float(np.sum(cpu[reference])) if reference in cpu else np.nan
    return {
        lab: {
            "suggest s/run (median)": float(np.median(wall[lab])),
            f"time x {reference}": float(np.sum(wall[lab])) / ref_wall,
            "CPU s/run (median)": float(np.median(cpu[lab])),
            f"CPU x {reference}": float(np.sum(cpu[lab])) / ref_cpu,
        }
        for lab in wall
    }
