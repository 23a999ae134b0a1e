"""Significance tests of isoline.bench.stats against values computed by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from isoline.bench.stats import (
    benjamini_hochberg,
    ks_normality,
    ks_table,
    markdown_ks_table,
    markdown_ttest_table,
    one_sided_ttest,
    to_markdown,
    ttest_table,
)


def _t4_sf(t: float) -> float:
    """Survival function of Student's t with 4 degrees of freedom, closed form."""
    u = 1 + t * t / 4
    return 0.5 - 0.375 * (t / math.sqrt(u)) * (1 - t * t / (12 * u))


def test_one_sided_welch_by_hand() -> None:
    # means 4 and 2, both variances 1, n = 3: t = 2 / sqrt(2/3) = sqrt(6), Welch df = 4
    p = one_sided_ttest([3, 4, 5], [1, 2, 3])
    assert p == pytest.approx(_t4_sf(math.sqrt(6)), rel=1e-10)
    assert p == pytest.approx(0.035242, abs=1e-6)
    # the other direction: Ha "baseline above reference" is implausible
    assert one_sided_ttest([1, 2, 3], [3, 4, 5]) == pytest.approx(1 - p, rel=1e-10)
    # equal n and equal variances: Student's test coincides here
    assert one_sided_ttest([3, 4, 5], [1, 2, 3], equal_var=True) == pytest.approx(p, rel=1e-10)


def test_welch_differs_from_student_with_unequal_variances() -> None:
    b, r = [10.0, 20.0, 30.0, 40.0], [1.0, 1.1, 0.9]
    # Welch by hand: means 25 and 1; variances 166.67 and 0.01
    vb, vr = np.var(b, ddof=1), np.var(r, ddof=1)
    se2 = vb / 4 + vr / 3
    t = 24.0 / math.sqrt(se2)
    df = se2**2 / ((vb / 4) ** 2 / 3 + (vr / 3) ** 2 / 2)
    from scipy.stats import t as student_t

    assert one_sided_ttest(b, r) == pytest.approx(student_t.sf(t, df), rel=1e-10)
    assert one_sided_ttest(b, r, equal_var=True) != pytest.approx(one_sided_ttest(b, r), rel=1e-3)


def test_undefined_tests_give_nan() -> None:
    assert math.isnan(one_sided_ttest([1.0], [1.0, 2.0]))
    assert math.isnan(one_sided_ttest([1.0, 1.0], [2.0, 2.0]))
    assert math.isnan(ks_normality([1.0, 1.0, 1.0, 1.0]))
    assert math.isnan(ks_normality([1.0, float("nan"), 2.0]))  # only two finite values


def test_benjamini_hochberg_by_hand() -> None:
    # sorted 0.01, 0.03, 0.04, 0.2 -> p*m/i = 0.04, 0.06, 0.0533, 0.2 -> running min from top
    adj = benjamini_hochberg([0.01, 0.04, 0.03, 0.2])
    np.testing.assert_allclose(adj, [0.04, 0.16 / 3, 0.16 / 3, 0.2], rtol=1e-12)
    adj = benjamini_hochberg([0.01, float("nan"), 0.04])
    np.testing.assert_allclose(adj, [0.02, np.nan, 0.04], rtol=1e-12)
    with pytest.raises(ValueError, match="pvalues"):
        benjamini_hochberg([0.5, 1.5])


def test_ks_detects_non_normal_samples() -> None:
    rng = np.random.default_rng(0)
    bimodal = np.concatenate([np.full(15, -1.0), np.full(15, 1.0)]) + 1e-3 * rng.standard_normal(30)
    assert ks_normality(bimodal) < 0.01
    normal_ps = [ks_normality(rng.standard_normal(30)) for _ in range(40)]
    assert np.mean(np.array(normal_ps) > 0.05) > 0.85


