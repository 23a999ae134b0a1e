"""``method="auto"``: a method and its options chosen from the problem's description.

The chooser looks at what is known before the first evaluation (the space's parameter
types and dimension, the budget, the batch size and whether the objective is noisy) and
takes the first rule of :data:`RULES` that applies, as Nevergrad's ``NGOpt`` and Ax's
generation strategy do. Each rule names the committed benchmark report it rests on
(under ``benchmarks/results/``), so a choice can be checked against its evidence and a
rule replaced when a benchmark overturns it. ``isoline methods`` prints the rules.

The choice is fixed when a run starts: :func:`isoline.minimize` stores the chosen method
and options as the study's method, with the rule in the study's attributes, and
:class:`~isoline.optimizer.Result` reports it (``Result.choice``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from isoline.params import Categorical, Integer, Real, Space
from isoline.space import Box
from isoline.validation import check_bool, check_int

__all__ = ["AUTO", "Situation", "Rule", "Choice", "RULES", "situation", "choose", "resolve"]

#: the method name that asks for the automatic choice
AUTO = "auto"
#: options ``method="auto"`` takes (every other option belongs to a named method)
AUTO_OPTIONS = ("budget", "noisy")
#: dimension from which the high-dimensional rules apply
HIGH_DIM = 20
#: largest dimension at which the local quadratic-model method is chosen for a noise-free
#: objective (measured up to here)
LOCAL_MAX_DIM = 10
#: the same for a noisy objective (measured up to here)
NOISY_LOCAL_MAX_DIM = 5
#: evaluations per dimension up to which a high-dimensional budget counts as short
SHORT_BUDGET_PER_DIM = 5


@dataclass(frozen=True)
class Situation:
    """What the chooser knows about a problem.

    Attributes:
        dim: encoded dimension (the unit cube the methods search).
        budget: number of evaluations, or ``None`` when not known (ask/tell use).
        batch_size: points evaluated together.
        noisy: whether repeated evaluations of one point return different values.
        discrete: whether the space has integer or categorical parameters.
        rescaled: whether the space has a real parameter on a log or logit scale (how
            hyperparameters spanning orders of magnitude are declared).
    """

    dim: int
    budget: int | None
    batch_size: int
    noisy: bool
    discrete: bool
    rescaled: bool = False


@dataclass(frozen=True)
class Rule:
    """One rule of the chooser: when it applies, what it picks and the evidence."""

    name: str
    when: str
    applies: Callable[[Situation], bool]
    method: str
    evidence: str
    options: Callable[[Situation], dict[str, Any]] = field(default=lambda s: {})


@dataclass(frozen=True)
class Choice:
    """The method and options ``auto`` chose, and the rule that chose them."""

    method: str
    options: dict[str, Any]
    rule: str
    when: str
    evidence: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "options": dict(self.options),
            "rule": self.rule,
            "when": self.when,
            "evidence": self.evidence,
        }


def _design_only(s: Situation) -> bool:
    """The whole budget fits in a model-based method's initial design."""
    from isoline.methods.base import Method

    return s.budget is not None and s.budget <= Method.default_n_init(s.dim)


def _short_high_dim(s: Situation) -> bool:
    """High-dimensional on linear scales, with few evaluations per dimension but more than
    COBYQA's first interpolation set (``2 d + 1`` points, before its first model step)."""
    return (
        s.dim >= HIGH_DIM
        and not s.rescaled
        and s.budget is not None
        and 2 * s.dim + 1 < s.budget <= SHORT_BUDGET_PER_DIM * s.dim
    )


