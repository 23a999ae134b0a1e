"""Typed parameters and their one encoding into the unit cube (isoline.params)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from isoline.params import Categorical, Integer, Real, Space


def mixed() -> Space:
    return Space(
        {
            "lr": Real(1e-5, 1e-1, log=True),
            "momentum": Real(0.0, 1.0),
            "layers": Integer(1, 8),
            "units": Integer(16, 1024, log=True),
            "act": Categorical(["relu", "tanh", None]),
            "flag": Categorical([True, 1]),
        }
    )


def test_encode_decode_round_trip_keeps_exact_types() -> None:
    s = mixed()
    assert s.dim == 4 + 3 + 2
    config = {"lr": 1e-3, "momentum": 0.9, "layers": 3, "units": 128, "act": None, "flag": 1}
    U = s.encode(config)
    assert U.shape == (s.dim,) and np.all((U >= 0) & (U <= 1))
    back = s.decode(U)[0]
    assert back["lr"] == pytest.approx(1e-3) and back["momentum"] == pytest.approx(0.9)
    assert back["layers"] == 3 and type(back["layers"]) is int
    assert back["units"] == 128 and type(back["units"]) is int
    assert back["act"] is None and back["flag"] == 1 and back["flag"] is not True
    assert type(back["lr"]) is float


def test_numpy_scalars_match_the_python_values_they_hold() -> None:
    """Choices from NumPy (``np.unique`` of a column) accept Python values and the reverse,
    while ``True``, ``1`` and ``1.0`` stay three values."""
    s = Space({"k": Categorical(np.unique(np.array(["rbf", "linear"]))), "n": Integer(0, 3),
               "b": Categorical([True, 1, 1.0])})  # fmt: skip
    u = s.encode({"k": "rbf", "n": 2, "b": 1})
    np.testing.assert_array_equal(u, s.encode({"k": np.str_("rbf"), "n": np.int64(2),
                                               "b": np.int64(1)}))  # fmt: skip
    assert s.decode(u[None])[0]["b"] == 1 and s.decode(u[None])[0]["b"] is not True
    assert not np.array_equal(u, s.encode({"k": "rbf", "n": 2, "b": np.bool_(True)}))
    plain = Categorical(["x", "y"])
    assert plain.index(np.str_("y")) == 1


def test_log_real_is_linear_in_log_space() -> None:
    s = Space({"lr": Real(1e-5, 1e-1, log=True)})
    assert s.encode({"lr": 1e-3})[0] == pytest.approx(0.5)
    assert s.decode(np.array([[0.25]]))[0]["lr"] == pytest.approx(1e-4)


def test_uniform_points_decode_to_uniform_integers() -> None:
    s = Space({"k": Integer(-2, 3)})
    U = (np.arange(6000) + 0.5)[:, None] / 6000
    counts = np.bincount([c["k"] + 2 for c in s.decode(U)])
    assert counts.tolist() == [1000] * 6


def test_round_is_idempotent_and_keeps_the_configuration() -> None:
    s = mixed()
    U = np.random.default_rng(0).random((200, s.dim))
    R = s.round(U)
    np.testing.assert_array_equal(s.round(R), R)
    assert s.decode(R) == s.decode(U)
    np.testing.assert_allclose(R, s.encode(s.decode(U)))


@pytest.mark.parametrize(
    "make,error,match",
    [
        (lambda: Real(1.0, 1.0), ValueError, "low < high"),
        (lambda: Real(0.0, math.inf), ValueError, "finite"),
        (lambda: Real(0.0, 1.0, log=True), ValueError, "low > 0"),
        (lambda: Real(0.1, 2.0, logit=True), ValueError, "0 < low < high < 1"),
        (lambda: Real("0", 1.0), TypeError, "number"),
        (lambda: Integer(0.5, 3), TypeError, "integer"),
        (lambda: Integer(3, 1), ValueError, "low <= high"),
        (lambda: Integer(0, 9, log=True), ValueError, "low >= 1"),
        (lambda: Categorical([]), ValueError, "at least one"),
        (lambda: Categorical(["a", "b", "a"]), ValueError, "'a' is repeated"),
        (lambda: Categorical("abc"), TypeError, "sequence"),
        (lambda: Space({"x": (0, 1)}), TypeError, "parameter 'x' must be a Real"),
        (lambda: Space([("x", Real(0, 1)), ("x", Integer(0, 2))]), ValueError, "'x' is defined twice"),
        (lambda: Space({}), ValueError, "at least one"),
    ],
)  # fmt: skip
def test_bad_definitions_name_the_problem(make, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        make()


def test_bad_configurations_name_the_parameter() -> None:
    s = mixed()
    good = {"lr": 1e-3, "momentum": 0.9, "layers": 3, "units": 128, "act": "relu", "flag": True}
    with pytest.raises(ValueError, match=r"missing \['act'\]"):
        s.encode({k: v for k, v in good.items() if k != "act"})
    with pytest.raises(ValueError, match="parameter 'layers': 9 is outside"):
        s.encode(dict(good, layers=9))
    with pytest.raises(TypeError, match="parameter 'layers' takes integers"):
        s.encode(dict(good, layers=2.0))
    with pytest.raises(ValueError, match="parameter 'act': 'gelu' is not one of"):
        s.encode(dict(good, act="gelu"))
    with pytest.raises(ValueError, match=r"shape \(n, 9\)"):
        s.decode(np.zeros((2, 3)))


def test_random_spaces_round_trip_through_the_encoding() -> None:
    rng = np.random.default_rng(1)
    for _ in range(30):
        params = {}
        for i in range(int(rng.integers(1, 6))):
            kind = rng.integers(4)
            if kind == 0:
                lo = float(rng.uniform(-5, 5))
                params[f"r{i}"] = Real(lo, lo + float(rng.uniform(0.1, 10)))
            elif kind == 1:
                lo = float(10 ** rng.uniform(-6, 0))
                params[f"l{i}"] = Real(lo, lo * float(10 ** rng.uniform(0.5, 4)), log=True)
            elif kind == 2:
                lo = int(rng.integers(-20, 20))
                params[f"k{i}"] = Integer(lo, lo + int(rng.integers(0, 50)), log=False)
            else:
                params[f"c{i}"] = Categorical(list(range(int(rng.integers(1, 5)))))
        s = Space(params)
        U = rng.random((50, s.dim))
        configs = s.decode(U)
        for c in configs:  # every decoded value lies in its parameter's range
            for name, p in s.params.items():
                if isinstance(p, Categorical):
                    assert c[name] in p.choices
                else:
                    assert p.low <= c[name] <= p.high
        for again, c in zip(s.decode(s.encode(configs)), configs):
            for name, p in s.params.items():  # reals up to round-off of the warp, others exact
                if isinstance(p, Real):
                    assert again[name] == pytest.approx(c[name], rel=1e-12)
                else:
                    assert again[name] == c[name] and type(again[name]) is type(c[name])


def test_finite_spaces_count_and_enumerate_their_configurations() -> None:
    space = Space({"k": Integer(2, 4), "c": Categorical(["a", None]), "b": Integer(1, 1)})
    assert space.n_configs == 6 and space.discrete
    grid = space.grid()
    assert grid.shape == (6, space.dim)
    configs = space.decode(grid)
    assert len({Space.key(c) for c in configs}) == 6
    assert space.discrete_columns == [0, 1, 2, 3]
    mixed = Space({"x": Real(0, 1), "c": Categorical(["a", "b"])})
    assert mixed.n_configs is None and mixed.discrete_columns == [1, 2]
    with pytest.raises(ValueError, match="infinitely many"):
        mixed.grid()
    with pytest.raises(ValueError, match="limit"):
        Space({"k": Integer(0, 999), "j": Integer(0, 999)}).grid()
    assert not Space({"x": Real(0, 1)}).discrete
