"""benchmarks/store_parts.py: a bench store's finished runs saved in parts and restored."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import isoline as iso
from isoline.store import Store

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "store_parts.py"


def _run(db, name, budget=3):
    iso.minimize(lambda x: float(np.sum(x**2)), iso.Box([0], [1]), "random", budget=budget,
                 seed=len(name), storage=db, study=name)  # fmt: skip


def test_each_part_holds_only_the_runs_finished_since_the_last_and_restore_joins_them(
    script,
    tmp_path,
) -> None:
    parts = script
    db, folder = str(tmp_path / "bench.db"), tmp_path / "runs"
    _run(db, "a")
    _run(db, "b")
    first = parts.save(db, folder)
    assert parts.save(db, folder) is None
    _run(db, "c")
    with Store(db) as store:  # an unfinished study stays out of the parts
        store.create_study("d", "random", 0, 1, {}, {"lower": [0.0], "upper": [1.0]}, 5)
    second = parts.save(db, folder)
    assert [p.name for p in parts.parts(folder)] == ["part-001.db.xz", "part-002.db.xz"]
    assert (first, second) == tuple(parts.parts(folder))
    with parts.opened(second) as store:
        assert [s.name for s in store.studies()] == ["c"]

    fresh = str(tmp_path / "fresh.db")
    parts.restore(folder, fresh)
    with Store(fresh, readonly=True) as got, Store(db, readonly=True) as want:
        assert [s.name for s in got.studies()] == ["a", "b", "c"]
        for name in "abc":
            assert [t.y for t in got.trials(got.get_study(name))] == [
                t.y for t in want.trials(want.get_study(name))
            ]


def test_a_study_made_again_is_saved_again_and_its_newest_copy_is_restored(
    script, tmp_path
) -> None:
    parts = script
    db, folder = str(tmp_path / "bench.db"), tmp_path / "runs"
    _run(db, "a")
    _run(db, "b")
    parts.save(db, folder)
    with Store(db) as store:
        store.delete_studies(["a"])
    _run(db, "a", budget=5)  # made again, e.g. after a method changed
    assert parts.save(db, folder) is not None
    assert parts.save(db, folder) is None
    with parts.opened(parts.parts(folder)[-1]) as store:
        assert [s.name for s in store.studies()] == ["a"]

    fresh = str(tmp_path / "fresh.db")
    parts.restore(folder, fresh)
    with Store(fresh, readonly=True) as got:
        assert [s.name for s in got.studies()] == ["b", "a"]
        assert len(got.trials(got.get_study("a"))) == 5
