"""``method="auto"``: a method and its options chosen from the problem's description.

The chooser looks at what is known before the first evaluation (the space's parameter
types and dimension, the budget, the batch size and whether the objective is noisy) and
takes the first rule of :data:`RULES` that applies, as Nevergrad's ``NGOpt`` and Ax's
generation strategy do. Each rule gives its reason in one sentence and names the committed
benchmark report it rests on (:attr:`Rule.report`), so a choice can be checked against its
evidence and a rule replaced when a benchmark overturns it. ``isoline methods auto``
prints the rules.

The choice is fixed when a run starts: :func:`isoline.minimize` stores the chosen method
and options as the study's method, with the rule in the study's attributes, and
:class:`~isoline.optimizer.Result` reports it (``Result.choice``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from isoline.methods.registry import get_method, resolve_name
from isoline.space import SearchSpace
from isoline.validation import check_bool, check_int

__all__ = [
    "AUTO", "CONSTRAINTS_OPTIONS", "INTEGER_OPTIONS", "OBJECTIVES_BATCH_OPTIONS", "OBJECTIVES_OPTIONS",
    "OBJECTIVES_REPORT", "TUNING_OPTIONS",
    "Situation", "Rule", "Choice", "OUTPUT_RULES", "RULES", "situation", "choose", "resolve",
    "typed_options",
]  # fmt: skip

#: the method name that asks for the automatic choice
AUTO = "auto"
#: options ``method="auto"`` takes besides the budget (every other option belongs to a
#: named method)
AUTO_OPTIONS = ("noisy",)
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
#: gp-ei's options on spaces of integers and linear reals only, one point at a time: the
#: analytic log EI and the lean refit of :data:`TUNING_OPTIONS` with gp-ei's default
#: acquisition search; on bbob-mixint they cost 0.81x Optuna GPSampler's CPU where gp-ei's
#: defaults cost 1.55x, with finals not worse than the defaults'
#: (benchmarks/results/auto/mixint_cost/).
INTEGER_OPTIONS: Mapping[str, Any] = {"ei": "logei", "refit_growth": 0.3, "fit_ftol": 1e-6}


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
        categorical: whether the space has a categorical parameter.
        n_objectives: number of objectives.
        n_constraints: number of black-box constraints (``<= 0`` feasible).
    """

    dim: int
    budget: int | None
    batch_size: int
    noisy: bool
    discrete: bool
    rescaled: bool = False
    categorical: bool = False
    n_objectives: int = 1
    n_constraints: int = 0


@dataclass(frozen=True)
class Rule:
    """One rule of the chooser: when it applies, what it picks, why (one sentence) and the
    benchmark report the reason rests on (a path relative to the repository root, which
    the documentation links)."""

    name: str
    when: str
    applies: Callable[[Situation], bool]
    method: str
    reason: str
    report: str
    options: Callable[[Situation], dict[str, Any]] = field(default=lambda s: {})

    def choice(self, s: Situation) -> Choice:
        """What this rule picks for ``s``."""
        return Choice(self.method, self.options(s), self.name, self.when, self.reason, self.report)


@dataclass(frozen=True)
class Choice:
    """The method and options ``auto`` chose, and the rule that chose them."""

    method: str
    options: dict[str, Any]
    rule: str
    when: str
    reason: str
    report: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "options": dict(self.options),
            "rule": self.rule,
            "when": self.when,
            "reason": self.reason,
            "report": self.report,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Choice:
        """The choice a study recorded (:meth:`to_dict`; a study from before the short
        reasons recorded its evidence text instead)."""
        return cls(
            str(d["method"]),
            dict(d.get("options") or {}),
            str(d.get("rule", "")),
            str(d.get("when", "")),
            str(d.get("reason", d.get("evidence", ""))),
            str(d.get("report", "")),
        )


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
        "no log- or logit-scaled parameter",
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


def situation(
    space: SearchSpace,
    budget: int | None = None,
    batch_size: int = 1,
    noisy: bool = False,
    n_objectives: int = 1,
    n_constraints: int = 0,
) -> Situation:
    """The :class:`Situation` of a problem, with its arguments checked."""
    if not isinstance(space, SearchSpace):
        raise TypeError(f"space must be an isoline.Box or Space, got {type(space).__name__}")
    if budget is not None:
        budget = check_int(budget, "budget", 1)
    batch_size = check_int(batch_size, "batch_size", 1)
    noisy = check_bool(noisy, "noisy")
    return Situation(
        space.dim, budget, batch_size, noisy, space.discrete, space.rescaled, space.categorical,
        check_int(n_objectives, "n_objectives", 1), check_int(n_constraints, "n_constraints", 0),
    )  # fmt: skip


