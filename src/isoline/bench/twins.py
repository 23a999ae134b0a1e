"""Runs of ``auto`` that would repeat another contender's run of the same cell.

A benchmark config often lists ``auto`` beside the very method and options it chooses
(``isoline auto`` and ``isoline gp-ei`` on a constrained problem: both run gp-ei's
defaults). With the same seed, problem, budget and batch size the two runs are the same
trajectory (a seed gives one trajectory in any process), so running both doubles the cost
of the cell for no information. When the other run is finished, auto's study is stored as
its copy instead: the same trials and attributes under auto's name, with auto's choice
(``attrs["auto"]``, as :mod:`isoline.run_loop` records it) and ``attrs["copied_from"]``
naming the run it copies. The copy is an ordinary auto study: it reports, resumes and
grows its budget as one. The report counts the copies.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from isoline.auto import AUTO, resolve
from isoline.bench.preflight import resolve_options
from isoline.methods.registry import resolve_name, settled_options
from isoline.objective import Objective
from isoline.resume import jsonable
from isoline.store import Store, StudyExists

__all__ = ["COPIED_FROM", "copy_twin", "twin_candidates"]

#: study attribute naming the run an auto study copies
COPIED_FROM = "copied_from"


def twin_candidates(spec: Any, runs: Sequence[Any]) -> list[Any]:
    """The runs of ``runs`` that could repeat the auto run ``spec``: the same problem,
    seed, budget, batch size, timeout and direction, and a method that is not auto."""
    cell = _cell(spec)
    return [r for r in runs if r.method.name != AUTO and _cell(r) == cell]


def _cell(r: Any) -> tuple[Any, ...]:
    return (r.problem.label, r.seed, r.budget, r.batch_size, r.timeout, r.direction)


def copy_twin(
    store: Store,
    spec: Any,
    problem: Any,
    objective: Objective,
    options: dict[str, Any],
    candidates: Sequence[Any],
) -> int | None:
    """Store the auto run ``spec`` as a copy of a finished candidate run that has auto's
    choice as its method and options, compared as the method settles them for the
    problem (:func:`isoline.methods.registry.settled_options`: gp-ei's
    ``mo_acquisition="auto"`` is ``"ehvi"`` up to three objectives and four points a
    batch). ``options``: auto's own, e.g. ``noisy``. Return the number of evaluations
    copied, or ``None`` (nothing stored) when no candidate qualifies or auto's study
    exists already (another worker may have made it)."""
    if store.get_study(spec.study) is not None:
        return None
    method, chosen, choice = resolve(AUTO, problem.space, spec.batch_size, options,
                                     spec.budget, objective.n_objectives,
                                     objective.n_constraints)  # fmt: skip
    assert choice is not None
    k, q = objective.n_objectives, spec.batch_size
    settled = jsonable(settled_options(method, chosen, k, q))
    for twin in candidates:
        name = resolve_name(twin.method.name)
        same = name == method and jsonable(settled_options(
            name, resolve_options(twin.method.options, problem), k, q)) == settled  # fmt: skip
        rec = store.get_study(twin.study) if same else None
        if rec is None or not rec.finished or rec.budget != spec.budget:
            continue
        attrs = {**rec.attrs, "auto": choice.to_dict(), COPIED_FROM: rec.name}
        trials = store.trials(rec)
        try:
            store.add_study(dataclasses.replace(rec, name=spec.study, attrs=attrs), trials)
        except StudyExists:
            return None
        return len(trials)
    return None
