"""What ``isoline run --problem`` optimizes on a problem, and how its outcome reads.

A problem with several outputs (:mod:`isoline.problems.outputs`) carries its own
:class:`~isoline.objective.Objective` (objective names, directions, constraint names) and,
with several objectives, a reference point for hypervolumes. The command line takes that
specification, lets ``--direction`` / ``--directions`` change the directions of its
objectives (never their number or the constraints), and ``--ref-point`` replace the
reference point.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from isoline.objective import DIRECTIONS, Objective

__all__ = ["cli_objective", "outcome_lines", "parse_directions", "reference_for"]


def parse_directions(text: str) -> list[str]:
    """``"minimize,maximize"`` as a list (ValueError naming an entry that is neither)."""
    out = [d.strip().lower() for d in text.split(",")]
    for given, d in zip(text.split(","), out):
        if d not in DIRECTIONS:
            raise ValueError(
                f"--directions: {given.strip()!r} is not a direction; give a "
                f"comma-separated list of {' or '.join(DIRECTIONS)}, e.g. minimize,maximize"
            )
    return out


def cli_objective(problem: Any, direction: str | None, directions: str | None) -> Objective:
    """The specification a run on ``problem`` optimizes: the problem's own (with its
    objectives' directions replaced by ``directions``, a comma-separated list, or by
    ``direction`` when it has one objective), or one objective in ``direction``.

    Raises:
        ValueError: both given, a wrong count of directions (naming the problem's
            objectives), or a direction other than minimize/maximize.
    """
    if direction is not None and directions is not None:
        raise ValueError("give --direction (one objective) or --directions, not both")
    own: Objective | None = getattr(problem, "objective", None)
    names = ("value",) if own is None else own.names[: own.n_objectives]
    if directions is not None:
        wanted = parse_directions(directions)
        if len(wanted) != len(names):
            raise ValueError(
                f"--directions gives {len(wanted)} direction(s) ({', '.join(wanted)}) but "
                f"problem {problem.name!r} has {len(names)} objective(s) "
                f"({', '.join(names)}): give one per objective"
            )
    elif direction is not None:
        if len(names) > 1:
            raise ValueError(
                f"problem {problem.name!r} has {len(names)} objectives ({', '.join(names)}): "
                f"give their directions with --directions (one per objective), not --direction"
            )
        wanted = [Objective.of(direction).directions[0]]
    elif own is not None:
        return own
    else:
        wanted = ["minimize"]
    if own is None:
        return Objective(wanted[0])
    return Objective(wanted, own.objectives, own.constraints)


def reference_for(problem: Any, objective: Objective, given: str | None) -> tuple[Any, str]:
    """The reference point of a run's hypervolume and where it comes from: ``given``
    (comma-separated numbers), else the problem's own when the run keeps the problem's
    directions, else ``None`` (inferred from the run's front, see
    :meth:`isoline.objective.Objective.reference_point`).

    Raises:
        ValueError: ``given`` with one objective, or not one finite number per objective.
    """
    if given is not None:
        if objective.n_objectives == 1:
            raise ValueError("--ref-point applies to several objectives; this run has one")
        try:
            values = [float(v) for v in given.split(",")]
        except ValueError:
            raise ValueError(
                f"--ref-point must be comma-separated numbers, one per objective "
                f"({', '.join(objective.names[: objective.n_objectives])}), got {given!r}"
            ) from None
        try:
            return objective.check_reference(values), "given"
        except ValueError as err:
            raise ValueError(f"--ref-point: {err}") from None
    own = getattr(problem, "ref_point", None)
    if own is not None and objective == getattr(problem, "objective", None):
        return np.asarray(own, dtype=float), "the problem's"
    return None, "inferred from the front"


#: the study attribute where ``isoline run`` records the reference point it reported against
REFERENCE_ATTR = "reference_point"


def record_reference(storage: str, study: str, ref: Any, source: str) -> None:
    """Record in ``study``'s attributes the reference point ``ref`` a run reported its
    hypervolume against (``source``: where it came from), for ``isoline report``."""
    from isoline.store import Store

    point = [float(v) for v in np.asarray(ref, dtype=float)]
    with Store(storage) as store:
        rec = store.get_study(study)
        if rec is not None:
            store.update_attr(rec, REFERENCE_ATTR, lambda _: {"point": point, "source": source})


def stored_reference(
    storage: str, study: str, objective: Objective | None, given: str | None
) -> tuple[Any, str]:
    """The reference point of a study's report: ``given`` (comma-separated numbers, as
    :func:`reference_for` reads them), else the one :func:`record_reference` recorded, else
    ``None`` (inferred from the front). One objective: ``None``; ``given`` is refused."""
    from isoline.store import Store

    if objective is None or objective.n_objectives == 1:
        if given is not None:
            raise ValueError("--ref-point applies to several objectives; this study has one")
        return None, "inferred"
    if given is not None:
        return reference_for(None, objective, given)
    with Store(storage, create=False, readonly=True) as store:
        rec = store.get_study(study)
        recorded = None if rec is None else rec.attrs.get(REFERENCE_ATTR)
    if not isinstance(recorded, dict):
        return None, "inferred"
    try:
        point = objective.check_reference(recorded.get("point", []))
    except (TypeError, ValueError):
        return None, "inferred"
    return point, f"{recorded.get('source', 'given')}; recorded by isoline run"


def outcome_lines(res: Any, problem: Any, ref: Any, source: str) -> list[str]:
    """What a finished run found, for the terminal: with several objectives the feasible
    Pareto front's size and hypervolume against ``ref`` (``None``: inferred); with
    constraints the best feasible value or that nothing feasible was found."""
    spec: Objective = res.objective
    n, k = res.n_evals, int(res.feasible.sum())
    lines = []
    if spec.n_constraints:
        lines.append(f"feasible evaluations: {k} of {n} "
                     f"({', '.join(spec.constraints)} <= 0)")  # fmt: skip
    if spec.n_objectives == 1:
        if not res.feasible_found:
            lines.append("no feasible evaluation found: no best value")
        return lines
    if not res.feasible_found:
        return [*lines, "no feasible evaluation: the Pareto front is empty"]
    configs, values = res.pareto_front()
    lines.append(f"Pareto front: {len(values)} point(s) of {n} evaluations")
    r = res.reference_point if ref is None else np.asarray(ref, dtype=float)
    hv = spec.hypervolume(res.values, r)
    point = "[" + ", ".join(f"{v:.6g}" for v in r) + "]"
    lines.append(f"hypervolume {hv:.6g} against reference point {point} ({source})")
    if hv == 0.0:
        lines.append("no feasible evaluation dominates that reference point")
    top = getattr(problem, "max_hypervolume", None)
    if top is not None and source == "the problem's":
        lines.append(f"known maximal hypervolume {top:.6g}; gap {top - hv:.4g}")
    return lines
