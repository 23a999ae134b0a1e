"""The method's CPU time per run (``attrs["method_cpu"]``), which reports compare instead
of wall time on a shared machine."""

from __future__ import annotations

import time

import numpy as np
import pytest

import isoline as iso
from isoline.bench.config import parse_config
from isoline.bench.report import collect, suggestion_costs
from isoline.run_loop import METHOD_CPU
from isoline.store import Store

#: CPU seconds each evaluation of :func:`_busy` burns
BUSY = 0.2


def _busy(x: np.ndarray) -> float:
    end = time.process_time() + BUSY
    while time.process_time() < end:
        pass
    return float(np.sum(x**2))


def _method_cpu(db: str, study: str) -> float:
    with Store(db) as store:
        rec = store.get_study(study)
        assert rec is not None
        return float(rec.attrs[METHOD_CPU])


def test_method_cpu_counts_the_method_and_not_the_objective(tmp_path) -> None:
    db = str(tmp_path / "s.db")
    box = iso.Box([-1.0] * 2, [1.0] * 2)
    iso.minimize(_busy, box, "random", budget=6, seed=0, storage=db, study="r")
    spent = _method_cpu(db, "r")
    # the objective burnt 6 * BUSY seconds in this process; random search's own asks and
    # tells take a small part of one such evaluation
    assert 0.0 < spent < BUSY
    iso.minimize(lambda x: float(np.sum(x**2)), box, "gp-ei", budget=8, seed=0,
                 storage=db, study="g")  # fmt: skip
    assert _method_cpu(db, "g") > spent  # fitting GPs costs more than drawing points


def test_method_cpu_accumulates_over_a_resume(tmp_path) -> None:
    db = str(tmp_path / "s.db")
    box = iso.Box([-1.0] * 2, [1.0] * 2)
    calls = []

    def stop_at_five(x: np.ndarray) -> float:
        calls.append(1)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return float(np.sum(x**2))

    with pytest.raises(KeyboardInterrupt):
        iso.minimize(stop_at_five, box, "gp-ei", budget=8, seed=0, storage=db, study="s")
    before = _method_cpu(db, "s")
    iso.minimize(stop_at_five, box, "gp-ei", budget=8, seed=0, storage=db, study="s")
    assert _method_cpu(db, "s") > before > 0.0


def test_reports_read_method_cpu_and_leave_old_runs_blank(tmp_path) -> None:
    db = str(tmp_path / "b.db")
    cfg = parse_config({
        "name": "t", "budget": 4, "seeds": 1, "methods": ["random", "sobol"],
        "problems": [{"name": "ackley", "dim": 2}],
    })  # fmt: skip
    from isoline.bench.runner import run_bench

    run_bench(cfg, db, workers=1, progress=False)
    with Store(db) as store:  # a run stored before the CPU time was recorded
        rec = store.get_study("t/ackley-d2/sobol/seed0")
        assert rec is not None
        store.update_attr(rec, METHOD_CPU, lambda old: None)
    runs = {r.spec.method.label: r for r in collect(cfg, db)}
    assert runs["random"].suggest_cpu == _method_cpu(db, "t/ackley-d2/random/seed0") > 0.0
    assert np.isnan(runs["sobol"].suggest_cpu)
    cells = {("ackley-d2", 0)}
    costs = suggestion_costs(list(runs.values()), cells, "random")
    assert costs["random"]["CPU x random"] == 1.0
    assert np.isnan(costs["sobol"]["CPU x random"])
