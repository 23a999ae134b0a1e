import numpy as np
import pytest

import isoline as iso


def sphere(x):
    return float(np.sum((x - 0.25) ** 2))


def test_minimize_result_fields() -> None:
    box = iso.Box([-1, -1], [1, 1])
    res = iso.minimize(sphere, box, "cma-es", budget=30, seed=0)
    assert res.n_evals == 30 and res.x_iters.shape == (30, 2) and res.func_vals.shape == (30,)
    assert res.fun == res.func_vals.min() and sphere(res.x) == res.fun
    assert res.wall_times.shape == (30,) and np.all(res.wall_times >= 0)
    assert res.method == "cma-es" and res.seed == 0
    assert np.all(np.diff(res.best_so_far()) <= 0)
    import matplotlib

    matplotlib.use("Agg")
    ax = res.plot()
    assert len(ax.lines) == 1


def test_objective_info_is_kept() -> None:
    res = iso.minimize(lambda x: (1.0, {"steps": 7}), iso.Box([0], [1]), "random", budget=2)
    assert res.infos == [{"steps": 7}, {"steps": 7}]


def test_ask_tell_round_trip_and_foreign_points() -> None:
    opt = iso.Optimizer(iso.Box([10, 10], [20, 20]), "random", seed=0)
    X = opt.ask()
    opt.tell(X, [1.0])
    opt.tell(np.array([[15.0, 15.0]]), [0.5])  # a point the optimizer did not ask for
    opt.tell(np.array([[12.0, 12.0]]), [None])  # failed evaluation
    x, y = opt.best
    np.testing.assert_allclose(x, [15.0, 15.0])
    assert y == 0.5
    Xh, yh = opt.history
    assert Xh.shape == (3, 2) and np.isnan(yh[2])


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"method": "no-such"}, ValueError, "unknown method 'no-such'"),
        ({"budget": 0}, ValueError, "budget"),
        ({"budget": 2.5}, TypeError, "budget"),
        (
            {"budget": 10**20},
            ValueError,
            r"budget must be an integer in \[1, 9223372036854775807\]",
        ),
        ({"study": 123}, TypeError, "study must be a str"),
        ({"study": ""}, ValueError, "study must be a non-empty str"),
        ({"study": "a\ud800b"}, ValueError, "study must be valid UTF-8.*lone surrogate"),
        ({"study": "x" * 257}, ValueError, "study must have at most 256 characters"),
        ({"study": "a\nb"}, ValueError, "study must not hold control characters"),
        ({"batch_size": 0}, ValueError, "batch_size"),
        ({"seed": -1}, ValueError, "seed"),
        ({"init": "grid"}, ValueError, "init must be one of"),
        ({"executor": "gpu"}, ValueError, "executor"),
        ({"executor": object()}, TypeError, "submit"),
        ({"sigma0": 0.0, "method": "cma-es"}, ValueError, "sigma0"),
        ({"bogus": 1}, TypeError, "unknown option"),
    ],
)
def test_bad_input(kwargs, exc, match) -> None:
    args = dict(method="random", budget=3)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        iso.minimize(sphere, iso.Box([0], [1]), **args)


def test_ask_refuses_a_batch_of_a_method_without_batches() -> None:
    opt = iso.Optimizer(iso.Box([0, 0], [1, 1]), "cobyqa", seed=0)
    with pytest.raises(ValueError, match="method 'cobyqa' does not support batch_size > 1"):
        opt.ask(2)
    assert opt.ask(1).shape == (1, 2)
    with pytest.raises(ValueError, match="method 'cobyqa' does not support batch_size > 1"):
        iso.minimize(sphere, iso.Box([0], [1]), "cobyqa", budget=3, batch_size=2)


def test_bad_space_and_objective() -> None:
    with pytest.raises(TypeError, match="space"):
        iso.minimize(sphere, [(0, 1)], "random", budget=3)
    with pytest.raises(TypeError, match="callable"):
        iso.minimize(3, iso.Box([0], [1]), "random", budget=3)


def test_thread_executor_batches_are_complete() -> None:
    box = iso.Box([-1, -1], [1, 1])
    res = iso.minimize(sphere, box, "random", budget=10, batch_size=4, executor="thread", seed=2)
    seq = iso.minimize(sphere, box, "random", budget=10, batch_size=4, seed=2)
    np.testing.assert_array_equal(res.x_iters, seq.x_iters)
    np.testing.assert_array_equal(res.func_vals, seq.func_vals)


def test_noisy_problem_reproduces_across_executors_and_resume(tmp_path) -> None:
    from isoline import problems

    p = problems.get("ackley", dim=3, noise_std=0.5, seed=1)
    args = dict(method="random", budget=12, batch_size=4, seed=5)
    ref = iso.minimize(p, p.space, **args)
    threaded = iso.minimize(p, p.space, executor="thread", **args)
    np.testing.assert_array_equal(threaded.func_vals, ref.func_vals)

    def stop_after_two_batches(r):
        if r.n_evals >= 8:
            raise KeyboardInterrupt

    db = str(tmp_path / "runs.db")
    fresh = problems.get("ackley", dim=3, noise_std=0.5, seed=1)
    with pytest.raises(KeyboardInterrupt):
        iso.minimize(fresh, p.space, storage=db, study="s", callback=stop_after_two_batches, **args)
    resumed = iso.minimize(problems.get("ackley", dim=3, noise_std=0.5, seed=1), p.space,
                           storage=db, study="s", **args)  # fmt: skip
    np.testing.assert_array_equal(resumed.func_vals, ref.func_vals)


def test_callback_can_stop() -> None:
    seen = []

    def cb(r):
        seen.append(r.n_evals)
        return r.n_evals >= 4

    res = iso.minimize(sphere, iso.Box([0], [1]), "random", budget=10, batch_size=2, callback=cb)
    assert res.n_evals == 4 and seen == [2, 4]


def test_methods_listing() -> None:
    names = {m.name for m in iso.methods()}
    assert {"random", "sobol", "cma-es"} <= names
    m = {m.name: m for m in iso.methods()}["cma-es"]
    assert m.supports_batch and "sigma0" in m.options and m.paper


@pytest.mark.parametrize("init", ["sobol", "random"])
def test_sobol_never_serves_a_point_twice_after_a_design_or_known_points(init: str) -> None:
    from isoline.methods.registry import make_method

    m = make_method("sobol", 2, seed=0, n_init=4, init=init)
    m.tell(np.array([[0.1, 0.1], [0.9, 0.9]]), np.array([1.0, 2.0]))  # covers two design points
    served = np.vstack([m.ask(1) for _ in range(12)])
    assert len(np.unique(served, axis=0)) == 12
