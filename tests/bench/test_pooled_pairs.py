"""benchmarks/field/pooled_pairs.py: two contenders paired over committed finals.npz files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "field" / "pooled_pairs.py"


def _finals(path, labels, F):
    cells = np.array([f"p/seed{i}" for i in range(len(F))])
    np.savez(path, F=np.asarray(F, float), labels=np.array(labels), cells=cells)


def test_finals_are_paired_per_file_and_pooled_with_renamed_labels(
    script, tmp_path, capsys
) -> None:
    rng = np.random.default_rng(0)
    a1, b1 = rng.normal(size=7), rng.normal(size=7)
    a2, b2 = rng.normal(size=5), rng.normal(size=5)
    _finals(tmp_path / "one.npz", ["A", "B", "random"], np.c_[a1, b1, a1])
    _finals(tmp_path / "two.npz", ["B", "random", "auto"], np.c_[b2, b2, a2])
    script.main(["--pair", "A", "B", "--finals", str(tmp_path / "one.npz"),
                    "--finals", str(tmp_path / "two.npz"), "--rename", "auto=A"])  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    a, b = np.r_[a1, a2], np.r_[b1, b2]
    p = stats.wilcoxon(a, b, alternative="less").pvalue
    assert lines[0].endswith(
        f"7 cells, A lower in {int((a1 < b1).sum())}, higher in {int((a1 > b1).sum())}, "
        f"one-sided Wilcoxon p = {stats.wilcoxon(a1, b1, alternative='less').pvalue:.3g}"
    )
    assert lines[2] == (
        f"pooled: 12 cells, A lower in {int((a < b).sum())}, higher in {int((a > b).sum())}, "
        f"one-sided Wilcoxon p = {p:.3g}"
    )


def test_a_contender_missing_from_a_finals_file_is_named(script, tmp_path, capsys) -> None:
    _finals(tmp_path / "one.npz", ["A", "random"], np.zeros((3, 2)))
    with pytest.raises(SystemExit):
        script.main(["--pair", "A", "B", "--finals", str(tmp_path / "one.npz")])
    assert "no contender ['B']" in capsys.readouterr().err


def test_no_source_is_an_error(script, capsys) -> None:
    with pytest.raises(SystemExit):
        script.main(["--pair", "A", "B"])
    assert "give at least one --suite or --finals" in capsys.readouterr().err


def test_by_problem_counts_each_problem_of_the_cells(script, tmp_path, capsys) -> None:
    cells = np.array(["p/seed0", "p/seed1", "q/seed0", "q/seed1", "q/seed2"])
    F = np.array([[1, 2], [3, 2], [0, 1], [0, 1], [5, 5]], float)
    np.savez(tmp_path / "f.npz", F=F, labels=np.array(["A", "B"]), cells=cells)
    script.main(["--pair", "A", "B", "--finals", str(tmp_path / "f.npz"), "--by-problem"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:3] == [
        "  p: A lower in 1, higher in 1 of 2",
        "  q: A lower in 2, higher in 0 of 3",
    ]


def test_scores_say_how_far_apart_each_problem_is(script, tmp_path, capsys) -> None:
    cells = np.array(["p/seed0", "p/seed1", "q/seed0", "q/seed1"])
    # random's median: p 10 (values 10, 10), q 3 (values 2, 4); best of each cell is min
    F = np.array([[0, 5, 10], [2, 1, 10], [1, 1, 2], [3, 1, 4]], float)
    np.savez(tmp_path / "f.npz", F=F, labels=np.array(["A", "B", "random"]), cells=cells)
    script.main(["--pair", "A", "B", "--finals", str(tmp_path / "f.npz"), "--by-problem",
                    "--scores"])  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    # p: A scores 0 and 1/9, B 1/2 and 0; q: A 0 and 1, B 0 and 0
    assert (
        lines[1]
        == "  p: A lower in 1, higher in 1 of 2; mean score 0.0556 against 0.25 (2 cells scored)"
    )
    assert (
        lines[2] == "  q: A lower in 0, higher in 1 of 2; mean score 0.5 against 0 (2 cells scored)"
    )


def test_scores_need_finals_and_by_problem(script, tmp_path, capsys) -> None:
    _finals(tmp_path / "one.npz", ["A", "B", "random"], np.zeros((3, 3)))
    with pytest.raises(SystemExit):
        script.main(["--pair", "A", "B", "--finals", str(tmp_path / "one.npz"), "--scores"])
    assert "--scores needs --by-problem" in capsys.readouterr().err