def _results() -> dict[str, dict[str, list[float]]]:
    return {
        "Ackley D=10": {"neuralbo": [1, 2, 3], "gp-ei": [3, 4, 5], "rf-ei": [1, 2, 3]},
        "Levy D=10": {"neuralbo": [0.0, 0.1, 0.2], "gp-ei": [0.0, 0.1, 0.2, float("nan")]},
    }


def test_ttest_table_rows_and_correction() -> None:
    rows = ttest_table(_results(), "neuralbo", alpha=0.05)
    assert [(r["cell"], r["baseline"]) for r in rows] == [
        ("Ackley D=10", "gp-ei"),
        ("Ackley D=10", "rf-ei"),
        ("Levy D=10", "gp-ei"),
    ]
    p = _t4_sf(math.sqrt(6))
    assert rows[0]["p_value"] == pytest.approx(p)
    assert rows[1]["p_value"] == pytest.approx(0.5)  # identical samples: t = 0
    assert rows[2]["n_baseline"] == 3  # NaN dropped
    assert rows[0]["mean_baseline"] == 4.0 and rows[0]["mean_reference"] == 2.0
    # table family: 3 tests; sorted p, 0.5, 0.5 -> adjusted 3p, 0.5, 0.5
    assert rows[0]["p_adjusted"] == pytest.approx(3 * p)
    assert rows[0]["reject"] is False  # 3 * 0.0352 > 0.05
    by_cell = ttest_table(_results(), "neuralbo", family="cell")
    assert by_cell[0]["p_adjusted"] == pytest.approx(2 * p)
    loose = ttest_table(_results(), "neuralbo", alpha=0.2)
    assert [r["reject"] for r in loose] == [True, False, False]


def test_ttest_table_other_direction() -> None:
    greater = ttest_table(_results(), "neuralbo", alpha=0.2)
    less = ttest_table(_results(), "neuralbo", alpha=0.2, alternative="less")
    # the same test statistic read from the other tail: p_less = 1 - p_greater
    for g, s in zip(greater, less):
        assert s["p_value"] == pytest.approx(1 - g["p_value"])
    assert [r["reject"] for r in less] == [False, False, False]
    # swapping the roles makes gp-ei the reference and neuralbo a better baseline
    swapped = ttest_table(
        {"c": {"gp-ei": [3, 4, 5], "neuralbo": [1, 2, 3]}}, "gp-ei", alpha=0.2, alternative="less"
    )
    assert swapped[0]["p_value"] == pytest.approx(_t4_sf(math.sqrt(6)))
    assert swapped[0]["reject"] is True


def test_ttest_table_bad_input() -> None:
    with pytest.raises(ValueError, match="reference 'dngo' is missing"):
        ttest_table(_results(), "dngo")
    with pytest.raises(ValueError, match="family"):
        ttest_table(_results(), "neuralbo", family="row")
    with pytest.raises(ValueError, match="alpha"):
        ttest_table(_results(), "neuralbo", alpha=1.5)
    with pytest.raises(TypeError, match="results"):
        ttest_table({}, "neuralbo")
    with pytest.raises(ValueError, match="alternative"):
        ttest_table(_results(), "neuralbo", alternative="two-sided")


def test_markdown_renderings() -> None:
    rows = ttest_table(_results(), "neuralbo", alpha=0.2)
    md = markdown_ttest_table(rows)
    lines = md.splitlines()
    assert lines[0] == "| cell | gp-ei | rf-ei |"
    assert lines[2] == "| Ackley D=10 | (0.0352, T) | (0.5, F) |"
    assert lines[3].startswith("| Levy D=10 | (0.5, F) |")
    ks = markdown_ks_table(_results())
    assert ks.splitlines()[0] == "| cell | neuralbo | gp-ei | rf-ei |"
    assert len(ks_table(_results())) == 2
    assert to_markdown([]) == ""
    assert to_markdown([{"a": float("nan"), "b": True}]).splitlines()[2] == "| n/a | T |"
