"""OptunaHub package: isoline's optimization methods as an Optuna sampler."""

from isoline.integrations.optuna import IsolineSampler

__all__ = ["IsolineSampler"]
