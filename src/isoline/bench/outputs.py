"""Final values of benchmark runs with several outputs, per (problem, seed) cell.

Several objectives: a run's final hypervolume (:meth:`Objective.hypervolume` of its
feasible rows against the problem's reference point, 0 when no row dominates it) and its
log hypervolume difference, ``log10(HV_ref - HV)``, where ``HV_ref`` is the larger of the
problem's known maximal hypervolume and the hypervolume of every run's rows in the cell
together (the best front any run found); a difference below ``1e-12 * HV_ref`` counts as
that floor, so a run that found the reference front is finite and ranked first.

One objective with constraints: a run's best feasible value (``inf`` when no evaluation
was feasible: such runs rank last, tied among themselves), its log regret
``log10(best - f_ref)`` against the lower of the known optimum and the best feasible
value any run reached in the cell (floor ``1e-12`` times that value's magnitude, at least
``1e-12``), where a run without a feasible point gets one decade above the worst log
regret in the cell (so the paired tests can use it), and the fraction of its evaluations
that were feasible. Ranks and regrets are taken on the minimized values (a maximized
objective negated); the shown value is the user's (the highest feasible one when
maximized, ``-inf`` for none).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from isoline.bench.config import BenchConfig
from isoline.bench.run_data import RunData

__all__ = ["CellTable", "constrained_cells", "hypervolume_cells", "kind_of"]

#: relative floor of a difference to the reference (hypervolume or best value)
FLOOR = 1e-12


@dataclass(frozen=True)
class CellTable:
    """Per complete cell and contender: ``F`` ranks them (lower is better), ``stat`` is the
    value the paired tests use, ``shown`` is what the report prints (hypervolume or best
    feasible value), ``feasible_share`` the fraction of feasible evaluations."""

    labels: list[str]
    cells: list[tuple[str, int]]
    F: np.ndarray
    stat: np.ndarray
    shown: np.ndarray
    feasible_share: np.ndarray
    missing: dict[str, list[str]]


def kind_of(runs: list[RunData]) -> str:
    """``"multi-objective"``, ``"constrained"`` or ``"single"``: what the runs optimized
    (ValueError when a config mixes them)."""
    kinds = {
        "single" if r.outputs is None
        else "multi-objective" if r.objective.n_objectives > 1 else "constrained"
        for r in runs
    }  # fmt: skip
    if len(kinds) > 1:
        raise ValueError(f"the runs mix {sorted(kinds)}: summarize them in separate configs")
    return kinds.pop() if kinds else "single"


def _complete(
    cfg: BenchConfig, runs: list[RunData]
) -> tuple[list[str], list[tuple[str, int]], list[list[RunData]], dict[str, list[str]]]:
    labels = [m.label for m in cfg.methods]
    by = {(r.spec.problem.label, r.spec.seed, r.spec.method.label): r for r in runs}
    cells, rows = [], []
    missing: dict[str, list[str]] = {}
    for p in cfg.problems:
        budget = p.budget or cfg.budget
        for s in cfg.seeds:
            got = [by.get((p.label, s, lab)) for lab in labels]
            done = [r for r in got if r is not None and len(r.values) >= budget]
            for lab, r in zip(labels, got):
                if r is None or len(r.values) < budget:
                    missing.setdefault(lab, []).append(f"{p.label}/seed{s}")
            if len(done) == len(labels):
                cells.append((p.label, s))
                rows.append([_cut(r, budget) for r in done])
    return labels, cells, rows, missing


def _cut(r: RunData, budget: int) -> RunData:
    """The run's first ``budget`` evaluations (a resumed run may hold a few more)."""
    if len(r.values) == budget:
        return r
    outputs = None if r.outputs is None else r.outputs[:budget]
    return replace(r, values=r.values[:budget], outputs=outputs)


def hypervolume_cells(
    cfg: BenchConfig, runs: list[RunData], problem_of: Callable[[Any], Any]
) -> CellTable:
    """Final hypervolumes of multi-objective runs: ``shown`` is the hypervolume,
    ``F = stat`` the log hypervolume difference. ``problem_of(spec)`` builds a run's
    problem (its ``ref_point`` and ``max_hypervolume``)."""
    labels, cells, rows, missing = _complete(cfg, runs)
    k = len(labels)
    hv, logd, share = (np.empty((len(cells), k)) for _ in range(3))
    for i, row in enumerate(rows):
        problem = problem_of(row[0].spec)
        spec = row[0].objective
        union = np.vstack([r.outputs for r in row if r.outputs is not None])
        ref = problem.ref_point if problem.ref_point is not None else spec.reference_point(union)
        best = max(spec.hypervolume(union, ref), problem.max_hypervolume or 0.0)
        for j, r in enumerate(row):
            assert r.outputs is not None
            hv[i, j] = spec.hypervolume(r.outputs, ref)
            gap = max(best - hv[i, j], FLOOR * best) if best > 0 else 1.0
            logd[i, j] = np.log10(gap)
            share[i, j] = float(np.mean(spec.feasible(r.outputs)))
    return CellTable(labels, cells, logd, logd, hv, share, missing)


def constrained_cells(
    cfg: BenchConfig, runs: list[RunData], problem_of: Callable[[Any], Any]
) -> CellTable:
    """Final best feasible values of constrained runs with one objective: ``F`` the best
    feasible value minimized (``inf``: none), ``shown`` the same in the user's direction,
    ``stat`` the log regret (see the module docstring). ``problem_of(spec)`` builds a
    run's problem (its ``optimum``, in the user's direction)."""
    labels, cells, rows, missing = _complete(cfg, runs)
    k = len(labels)
    best, stat, share, sign = (np.empty((len(cells), k)) for _ in range(4))
    for i, row in enumerate(rows):
        optimum = getattr(problem_of(row[0].spec), "optimum", None)
        for j, r in enumerate(row):
            assert r.outputs is not None
            ok = r.objective.feasible(r.outputs)
            share[i, j] = float(np.mean(ok))
            v = r.objective.internal(r.outputs)[ok, 0]  # minimized
            best[i, j] = float(np.min(v)) if ok.any() else np.inf
            sign[i, j] = -1.0 if r.objective.directions[0] == "maximize" else 1.0
        if optimum is not None:
            optimum = sign[i, 0] * float(optimum)
        finite = best[i][np.isfinite(best[i])]
        if finite.size == 0:
            stat[i] = 0.0  # no contender found a feasible point: all tie
            continue
        ref = min(float(finite.min()), np.inf if optimum is None else float(optimum))
        floor = max(FLOOR * abs(ref), FLOOR)
        with np.errstate(invalid="ignore"):
            logr = np.log10(np.maximum(best[i] - ref, floor))
        worst = float(np.max(logr[np.isfinite(best[i])]))
        stat[i] = np.where(np.isfinite(best[i]), logr, worst + 1.0)
    return CellTable(labels, cells, best, stat, sign * best, share, missing)
