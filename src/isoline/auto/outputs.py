"""The rules of ``method="auto"`` for several objectives or black-box constraints
(:data:`OUTPUT_RULES`), tried in place of :data:`isoline.auto.rules.RULES`, and the
options they give gp-ei."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from isoline.auto.rules import TUNING_OPTIONS
from isoline.auto.situation import Choice, Rule, Situation

__all__ = [
    "CONSTRAINTS_OPTIONS", "FEW_CONSTRAINTS", "OBJECTIVES_BATCH_OPTIONS", "OBJECTIVES_OPTIONS",
    "OBJECTIVES_REPORT", "OUTPUT_RULES", "choose_for_outputs",
]  # fmt: skip

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
        "time by one worker, no integer or categorical parameter",
        lambda s: (
            s.n_objectives == 1
            and s.batch_size == 1
            and s.workers == 1
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
