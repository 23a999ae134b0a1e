"""The exploration weight ``beta_t`` of the GP-UCB family: a constant or the schedule of
Srinivas et al., "Gaussian process optimization in the bandit setting: no regret and
experimental design", ICML 2010, and the check of the options that choose it."""

from __future__ import annotations

import math

from isoline.validation import check_choice, check_positive, check_probability

__all__ = ["check_ucb_beta", "srinivas_beta", "ucb_beta"]


def srinivas_beta(t: int, d: int, delta: float = 0.1) -> float:
    """GP-UCB exploration weight ``beta_t = 2 log(d t^2 pi^2 / (6 delta))``.

    Srinivas et al. 2010, Theorem 1 (``|D|`` replaced by ``d``, as in Brochu et al. 2010,
    §2.3); the UCB is ``mu + sqrt(beta_t) sigma``. ``t >= 1`` counts evaluations.
    """
    if t < 1 or d < 1 or not 0 < delta < 1:
        raise ValueError(f"need t >= 1, d >= 1 and 0 < delta < 1, got {t}, {d}, {delta}")
    return 2.0 * math.log(d * t**2 * math.pi**2 / (6.0 * delta))


def check_ucb_beta(beta: object, delta: object) -> tuple[float | str, float]:
    """The UCB weight options ``(beta, delta)`` of the GP-UCB family, checked.

    ``beta`` is ``"srinivas"`` (the schedule :func:`srinivas_beta`) or a constant ``> 0``;
    ``delta``, the schedule's confidence parameter, lies in ``(0, 1)``.
    """
    if isinstance(beta, str):
        check_choice(beta, "beta", ("srinivas",))
    else:
        beta = check_positive(beta, "beta")
    return beta, check_probability(delta, "delta")


def ucb_beta(beta: float | str, t: int, d: int, delta: float) -> float:
    """``beta_t``: a constant, or :func:`srinivas_beta` ``(t, d, delta)``."""
    return srinivas_beta(t, d, delta) if beta == "srinivas" else float(beta)
