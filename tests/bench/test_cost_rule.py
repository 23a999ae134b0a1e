"""benchmarks/field/cost_rule.py: the pre-registered cost rule of hpo_cost.yaml."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import isoline as iso
from isoline.run_loop import METHOD_CPU
from isoline.store import Store

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "field" / "cost_rule.py"
CELLS = [f"p/seed{s}" for s in range(6)]
#: summed CPU per contender over the cells: the reference 60 s, cheap 54 s, dear 66 s
CPU = {"base": 20.0, "ref": 10.0, "cheap": 9.0, "dear": 11.0, "worse": 5.0}


def _store(path: Path) -> None:
    box = iso.Box([0.0], [1.0])
    for label, cpu in CPU.items():
        for cell in CELLS:
            problem, seed = cell.split("/")
            name = f"s/{problem}/{label}/{seed}"
            iso.minimize(lambda x: float(x[0]), box, "random", budget=1, storage=str(path),
                         study=name)  # fmt: skip
            with Store(str(path)) as store:
                rec = store.get_study(name)
                assert rec is not None
                store.update_attr(rec, METHOD_CPU, lambda _, v=cpu: v)


def _config(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(
        "name: s\nbudget: 1\nseeds: [0]\nmethods: [random]\nproblems: [{name: ackley, dim: 2}]\n"
    )


def test_the_rule_needs_both_the_cost_and_no_worse_finals(script, tmp_path, monkeypatch,
                                                          capsys) -> None:  # fmt: skip
    _store(tmp_path / "s.db")
    _config(tmp_path)
    base = np.arange(6.0)
    F = np.c_[
        base,
        base,
        base - [1, 1, 1, 0, 0, -1],
        base - [1, 0, 0, 0, 0, 0],
        base + [1, 1, -5, 0, 0, 0],
    ]
    labels = ["base", "ref", "cheap", "dear", "worse"]
    np.savez(tmp_path / "f.npz", F=F, labels=np.array(labels), cells=np.array(CELLS))
    argv = [str(SCRIPT), str(tmp_path / "c.yaml"), "--storage", str(tmp_path / "s.db"),
            "--finals", str(tmp_path / "f.npz"), "--base", "base", "--reference", "ref",
            "--candidates", "cheap", "dear", "worse"]  # fmt: skip
    monkeypatch.setattr(sys, "argv", argv)
    script.main()
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("6 cells") and "base 120 s (2.00x)" in out[0]
    cheap, dear, worse = out[1:4]
    assert "0.90x" in cheap and "better 3, worse 1" in cheap and cheap.endswith("passes")
    assert "1.10x" in dear and dear.endswith("fails")  # no worse finals, but dearer
    assert "better 1, worse 2" in worse and worse.endswith("fails")  # cheap, worse in more cells
    assert out[4] == "adopted: cheap"


def test_a_missing_run_is_an_error(script, tmp_path, monkeypatch) -> None:
    _config(tmp_path)
    np.savez(tmp_path / "f.npz", F=np.zeros((1, 2)), labels=np.array(["base", "ref"]),
             cells=np.array(["p/seed0"]))  # fmt: skip
    iso.minimize(lambda x: float(x[0]), iso.Box([0.0], [1.0]), "random", budget=1,
                 storage=str(tmp_path / "s.db"), study="other")  # fmt: skip
    argv = [str(SCRIPT), str(tmp_path / "c.yaml"), "--storage", str(tmp_path / "s.db"),
            "--finals", str(tmp_path / "f.npz"), "--base", "base", "--reference", "ref",
            "--candidates", "base"]  # fmt: skip
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit, match="no study s/p/ref/seed0"):
        script.main()


def test_the_margin_form_tests_non_inferiority_of_scores(script, tmp_path, monkeypatch,
                                                         capsys) -> None:  # fmt: skip
    _store(tmp_path / "s.db")
    _config(tmp_path)
    base = np.zeros(6)
    # random's median 10 above the base: a score unit is 10 in these values
    near = base + [0.3, -0.2, 0.1, 0.1, 0.2, -0.2]  # mixed, mean gap about +0.005
    far = base + [2.0, 1.0, 3.0, -0.5, 2.0, 1.0]  # mean gap about +0.15
    F = np.c_[base, base, near, far, base + 10.0]
    labels = ["base", "ref", "cheap", "worse", "random"]
    np.savez(tmp_path / "f.npz", F=F, labels=np.array(labels), cells=np.array(CELLS))
    argv = [str(SCRIPT), str(tmp_path / "c.yaml"), "--storage", str(tmp_path / "s.db"),
            "--finals", str(tmp_path / "f.npz"), "--base", "base", "--reference", "ref",
            "--candidates", "cheap", "worse", "--margin", "0.05"]  # fmt: skip
    monkeypatch.setattr(sys, "argv", argv)
    script.main()
    cheap, worse = capsys.readouterr().out.splitlines()[1:3]
    # worse in more cells than better, which the margin form does not forbid
    assert "better 2, worse 4" in cheap and cheap.endswith("passes")
    assert "margin 0.05" in worse and worse.endswith("fails")
    gap = float(worse.split("score gap ")[1].split()[0])
    assert 0.1 < gap < 0.2
