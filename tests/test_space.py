import numpy as np
import pytest

from isoline import Box


def test_round_trip_and_bounds() -> None:
    box = Box([-5.0, 0.0], [5.0, 1e-3], names=["a", "b"])
    X = np.array([[-5.0, 0.0], [5.0, 1e-3], [1.0, 5e-4]])
    U = box.to_unit(X)
    np.testing.assert_allclose(U, [[0, 0], [1, 1], [0.6, 0.5]])
    np.testing.assert_allclose(box.from_unit(U), X)
    assert box.dim == 2 and box.names == ["a", "b"]
    assert box.contains(X).all()
    assert np.all(box.from_unit(np.array([[-0.1, 1.1]])) == [[-5.0, 1e-3]])


@pytest.mark.parametrize(
    "lower,upper,match",
    [
        ([0.0], [0.0], r"strictly below .* dimension 0 has lower=0\.0, upper=0\.0$"),
        ([1.0, 0.0], [0.0, 1.0], "dimension 0"),
        ([0.0, 0.0], [1.0], "same length"),
        ([], [], "at least 1"),
        ([0.0, np.inf], [1.0, 2.0], "finite"),
        ([np.nan], [1.0], "finite"),
        ([[0.0, 1.0]], [[1.0, 2.0]], "one-dimensional"),
    ],
)
def test_invalid_bounds(lower, upper, match) -> None:
    with pytest.raises(ValueError, match=match):
        Box(lower, upper)


def test_bad_types_and_names() -> None:
    with pytest.raises(TypeError, match="lower"):
        Box("abc", [1.0])
    with pytest.raises(ValueError, match="names"):
        Box([0, 0], [1, 1], names=["a"])
    with pytest.raises(ValueError, match="unique"):
        Box([0, 0], [1, 1], names=["a", "a"])
    with pytest.raises(ValueError, match="last dimension 2"):
        Box([0, 0], [1, 1]).to_unit(np.zeros((3, 3)))


def test_dict_round_trip() -> None:
    box = Box([0, -1], [1, 1], names=["p", "q"])
    assert Box.from_dict(box.to_dict()) == box
