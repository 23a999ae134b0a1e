"""Ray Tune with an isoline method as its search algorithm (through Optuna).

``ray.tune.search.optuna.OptunaSearch`` accepts any Optuna sampler; ``IsolineSampler``
makes it propose with an isoline method. Needs ``pip install "isoline[ray]"``. With
``--two-metrics`` the search minimizes the loss and the latency together (a list of metrics
and modes to ``OptunaSearch``, a multi-objective Optuna study underneath) and prints the
Pareto front of the results.

Usage::

    python examples/ray_tune_isoline.py [--method turbo] [--samples 30] [--storage DIR]
    python examples/ray_tune_isoline.py --two-metrics --method gp-ei
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from ray import tune
from ray.tune.search.optuna import OptunaSearch

from isoline.integrations.optuna import IsolineSampler


def trainable(config: dict[str, Any]) -> dict[str, float]:
    """A stand-in for a training run: returns the validation loss of ``config``."""
    loss = (math.log10(config["lr"]) + 3.0) ** 2 + 0.1 * (config["layers"] - 3) ** 2
    latency = 2.0 * config["layers"] + (1.0 if config["activation"] == "tanh" else 0.0)
    return {"loss": loss + (0.2 if config["activation"] == "tanh" else 0.0), "latency": latency}


def run(
    method: str,
    samples: int,
    seed: int = 0,
    storage_path: str | None = None,
    metrics: tuple[str, ...] = ("loss",),
) -> tune.ResultGrid:
    space = {
        "lr": tune.loguniform(1e-5, 1e-1),
        "layers": tune.randint(1, 7),  # 1..6
        "activation": tune.choice(["relu", "tanh"]),
    }
    sampler = IsolineSampler(method, seed=seed)
    if len(metrics) == 1:
        search = OptunaSearch(sampler=sampler, metric=metrics[0], mode="min")
    else:  # several metrics: lists of metrics and modes, given here and not to TuneConfig
        search = OptunaSearch(sampler=sampler, metric=list(metrics), mode=["min"] * len(metrics))
    # reuse_actors: one worker process runs every trial instead of a new one per trial
    tuner = tune.Tuner(
        trainable,
        param_space=space,
        tune_config=tune.TuneConfig(
            search_alg=search, num_samples=samples, max_concurrent_trials=1, reuse_actors=True
        ),
        run_config=tune.RunConfig(storage_path=storage_path, verbose=0),
    )
    return tuner.fit()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--method", default="turbo")
    p.add_argument("--samples", type=int, default=30)
    p.add_argument("--storage", help="Ray Tune's storage_path (default ~/ray_results)")
    p.add_argument("--two-metrics", action="store_true", help="minimize loss and latency")
    args = p.parse_args()
    metrics = ("loss", "latency") if args.two_metrics else ("loss",)
    grid = run(args.method, args.samples, storage_path=args.storage, metrics=metrics)
    if grid.errors:
        raise SystemExit(f"{len(grid.errors)} trials failed: {grid.errors[0]}")
    if len(metrics) == 1:
        best = grid.get_best_result(metric="loss", mode="min")
        print(f"{len(grid)} trials; best loss {best.metrics['loss']:.4g} at {best.config}")
        return
    points = [(r.metrics["loss"], r.metrics["latency"], r.config) for r in grid]
    front = [p for p in points if not any(_dominates(q, p) for q in points)]
    print(f"{len(grid)} trials; Pareto front of {len(front)} (loss, latency):")
    for loss, latency, config in sorted(front, key=lambda p: p[1]):
        print(f"  {loss:.4g}, {latency:.4g} at {config}")


def _dominates(a: tuple[float, float, Any], b: tuple[float, float, Any]) -> bool:
    """Whether result ``a`` is no worse than ``b`` in both metrics and better in one."""
    return a[0] <= b[0] and a[1] <= b[1] and (a[0] < b[0] or a[1] < b[1])


if __name__ == "__main__":
    main()
