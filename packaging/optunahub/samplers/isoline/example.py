"""Tune a noisy 6-D function with isoline's TuRBO through Optuna."""

import math

import optuna
import optunahub


def objective(trial: optuna.Trial) -> float:
    xs = [trial.suggest_float(f"x{i}", -5.0, 5.0) for i in range(4)]
    lr = trial.suggest_float("lr", 1e-5, 1e-1, log=True)
    layers = trial.suggest_int("layers", 1, 6)
    return sum((x - 1.0) ** 2 for x in xs) + (math.log10(lr) + 3.0) ** 2 + 0.1 * (layers - 3) ** 2


if __name__ == "__main__":
    mod = optunahub.load_module("samplers/isoline")
    study = optuna.create_study(sampler=mod.IsolineSampler("turbo", seed=0))
    study.optimize(objective, n_trials=60)
    print(study.best_value, study.best_params)