def choose(
    space: SearchSpace, budget: int | None = None, batch_size: int = 1, noisy: bool = False
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
            return rule.choice(s)
    raise ValueError(f"no rule of method='auto' applies to {s}")  # pragma: no cover


def resolve(
    method: str,
    space: SearchSpace,
    batch_size: int,
    options: Mapping[str, Any],
    budget: int | None = None,
    n_objectives: int = 1,
    n_constraints: int = 0,
) -> tuple[str, dict[str, Any], Choice | None]:
    """``(method, options, choice)``: a named method passes through in its registered
    spelling (:func:`isoline.methods.registry.resolve_name`); ``"auto"`` becomes its
    choice for ``budget`` (if known), taking only ``noisy`` from ``options``. With several
    objectives or constraints, ``"auto"`` takes :func:`choose_for_outputs`. On a space
    with known linear constraints a choice that cannot meet them becomes gp-ei (which
    can), and its reason says so.

    Raises:
        TypeError: ``"auto"`` given options of a named method.
        ValueError: an unknown method name.
    """
    method = resolve_name(method)
    if method != AUTO:
        return method, dict(options), None
    other = sorted(set(options) - set(AUTO_OPTIONS))
    if other:
        raise TypeError(
            f"method='auto' takes only the options {list(AUTO_OPTIONS)} (and budget), got "
            f"{other}; name a method to set its own options"
        )
    noisy = options.get("noisy", False)
    if n_objectives > 1 or n_constraints:
        s = situation(space, budget, batch_size, noisy, n_objectives, n_constraints)
        choice = choose_for_outputs(s)
    else:
        choice = choose(space, budget, batch_size, noisy)
    if (
        space.input_constraints is not None
        and not get_method(choice.method).supports_input_constraints
    ):
        reason = (f"{choice.reason.rstrip('.')}; the space's linear constraints are not handled by "
                  f"{choice.method}, so gp-ei (which handles them) runs instead")  # fmt: skip
        choice = Choice("gp-ei", {}, choice.rule, choice.when, reason, choice.report)
    return choice.method, dict(choice.options), choice


#: gp-ei's options for several objectives in batches or under constraints: qLogNParEGO
#: (random Chebyshev scalarizations) in place of its default qLogNEHVI, chosen by rule R1
#: of the multi-objective suite (benchmarks/field/multiobjective.yaml), where it was the
#: best-ranked isoline contender.
OBJECTIVES_BATCH_OPTIONS: Mapping[str, Any] = {"mo_acquisition": "parego"}
#: the report :data:`OBJECTIVES_BATCH_OPTIONS` rests on
OBJECTIVES_BATCH_REPORT = "benchmarks/results/field/multiobjective/README.md"
#: gp-ei's options for several objectives without constraints, one point at a time:
#: Knowles's ParEGO (one GP of the scalarization, analytic log EI) with gp-ei's own fit and
#: acquisition search, the objectives winsorized for the model, and the box's centre as the
#: first point (Ax's default generation strategy starts there). Each ingredient was adopted
#: on fresh cells: ParEGO with a lean search (:data:`OBJECTIVES_LEAN_REPORT`), the full
#: search (:data:`OBJECTIVES_FULL_REPORT`), winsorizing (:data:`OBJECTIVES_WINSORIZE_REPORT`)
#: and the centre (:data:`OBJECTIVES_REPORT`).
OBJECTIVES_OPTIONS: Mapping[str, Any] = {
    "mo_acquisition": "parego-ei",
    "winsorize": True,
    "init": "centre",
}
#: the report :data:`OBJECTIVES_OPTIONS` rests on
OBJECTIVES_REPORT = "benchmarks/results/field/mo_centre/README.md"
#: the report that made :data:`OBJECTIVES_OPTIONS` winsorize the objectives
OBJECTIVES_WINSORIZE_REPORT = "benchmarks/results/field/mo_winsorize/README.md"
#: the report that moved :data:`OBJECTIVES_OPTIONS` to gp-ei's full search
OBJECTIVES_FULL_REPORT = "benchmarks/results/field/mo_parego_full/README.md"
#: the report that chose Knowles's ParEGO over qLogNParEGO (with the lean search)
OBJECTIVES_LEAN_REPORT = "benchmarks/results/field/mo_parego_ei/README.md"
_TUNING_SEARCH = ("refit_growth", "fit_ftol", "acq_maxiter", "raw_samples", "num_restarts")
#: the report the choice for one objective with constraints rests on
CONSTRAINTS_REPORT = "benchmarks/results/field/constrained/README.md"
#: gp-ei's options for one objective with black-box constraints, one point at a time: the
#: analytic constrained log EI, one acquisition start at the best feasible point (as
#: Optuna's GPSampler starts at its best trial) and the search and refit of
#: :data:`TUNING_OPTIONS`. On two fresh sets of the constrained suite's 55 cells below d 10
#: they cost 0.06x gp-ei's defaults' CPU and ended lower in 87 of the 107 cells that
#: differ; the second set's rule adopted them (:data:`CONSTRAINTS_LEAN_REPORT`). On 50
#: fresh cells at d 10 they cost 0.92x Optuna GPSampler's CPU (the defaults 10.85x) and
#: passed the same test (:data:`CONSTRAINTS_HIGH_DIM_REPORT`).
CONSTRAINTS_OPTIONS: Mapping[str, Any] = {
    "ei": "logei",
    "start_at_best": True,
    **{k: TUNING_OPTIONS[k] for k in _TUNING_SEARCH},
}
#: the report :data:`CONSTRAINTS_OPTIONS` rests on below d 10
CONSTRAINTS_LEAN_REPORT = "benchmarks/results/field/constrained_best_second/README.md"
#: the most black-box constraints for which auto runs COBYQA; with more, COBYQA's
#: evaluations were rarely feasible (benchmarks/results/field/constrained_local/)
FEW_CONSTRAINTS = 3
#: the report the rule "few constraints" rests on
CONSTRAINTS_FEW_REPORT = "benchmarks/results/field/constrained_few_cobyqa/README.md"
#: the report that extended :data:`CONSTRAINTS_OPTIONS` to d >= 10
CONSTRAINTS_HIGH_DIM_REPORT = "benchmarks/results/field/constrained_high_dim_confirm/lean/README.md"


#: the rules for several objectives or black-box constraints, tried in order in place of
#: :data:`RULES` (which are for one objective without constraints); each rests on a
#: rule fixed in its suite's config before the runs
OUTPUT_RULES: tuple[Rule, ...] = (
    Rule(
        "several objectives",
        "two or more objectives without constraints, one point at a time",
        lambda s: s.n_objectives > 1 and not s.n_constraints and s.batch_size == 1,
        "gp-ei",
        "Knowles's ParEGO, full search, winsorized objectives, the centre first: ahead of "
        "the forms it replaced on fresh cells at 0.73x GPSampler's CPU.",
        OBJECTIVES_REPORT,
        lambda s: dict(OBJECTIVES_OPTIONS),
    ),
    Rule(
        "several objectives, batches or constraints",
        "two or more objectives in batches or with constraints",
        lambda s: s.n_objectives > 1,
        "gp-ei",
        "qLogNParEGO was the best-ranked isoline method on BoTorch's multi-objective "
        "problems, level with EHVI at a third of its CPU; Ax ranked ahead.",
        OBJECTIVES_BATCH_REPORT,
        lambda s: dict(OBJECTIVES_BATCH_OPTIONS),
    ),
    Rule(
        "few constraints",
        f"one objective with 1-{FEW_CONSTRAINTS} black-box constraints, one point at a "
        "time, no integer or categorical parameter",
        lambda s: (
            s.n_objectives == 1
            and s.batch_size == 1
            and not s.discrete
            and s.n_constraints <= FEW_CONSTRAINTS
        ),
        "cobyqa",
        "With few constraints COBYQA ended lower than gp-ei's constraints form and than "
        "gp-ei handing off to COBYQA on fresh cells, at under a tenth of their CPU.",
        CONSTRAINTS_FEW_REPORT,
    ),
    Rule(
        "constraints",
        "one objective with black-box constraints, one point at a time",
        lambda s: s.n_objectives == 1 and s.batch_size == 1,
        "gp-ei",
        "Started at the best feasible point with a lean search, gp-ei ended level or "
        "below its defaults on fresh constrained cells at d 2-10, at 0.06-0.09x their CPU.",
        CONSTRAINTS_LEAN_REPORT,
        lambda s: dict(CONSTRAINTS_OPTIONS),
    ),
    Rule(
        "constraints in batches",
        "one objective with black-box constraints, in batches",
        lambda s: True,
        "gp-ei",
        "gp-ei ranked first of eleven contenders on BoTorch's constrained problems, not "
        "ahead of TuRBO and Ax by a test.",
        CONSTRAINTS_REPORT,
    ),
)


def choose_for_outputs(s: Situation) -> Choice:
    """The choice for several objectives or constraints: the first rule of
    :data:`OUTPUT_RULES` that applies to ``s`` and whose method handles them (each rule
    says what its evidence covers in ``benchmarks/results/auto/RULES.md``)."""
    from isoline.methods.registry import capable_methods

    able = capable_methods(s.n_objectives, s.n_constraints)
    for rule in OUTPUT_RULES:
        if rule.applies(s) and rule.method in able:
            return rule.choice(s)
    what = f"{s.n_objectives} objectives and {s.n_constraints} constraints"
    return Choice(able[0], {}, "outputs", what, f"{able[0]} handles {what}.", "")


def explain() -> list[tuple[str, str, str, str, str]]:
    """``(rule, when, method, reason, report)`` of every rule, in the order they are tried
    (:data:`OUTPUT_RULES`, then :data:`RULES`); ``report`` is the path of the rule's
    benchmark report, relative to the repository."""
    return [(r.name, r.when, r.method, r.reason, r.report) for r in (*OUTPUT_RULES, *RULES)]
