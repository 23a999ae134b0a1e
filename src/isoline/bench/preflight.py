"""Building a benchmark config's problems and methods before any run starts.

:func:`run_errors` finds what would stop runs at their start (a problem's keywords or
dimension, a method's options, ``from-problem`` hints, batch size) so that a config is
refused as a whole before anything runs; :func:`make_problem`, :func:`problem_objective`
and :func:`resolve_options` build a run's problem, objective and method options the same
way the runs do. Configs and runs are read through the small protocols below, so this
module needs neither :mod:`isoline.bench.config` nor :mod:`isoline.bench.runner`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from isoline.objective import Objective

__all__ = [
    "FROM_PROBLEM", "ConfigLike", "MethodLike", "ProblemLike", "RunLike", "make_problem",
    "problem_objective", "resolve_options", "run_errors",
]  # fmt: skip


class MethodLike(Protocol):
    """A config's method entry as read here (:class:`isoline.bench.config.MethodSpec`)."""

    @property
    def name(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def options(self) -> dict[str, Any]: ...
    @property
    def batch_size(self) -> int | None: ...


class ProblemLike(Protocol):
    """A config's problem entry as read here (:class:`isoline.bench.config.ProblemSpec`)."""

    @property
    def name(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def kwargs(self) -> dict[str, Any]: ...
    @property
    def budget(self) -> int | None: ...


class RunLike(Protocol):
    """One run as read here (:class:`isoline.bench.config.RunSpec`)."""

    @property
    def problem(self) -> ProblemLike: ...
    @property
    def seed(self) -> int: ...


class ConfigLike(Protocol):
    """A benchmark config as read here (:class:`isoline.bench.config.BenchConfig`)."""

    @property
    def budget(self) -> int: ...
    @property
    def seeds(self) -> Sequence[int]: ...
    @property
    def batch_size(self) -> int: ...
    @property
    def methods(self) -> Sequence[MethodLike]: ...
    @property
    def problems(self) -> Sequence[ProblemLike]: ...
    @property
    def direction(self) -> str: ...


def make_problem(spec: RunLike) -> Any:
    """The problem of run ``spec``, built with the run's seed and the problem's keywords."""
    from isoline import problems

    return problems.get(spec.problem.name, seed=spec.seed, **spec.problem.kwargs)


def problem_objective(problem: Any, direction: str) -> Objective:
    """What a run on ``problem`` optimizes: the problem's own :class:`Objective` when it
    has several outputs (``problem.objective``), else the config's ``direction``.

    Raises:
        ValueError: a config direction other than minimize for a problem with its own.
    """
    own = getattr(problem, "objective", None)
    if own is None:
        return Objective.of(direction)
    if direction != "minimize":
        raise ValueError(
            f"problem {problem.name!r} gives its own objectives ({own.describe()}); "
            f"leave the config's direction at minimize, got {direction!r}"
        )
    return own


#: option value that a benchmark config takes from the problem's ``model_hints()``
FROM_PROBLEM = "from-problem"


def resolve_options(options: dict[str, Any], problem: Any) -> dict[str, Any]:
    """``options`` with every ``from-problem`` value replaced by the problem's hint.

    Raises:
        ValueError: if the problem has no hint of that name.
    """
    hints = problem.model_hints()
    out = dict(options)
    for key, value in options.items():
        if value == FROM_PROBLEM:
            if key not in hints:
                raise ValueError(
                    f"option {key}: {FROM_PROBLEM} but problem {problem.name!r} has no hint "
                    f"{key!r} (it has: {sorted(hints) or 'none'})"
                )
            out[key] = hints[key]
    return out


def run_errors(cfg: ConfigLike, positions: tuple[list[int], list[int]] | None = None) -> list[str]:
    """What would stop runs of ``cfg`` at their start, found before any starts: each
    problem is built once (with the first seed: its keywords and dimension) and each
    method's optimizer on each problem (its options, ``from-problem`` hints and batch
    size). One line per error, naming the entry; an error every problem gives a method
    is listed once. Peers are left out (the config checked their options already).
    ``positions``: the entries' indices in the config file's ``methods`` and
    ``problems`` lists, when ``cfg`` holds only some of them."""
    from isoline import problems
    from isoline.auto import AUTO
    from isoline.methods.base import check_capability
    from isoline.methods.registry import get_method
    from isoline.optimizer import Optimizer
    from isoline.problems.base import is_noisy

    errors: list[str] = []
    where_m, where_p = positions or (list(range(len(cfg.methods))), list(range(len(cfg.problems))))
    seed = cfg.seeds[0]
    built = []
    for i, p in enumerate(cfg.problems):
        try:
            built.append((p, problems.get(p.name, seed=seed, **p.kwargs)))
        except (ValueError, TypeError, ImportError) as e:
            errors.append(f"problems[{where_p[i]}] {p.label!r}: {e}")
    for j, m in enumerate(cfg.methods):
        peer = m.name != AUTO and getattr(get_method(m.name), "family", "") == "peer"
        found: dict[str, list[str]] = {}
        for p, problem in built:
            try:
                objective = problem_objective(problem, cfg.direction)
                if peer:  # a peer refuses a specification it cannot take when built
                    check_capability(get_method(m.name), objective.n_objectives,
                                     objective.n_constraints)  # fmt: skip
                    continue
                options = resolve_options(m.options, problem)
                if m.name == AUTO:
                    options.setdefault("noisy", is_noisy(problem))
                if m.name == AUTO or get_method(m.name).takes_budget:
                    options.setdefault("budget", p.budget or cfg.budget)
                Optimizer(problem.space, m.name, seed=seed, objective=objective,
                          batch_size=m.batch_size or cfg.batch_size, **options)  # fmt: skip
            except (ValueError, TypeError) as e:
                found.setdefault(str(e), []).append(p.label)
        for message, labels in found.items():
            where = "" if len(labels) == len(built) > 1 else f" on {', '.join(labels)}"
            errors.append(f"methods[{where_m[j]}] {m.label!r}{where}: {message}")
    return errors