#: the rules in the order they are tried; the last one always applies
RULES: tuple[Rule, ...] = (
    Rule(
        "design-only",
        "the budget is no larger than a model-based method's initial design (2 d, 2-20)",
        _design_only,
        "sobol",
        "no model-based step would run: every GP method would serve the same scrambled "
        "Sobol points (isoline.designs); nothing to measure",
    ),
    Rule(
        "batch",
        f"batch_size > 1 and d < {HIGH_DIM}",
        lambda s: s.batch_size > 1 and s.dim < HIGH_DIM,
        "bkop",
        "benchmarks/results/batch_bo/summary.md: lowest mean final regret in 12 of 12 "
        "cells (six functions, d = 6, batches of 5 and 10) against GP-BUCB and GP-UCB-PE, "
        "and on push4 (d = 4) at batches of 5 and 10 (p <= 0.032); on the digits tuning task "
        "(d = 3) lower than GP-BUCB at batches of 5 only (not significantly). Typed spaces "
        "too: on nine hpo-sklearn problems in batches of 8 gp-ei was not better than bkop "
        "over 90 cells (lower in 32, higher in 30, one-sided Wilcoxon p = 0.13; "
        "field/hpo_batch_rule/ and field/hpo_batch8/) at about 3x its suggestion time",
    ),
    Rule(
        "batch-high-dim",
        f"batch_size > 1 and d >= {HIGH_DIM}",
        lambda s: s.batch_size > 1,
        "turbo",
        "benchmarks/results/local_bo/rl_summary.md and gp_d100/: TuRBO's trust region "
        "scales to d = 33-100 where the batch GP-UCB family was not measured; its batches "
        "are Thompson samples in one region (batches at d >= 20 not measured yet)",
    ),
    Rule(
        "discrete",
        "the space has integer or categorical parameters",
        lambda s: s.discrete,
        "gp-ei",
        "benchmarks/results/field/hpo_confirm/: gp-ei with Optuna GPSampler's GP priors and "
        "Matern-5/2 kernel against its defaults on nine hpo-sklearn problems, 64 "
        "evaluations, fresh seeds 5-9: better in 22 of 45 cells, worse in 9 (one-sided "
        "Wilcoxon p = 8e-4; rule fixed before the runs), level with Optuna's GPSampler "
        "(mean rank 2.14 vs 2.06 of 4, p = 0.30); on seeds 0-4 "
        "(benchmarks/results/field/hpo_ingredients/) it ranked 4.16 of 11 contenders where "
        "the defaults ranked 4.81 (Optuna GP 3.38), the best of seven of GPSampler's "
        "settings tried one at a time. benchmarks/results/spaces/hpo_mixed_vs_relaxed.md: "
        "the typed space (rounding GP) beats the relaxed one; these settings are gp-ei's "
        "defaults since BBOB confirmed them (benchmarks/results/field/bbob_confirm/)",
    ),
    Rule(
        "rescaled",
        f"d < {HIGH_DIM} and the space has a log- or logit-scaled real parameter",
        lambda s: s.rescaled and s.dim < HIGH_DIM,
        "gp-ei",
        "benchmarks/results/field/hpo_sequential/: on SVM iris (three log-scaled reals, "
        "5-fold CV accuracy, 64 evaluations, 5 seeds), the suite's one problem without "
        "integer or categorical parameters, COBYQA (the low-dim-local rule's choice, "
        "taken from BBOB's smooth functions) ranked 7.9 of 11 contenders and gp-ei 4.8: a "
        "cross-validated score is a step function of the hyperparameters, which a "
        "trust-region interpolation method cannot descend",
    ),
    Rule(
        "high-dim-short-budget",
        f"d >= {HIGH_DIM}, a known budget above 2 d + 1 and at most {SHORT_BUDGET_PER_DIM} d, "
        "no log- or logit-scaled parameter",
        _short_high_dim,
        "cobyqa",
        "benchmarks/results/field/seed_highdim_budget/: on fresh GP-sampled objectives "
        "(seeds 5-14; d = 50 with 200 evaluations, noisy and noise-free, d = 25 with 100, "
        "i.e. 4 d each) COBYQA ended lower than TuRBO in 28 of 30 cells (one-sided "
        "Wilcoxon p = 1e-7; rule fixed before the runs), means 0.90 vs 1.65 (d = 50, noise "
        "sd 0.1), 1.00 vs 1.51 (d = 25), 0.22 vs 1.35 (d = 50 noise-free); on the field's "
        "d = 50 cells (seeds 0-4, field/seed_problems/) lower in 5 of 5. At 8 d (d = 25, "
        "200 evaluations) TuRBO was lower in 4 of 5: it halves its trust region only after "
        "d failures in a row, which a budget of a few d barely allows. Budgets between 5 d "
        "and 8 d and below 4 d not measured; measured with COBYQA started at the centre, "
        "its seeded start (within 0.05 of it, field/bbob_seed/) not re-measured at d >= 20",
    ),
    Rule(
        "high-dim",
        f"d >= {HIGH_DIM}, noisy or not",
        lambda s: s.dim >= HIGH_DIM,
        "turbo",
        "benchmarks/results/local_bo/rl_summary.md: on the deterministic Swimmer (d = 16, "
        "300 evaluations) and Hopper (d = 33, 150) policy searches TuRBO had the lowest mean "
        "final value of the isoline methods (CMA-ES on Hopper at 300). "
        "benchmarks/results/field/seed_noisy_rule/: on noisy GP-sampled objectives (noise "
        "sd 0.1, d = 25 and 50, 200 evaluations, fresh seeds 5-9, no method given the "
        "generating GP hyperparameters) TuRBO ended lower than MinUCB, the earlier choice "
        "for noisy d >= 20, in 10 of 10 cells (means 0.54 vs 0.87 at d = 25, 1.64 vs 2.44 "
        "at d = 50; one-sided Wilcoxon p = 0.001; rule fixed before the runs); on seeds "
        "0-4 (field/seed_problems/, d = 25) it ranked 1.8 of 13 contenders",
    ),
    Rule(
        "low-dim-local",
        f"d <= {NOISY_LOCAL_MAX_DIM}, or d <= {LOCAL_MAX_DIM} noise-free; continuous, one "
        "point at a time",
        lambda s: s.dim <= (NOISY_LOCAL_MAX_DIM if s.noisy else LOCAL_MAX_DIM),
        "cobyqa",
        "benchmarks/results/field/bbob/: on COCO BBOB (ten functions, two per group, "
        "instances 1-3, 15-20 d evaluations) COBYQA had the best mean rank of thirteen "
        "contenders at d = 2 (3.97; Ax 4.57, TuRBO 6.40), d = 5 (3.93; Nevergrad NGOpt, "
        "which runs COBYLA here, 4.10, not significantly different; Ax 5.40) and d = 10 "
        "(1.97; NGOpt 3.17, p = 0.04; Ax 4.43; TuRBO 5.77), 30 cells each, at 0.16-0.6x "
        "Optuna GPSampler's suggestion time. benchmarks/results/auto/noise_d5/: with "
        "Gaussian noise of sd 1 on four BBOB functions and Levy (d = 5, 60 evaluations, 5 "
        "seeds) COBYQA had the lower mean in 3 of 5 against TuRBO, which was never "
        "significantly lower (closest: the sphere, 0.15 vs 0.35, p = 0.07); noise above "
        "d = 5 not measured. benchmarks/results/field/bbob_seed/: COBYQA's first start "
        "drawn within 0.05 of the centre from the seed ranked 3.19 against the centre's "
        "3.37 on 63 of those cells (rule fixed before the runs)",
    ),
    Rule(
        "low-dim",
        f"d < {HIGH_DIM} above the local rule's range; continuous, one point at a time",
        lambda s: True,
        "turbo",
        "benchmarks/results/field/bbob/: TuRBO ranked ahead of gp-ei, the best of "
        "isoline's GP methods, at d = 2, 5 and 10 (6.40, 6.43, 5.77; gp-ei 6.53, 6.60, "
        "7.30) at 1.2-1.5x Optuna GPSampler's suggestion time (gp-ei 3.5-5x). "
        "benchmarks/results/field/mid_dim_rule/: at 10 < d < 20 (push14 with goals drawn "
        "per seed, noise-free GP samples at d = 15, Swimmer d = 16; 200 evaluations, seeds "
        "5-12) TuRBO ended lower than isoline's CMA-ES in 19 of 24 cells (a test of CMA-ES "
        "in its place, not met); noisy objectives at 5 < d < 20 not measured",
    ),
)


