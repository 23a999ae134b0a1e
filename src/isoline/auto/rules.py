"""The rules of ``method="auto"`` for one objective without constraints, tried in order
(:data:`RULES`), and the options they give the methods they pick."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from isoline.auto.situation import Rule, Situation

__all__ = [
    "HIGH_DIM", "INTEGER_OPTIONS", "LOCAL_MAX_DIM", "NOISY_LOCAL_MAX_DIM", "RULES",
    "SHORT_BUDGET_PER_DIM", "TUNING_OPTIONS", "typed_options",
]  # fmt: skip

#: dimension from which the high-dimensional rules apply
HIGH_DIM = 20
#: largest dimension at which the local quadratic-model method is chosen for a noise-free
#: objective (measured up to here)
LOCAL_MAX_DIM = 10
#: the same for a noisy objective (measured up to here)
NOISY_LOCAL_MAX_DIM = 5
#: evaluations per dimension up to which a high-dimensional budget counts as short
SHORT_BUDGET_PER_DIM = 5
#: gp-ei's options for tuning spaces (a categorical or a log- or logit-scaled real) one
#: point at a time: the analytic log EI, a refit of the hyperparameters only when the data
#: grew by 30%, a looser fit tolerance and a shorter acquisition search; on nine tuning
#: problems they cost 0.49x Optuna GPSampler's CPU where gp-ei's defaults cost 1.25x, with
#: finals not worse (benchmarks/results/field/hpo_cost_confirm/). On spaces of integers and
#: linear reals they ended worse than the defaults (benchmarks/results/auto/tuning_mixint/),
#: so those get :data:`INTEGER_OPTIONS` (:func:`typed_options`). Points still being
#: evaluated elsewhere (asynchronous workers) and batches are handled by the Kriging
#: believer: on eight tuning problems with four simulated workers it was not worse than the
#: Monte-Carlo log EI with pending points at 0.64x its CPU (benchmarks/results/auto/async_pending/).
TUNING_OPTIONS: Mapping[str, Any] = {
    "ei": "logei",
    "refit_growth": 0.3,
    "fit_ftol": 1e-6,
    "acq_maxiter": 20,
    "raw_samples": 128,
    "num_restarts": 3,
    "believer": True,
}
#: the report the rule "asynchronous" rests on
ASYNC_REPORT = "benchmarks/results/auto/async_confirm/README.md"
#: gp-ei's options on spaces of integers and linear reals only, one point at a time: the
#: analytic log EI and the lean refit of :data:`TUNING_OPTIONS` with gp-ei's default
#: acquisition search; on bbob-mixint they cost 0.81x Optuna GPSampler's CPU where gp-ei's
#: defaults cost 1.55x, with finals not worse than the defaults'
#: (benchmarks/results/auto/mixint_cost/).
INTEGER_OPTIONS: Mapping[str, Any] = {"ei": "logei", "refit_growth": 0.3, "fit_ftol": 1e-6}


def _design_only(s: Situation) -> bool:
    """The whole budget fits in a model-based method's initial design."""
    from isoline.methods.base import Method

    return s.budget is not None and s.budget <= Method.default_n_init(s.dim)


def _short_high_dim(s: Situation) -> bool:
    """High-dimensional on linear scales, with few evaluations per dimension but more than
    COBYQA's first interpolation set (``2 d + 1`` points, before its first model step),
    one worker."""
    return (
        s.dim >= HIGH_DIM
        and s.workers == 1
        and not s.rescaled
        and s.budget is not None
        and 2 * s.dim + 1 < s.budget <= SHORT_BUDGET_PER_DIM * s.dim
    )


def typed_options(s: Situation) -> dict[str, Any]:
    """gp-ei's options on a typed space: :data:`TUNING_OPTIONS` where a categorical or a
    rescaled real marks a tuning space (their evidence), :data:`INTEGER_OPTIONS` on spaces
    of integers and linear reals only."""
    return dict(TUNING_OPTIONS) if s.categorical or s.rescaled else dict(INTEGER_OPTIONS)


