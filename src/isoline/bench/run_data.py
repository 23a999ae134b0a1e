"""Reading a benchmark's runs from the store: one :class:`RunData` per stored run.

:func:`collect` reads every run of a config present in a store: its values (noise-free
where known, minus the values of a maximized objective), wall and suggestion times, the
best point, the exception an unfinished run stopped on, the package versions and, for a
run with several outputs, its output rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from isoline.bench.config import BenchConfig, RunSpec
from isoline.bench.preflight import make_problem
from isoline.objective import Objective
from isoline.run_loop import METHOD_CPU
from isoline.store import Store, Trial

__all__ = ["RunData", "collect"]


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
    #: the study an auto run was stored as a copy of (:mod:`isoline.bench.twins`), else None
    copied_from: str | None = None

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
                    rec.attrs.get("copied_from"),
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
