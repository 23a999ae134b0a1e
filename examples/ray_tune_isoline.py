"""Ray Tune with an isoline method as its search algorithm (through Optuna).

``ray.tune.search.optuna.OptunaSearch`` accepts any Optuna sampler; ``IsolineSampler``
makes it propose with an isoline method. Needs ``pip install "isoline[ray]"``.

Usage::

    python examples/ray_tune_isoline.py [--method turbo] [--samples 30] [--storage DIR]
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
    return {"loss": loss + (0.2 if config["activation"] == "tanh" else 0.0)}


def run(
    method: str, samples: int, seed: int = 0, storage_path: str | None = None
) -> tune.ResultGrid:
    space = {
        "lr": tune.loguniform(1e-5, 1e-1),
        "layers": tune.randint(1, 7),  # 1..6
        "activation": tune.choice(["relu", "tanh"]),
    }
    search = OptunaSearch(sampler=IsolineSampler(method, seed=seed), metric="loss", mode="min")
    tuner = tune.Tuner(
        trainable,
        param_space=space,
        tune_config=tune.TuneConfig(
            search_alg=search, num_samples=samples, max_concurrent_trials=1
        ),
        run_config=tune.RunConfig(storage_path=storage_path, verbose=0),
    )
    return tuner.fit()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--method", default="turbo")
    p.add_argument("--samples", type=int, default=30)
    p.add_argument("--storage", help="Ray Tune's storage_path (default ~/ray_results)")
    args = p.parse_args()
    grid = run(args.method, args.samples, storage_path=args.storage)
    if grid.errors:
        raise SystemExit(f"{len(grid.errors)} trials failed: {grid.errors[0]}")
    best = grid.get_best_result(metric="loss", mode="min")
    print(f"{len(grid)} trials; best loss {best.metrics['loss']:.4g} at {best.config}")


if __name__ == "__main__":
    main()
