"""``method="auto"``: a method and its options chosen from the problem's description.

The chooser looks at what is known before the first evaluation (the space's parameter
types and dimension, the budget, the batch size, whether the objective is noisy and how
many workers ask for points at once) and takes the first rule of :data:`RULES` that
applies, as Nevergrad's ``NGOpt`` and Ax's generation strategy do. Each rule gives its
reason in one sentence and names the committed benchmark report it rests on
(:attr:`Rule.report`), so a choice can be checked against its evidence and a rule
replaced when a benchmark overturns it. ``isoline methods auto`` prints the rules.

The choice is fixed when a run starts: :func:`isoline.minimize` stores the chosen method
and options as the study's method, with the rule in the study's attributes, and
:class:`~isoline.optimizer.Result` reports it (``Result.choice``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from isoline.auto.outputs import (
    CONSTRAINTS_OPTIONS,
    OBJECTIVES_BATCH_OPTIONS,
    OBJECTIVES_OPTIONS,
    OBJECTIVES_REPORT,
    OUTPUT_RULES,
    choose_for_outputs,
)
from isoline.auto.rules import INTEGER_OPTIONS, RULES, TUNING_OPTIONS, typed_options
from isoline.auto.situation import Choice, Rule, Situation, situation
from isoline.methods.registry import get_method, resolve_name
from isoline.space import SearchSpace

__all__ = [
    "AUTO", "CONSTRAINTS_OPTIONS", "INTEGER_OPTIONS", "OBJECTIVES_BATCH_OPTIONS", "OBJECTIVES_OPTIONS",
    "OBJECTIVES_REPORT", "TUNING_OPTIONS",
    "Situation", "Rule", "Choice", "OUTPUT_RULES", "RULES", "situation", "choose", "resolve",
    "typed_options", "explain",
]  # fmt: skip

#: the method name that asks for the automatic choice
AUTO = "auto"
#: options ``method="auto"`` takes besides the budget (every other option belongs to a
#: named method)
AUTO_OPTIONS = ("noisy", "workers")


def choose(
    space: SearchSpace,
    budget: int | None = None,
    batch_size: int = 1,
    noisy: bool = False,
    workers: int = 1,
) -> Choice:
    """The method and options for ``space`` (first rule of :data:`RULES` that applies).

    Args:
        space: the search :class:`~isoline.space.Box` or typed :class:`~isoline.params.Space`.
        budget: number of evaluations, if known.
        batch_size: points evaluated together.
        noisy: whether the objective's values are noisy.
        workers: evaluations running at once, each worker asking for its own point
            (:attr:`Situation.workers`).
    """
    s = situation(space, budget, batch_size, noisy, workers=workers)
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
    choice for ``budget`` (if known), taking only ``noisy`` and ``workers`` from
    ``options``. With several objectives or constraints, ``"auto"`` takes
    :func:`choose_for_outputs`. On a space with known linear constraints a choice that
    cannot meet them becomes gp-ei (which can), and its reason says so.

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
    noisy, workers = options.get("noisy", False), options.get("workers", 1)
    if n_objectives > 1 or n_constraints:
        s = situation(space, budget, batch_size, noisy, n_objectives, n_constraints, workers)
        choice = choose_for_outputs(s)
    else:
        choice = choose(space, budget, batch_size, noisy, workers)
    if (
        space.input_constraints is not None
        and not get_method(choice.method).supports_input_constraints
    ):
        reason = (f"{choice.reason.rstrip('.')}; the space's linear constraints are not handled by "
                  f"{choice.method}, so gp-ei (which handles them) runs instead")  # fmt: skip
        choice = Choice("gp-ei", {}, choice.rule, choice.when, reason, choice.report)
    return choice.method, dict(choice.options), choice


def explain() -> list[tuple[str, str, str, str, str]]:
    """``(rule, when, method, reason, report)`` of every rule, in the order they are tried
    (:data:`OUTPUT_RULES`, then :data:`RULES`); ``report`` is the path of the rule's
    benchmark report, relative to the repository."""
    return [(r.name, r.when, r.method, r.reason, r.report) for r in (*OUTPUT_RULES, *RULES)]
