from __future__ import annotations

import numpy as np
import pytest

from isoline.bench.ranks import (
    cell_ranks,
    mean_rank_interval,
    normalized_scores,
    stand_in_column,
    stand_in_ranks,
    wilcoxon_against_best,
)


def test_ranks_average_ties_and_the_interval_holds_the_mean() -> None:
    F = np.array([[1.0, 2.0, 2.0], [3.0, 1.0, 2.0]])
    np.testing.assert_array_equal(cell_ranks(F), [[1.0, 2.5, 2.5], [3.0, 1.0, 2.0]])
    mean, lo, hi = mean_rank_interval(F, n_boot=500)
    np.testing.assert_allclose(mean, [2.0, 1.75, 2.25])
    assert np.all(lo <= mean) and np.all(mean <= hi)
    assert lo[0] == 1.0 and hi[0] == 3.0  # both cells resampled twice are possible


def test_normalized_scores_are_zero_at_the_best_and_one_at_random_median() -> None:
    F = np.array([[0.0, 5.0, 10.0], [2.0, 2.0, 2.0]])
    S = normalized_scores(F, random_median=[10.0, 2.0])
    np.testing.assert_allclose(S[0], [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(S[1], [0.0, 0.0, 0.0])  # random reached the best
    with pytest.raises(ValueError, match="2 entries"):
        normalized_scores(F, [1.0])


def test_a_random_median_equal_to_the_best_up_to_rounding_spans_nothing() -> None:
    """The DT breast cell of hpo_cost_confirm: random's median a mean of fold scores one
    ulp above the best; the cell scores 0 where the best was reached, NaN elsewhere, and
    not gaps divided by 1e-16."""
    best = -0.920879120879121
    med = np.nextafter(best, 0.0)
    F = np.array([[best, -0.912087912087912, med], [0.0, 1e-9, 2e-9]])
    S = normalized_scores(F, random_median=[med, 2e-9])
    np.testing.assert_array_equal(S[0], [0.0, np.nan, np.nan])
    np.testing.assert_allclose(S[1], [0.0, 0.5, 1.0])  # a small span that is not rounding


def test_a_contender_that_is_worse_in_every_cell_is_significantly_worse() -> None:
    rng = np.random.default_rng(0)
    a = rng.random(20)
    F = np.column_stack([a, a + 0.1 + rng.random(20), a + rng.normal(0, 0.01, 20)])
    best, p, p_bh = wilcoxon_against_best(F)
    assert best == 0 and np.isnan(p[0])
    assert p_bh[1] < 1e-3 and p_bh[2] > 0.05
    with pytest.raises(ValueError, match="NaN"):
        cell_ranks(np.array([[1.0, np.nan]]))


def test_stand_in_takes_the_place_of_the_run_it_repeats():
    F = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    # repeats column 1 in the first cell and column 2 in the second
    np.testing.assert_array_equal(stand_in_ranks(F, [2.0, 1.0]), [2.0, 1.0])
    # equal to no entry: ranked as one more contender
    np.testing.assert_array_equal(stand_in_ranks(F, [0.5, 2.5]), [1.0, 3.0])
    # equal to two entries: one is replaced, the tie with the other is averaged
    np.testing.assert_array_equal(stand_in_ranks(np.array([[1.0, 1.0, 3.0]]), [1.0]), [1.5])
    with pytest.raises(ValueError, match="entries"):
        stand_in_ranks(F, [1.0])


def test_a_column_is_a_stand_in_only_where_it_repeats_a_run():
    F = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    assert stand_in_column(F, 2) is None  # equal to no other entry of its rows
    assert stand_in_column(np.column_stack([F, [5.0, 2.0]]), 3) == 3  # repeats column 1 once
    assert stand_in_column(F, None) is None
    # beside one contender only, a repeat is ranked as one more contender: one column alone
    # has no ranks to stand in among
    assert stand_in_column(np.array([[1.0, 1.0], [2.0, 3.0]]), 1) is None
