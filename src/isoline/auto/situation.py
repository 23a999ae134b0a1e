"""What ``method="auto"`` knows about a problem (:class:`Situation`), one rule of its
chooser (:class:`Rule`) and what a rule picks (:class:`Choice`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from isoline.space import SearchSpace
from isoline.validation import check_bool, check_int

__all__ = ["Choice", "Rule", "Situation", "situation"]


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
        workers: evaluations running at once when each worker asks for its own point
            while the others' points are still being evaluated (asynchronous ask/tell, an
            Optuna study with several workers); 1 for one point at a time or for
            synchronous batches (``batch_size``).
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
    workers: int = 1


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


def situation(
    space: SearchSpace,
    budget: int | None = None,
    batch_size: int = 1,
    noisy: bool = False,
    n_objectives: int = 1,
    n_constraints: int = 0,
    workers: int = 1,
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
        check_int(workers, "workers", 1),
    )  # fmt: skip
