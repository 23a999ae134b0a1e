import numpy as np
import pytest

from isoline.designs import INIT_DESIGNS, initial_design, sobol


def test_centre_design_starts_at_the_centre_then_follows_sobol() -> None:
    X = initial_design("centre", 5, 3, seed=4)
    np.testing.assert_array_equal(X[0], [0.5, 0.5, 0.5])
    np.testing.assert_array_equal(X[1:], sobol(4, 3, seed=4))
    assert initial_design("centre", 1, 2).tolist() == [[0.5, 0.5]]


def test_unknown_design_names_the_choices() -> None:
    assert "centre" in INIT_DESIGNS
    with pytest.raises(ValueError, match="init must be one of"):
        initial_design("center-ish", 3, 2)