#: the rules in the order they are tried; the last one always applies
RULES: tuple[Rule, ...] = (
    Rule(
        "design-only",
        "the budget is no larger than a model-based method's initial design (2 d, 2-20)",
        _design_only,
        "sobol",
        "No model-based step would run: every GP method would serve the same scrambled Sobol "
        "points.",
        "benchmarks/results/auto/RULES.md",
    ),
    Rule(
        "batch-tuning",
        f"batch_size > 1, d < {HIGH_DIM} and the space has a categorical or a log- or "
        "logit-scaled real parameter",
        lambda s: s.batch_size > 1 and s.dim < HIGH_DIM and (s.categorical or s.rescaled),
        "gp-ei",
        "Batches chosen one point at a time by the Kriging believer ended lower than bkop's "
        "on nine tuning problems, level with GPSampler.",
        "benchmarks/results/field/hpo_batch_believer/",
        lambda s: dict(TUNING_OPTIONS),
    ),
    Rule(
        "batch",
        f"batch_size > 1 and d < {HIGH_DIM}",
        lambda s: s.batch_size > 1 and s.dim < HIGH_DIM,
        "bkop",
        "BKOP ended lowest against the batch GP-UCB methods on the synthetic and push "
        "batches, and gp-ei did no better on typed spaces.",
        "benchmarks/results/batch_bo/summary.md",
    ),
    Rule(
        "batch-high-dim",
        f"batch_size > 1 and d >= {HIGH_DIM}",
        lambda s: s.batch_size > 1,
        "turbo",
        "TuRBO's trust region scales to d = 33-100, where the batch GP-UCB methods were not "
        "measured.",
        "benchmarks/results/local_bo/rl_summary.md",
    ),
    Rule(
        "discrete",
        "the space has integer or categorical parameters",
        lambda s: s.discrete,
        "gp-ei",
        "gp-ei with Optuna's GP priors beat its former defaults on nine tuning problems, "
        "level with GPSampler; a cheaper search halves its CPU on tuning spaces.",
        "benchmarks/results/field/hpo_confirm/",
        typed_options,
    ),
    Rule(
        "rescaled",
        f"d < {HIGH_DIM} and the space has a log- or logit-scaled real parameter",
        lambda s: s.rescaled and s.dim < HIGH_DIM,
        "gp-ei",
        "A cross-validated score is a step function of log-scaled hyperparameters, which "
        "COBYQA cannot descend and gp-ei searches well.",
        "benchmarks/results/field/hpo_sequential/",
        typed_options,
    ),
    Rule(
        "high-dim-short-budget",
        f"d >= {HIGH_DIM}, a known budget above 2 d + 1 and at most {SHORT_BUDGET_PER_DIM} d, "
        "no log- or logit-scaled parameter, one worker",
        _short_high_dim,
        "cobyqa",
        "With a budget of a few evaluations per dimension COBYQA ended lower than TuRBO on "
        "GP-sampled objectives.",
        "benchmarks/results/field/seed_highdim_budget/",
    ),
    Rule(
        "high-dim",
        f"d >= {HIGH_DIM}, noisy or not",
        lambda s: s.dim >= HIGH_DIM,
        "turbo",
        "TuRBO ended lowest on the high-dimensional policy searches and on noisy GP-sampled "
        "objectives at d = 25 and 50.",
        "benchmarks/results/field/seed_noisy_rule/",
    ),
    Rule(
        "asynchronous",
        f"d < {HIGH_DIM}, continuous, one point at a time by several workers (workers > 1)",
        lambda s: s.workers > 1,
        "gp-ei",
        "With four workers on BBOB at d 2-10 gp-ei's Kriging believer ended lower than "
        "COBYQA, which answers asks made while its point is pending at random.",
        ASYNC_REPORT,
        lambda s: dict(TUNING_OPTIONS),
    ),
    Rule(
        "low-dim-local",
        f"d <= {NOISY_LOCAL_MAX_DIM}, or d <= {LOCAL_MAX_DIM} noise-free; continuous, one "
        "point at a time",
        lambda s: s.dim <= (NOISY_LOCAL_MAX_DIM if s.noisy else LOCAL_MAX_DIM),
        "cobyqa",
        "COBYQA had the best mean rank of the field on COCO BBOB at d = 2, 5 and 10.",
        "benchmarks/results/field/bbob/",
    ),
    Rule(
        "low-dim",
        f"d < {HIGH_DIM} above the local rule's range; continuous, one point at a time",
        lambda s: True,
        "turbo",
        "TuRBO ranked ahead of isoline's GP methods on BBOB, and ahead of CMA-ES at 10 < d < 20.",
        "benchmarks/results/field/mid_dim_rule/",
    ),
)