def situation(
    space: Box | Space, budget: int | None = None, batch_size: int = 1, noisy: bool = False
) -> Situation:
    """The :class:`Situation` of a problem, with its arguments checked."""
    if not isinstance(space, (Box, Space)):
        raise TypeError(f"space must be an isoline.Box or Space, got {type(space).__name__}")
    if budget is not None:
        budget = check_int(budget, "budget", 1)
    batch_size = check_int(batch_size, "batch_size", 1)
    noisy = check_bool(noisy, "noisy")
    params = list(space.params.values()) if isinstance(space, Space) else []
    discrete = any(isinstance(p, (Integer, Categorical)) for p in params)
    rescaled = any(isinstance(p, Real) and p.scale != "linear" for p in params)
    return Situation(space.dim, budget, batch_size, noisy, discrete, rescaled)


def choose(
    space: Box | Space, budget: int | None = None, batch_size: int = 1, noisy: bool = False
) -> Choice:
    """The method and options for ``space`` (first rule of :data:`RULES` that applies).

    Args:
        space: the search :class:`~isoline.space.Box` or typed :class:`~isoline.params.Space`.
        budget: number of evaluations, if known.
        batch_size: points evaluated together.
        noisy: whether the objective's values are noisy.
    """
    s = situation(space, budget, batch_size, noisy)
    for rule in RULES:
        if rule.applies(s):
            return Choice(rule.method, rule.options(s), rule.name, rule.when, rule.evidence)
    raise ValueError(f"no rule of method='auto' applies to {s}")  # pragma: no cover


def resolve(
    method: str, space: Box | Space, batch_size: int, options: Mapping[str, Any]
) -> tuple[str, dict[str, Any], Choice | None]:
    """``(method, options, choice)``: a named method passes through unchanged; ``"auto"``
    becomes its choice, taking only ``budget`` and ``noisy`` from ``options``.

    Raises:
        TypeError: ``"auto"`` given options of a named method.
    """
    if method != AUTO:
        return method, dict(options), None
    other = sorted(set(options) - set(AUTO_OPTIONS))
    if other:
        raise TypeError(
            f"method='auto' takes only the options {list(AUTO_OPTIONS)}, got {other}; "
            "name a method to set its own options"
        )
    choice = choose(space, options.get("budget"), batch_size, options.get("noisy", False))
    return choice.method, dict(choice.options), choice


def explain() -> list[tuple[str, str, str, str]]:
    """``(rule, when, method, evidence)`` of every rule, in the order they are tried."""
    return [(r.name, r.when, r.method, r.evidence) for r in RULES]
