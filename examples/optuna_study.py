"""An Optuna study that proposes with an isoline method (extra ``optuna``).

The study keeps Optuna's API, storage and pruners; ``IsolineSampler`` chooses the
parameters. Here CMA-ES tunes a typed space of three parameters.

Usage::

    python examples/optuna_study.py
"""

from __future__ import annotations

import math

import optuna

from isoline.integrations.optuna import IsolineSampler


def objective(trial: optuna.Trial) -> float:
    """A stand-in for a validation loss over learning rate, depth and activation."""
    lr = trial.suggest_float("lr", 1e-5, 1e-1, log=True)
    depth = trial.suggest_int("depth", 1, 8)
    activation = trial.suggest_categorical("activation", ["relu", "tanh"])
    penalty = 0.3 if activation == "tanh" else 0.0
    return (math.log10(lr) + 3) ** 2 + 0.1 * (depth - 4) ** 2 + penalty


def main() -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=IsolineSampler("cma-es", seed=0))
    study.optimize(objective, n_trials=16)
    print("best", study.best_params, f"{study.best_value:.4f}")


if __name__ == "__main__":
    main()
