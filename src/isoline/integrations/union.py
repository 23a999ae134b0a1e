"""The union search space of a define-by-run Optuna study, as a conditional isoline space.

In a define-by-run study a parameter may be asked in some trials only (``gamma`` only when
``kernel`` is ``"rbf"``). Optuna's intersection search space leaves such parameters to the
independent sampler; :class:`~isoline.integrations.optuna.IsolineSampler` models the
*union* instead: every parameter that completed trials asked with one distribution, each
that is missing from some trials made conditional on a parent read off the trials.

A parent of ``p`` is a Categorical or Integer ``q`` asked in every trial that asked ``p``
and in more trials than ``p``, whose values in the trials that asked ``p`` never occur in
the trials that asked ``q`` but not ``p``; of several, the one asked in the fewest trials
(the nearest ancestor), and of those the one that activates ``p`` for the smallest share
of its values (the sharpest split: early in a study an Integer such as a layer width,
asked in every trial, takes distinct values in each and so qualifies too, activating
``p`` for nearly all its values, where the Categorical that decides ``p`` activates it
for one of two). ``p`` is then active for every value of ``q`` except those seen
without it (a value never seen yet counts as active, so the model proposes ``p`` there and
the next trials tell whether it is asked). Each completed trial's parameters are then
exactly the active ones of its configuration, so the method models every trial with the
encoding of :mod:`isoline.conditions`. A parameter with no such parent (its presence
follows no single parameter) is left out, to the independent sampler.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from isoline.params import Categorical, Integer, Param
from isoline.validation import same_value

__all__ = ["infer_conditions", "settled", "unsettled_children", "union_of"]

#: an Integer parent with more values lists only those seen with its child
_MAX_LISTED = 1000


def union_of(trials: Sequence[Any]) -> dict[str, Any]:
    """``{name: distribution}`` of every parameter asked in ``trials`` (Optuna
    ``FrozenTrial`` objects) with one distribution throughout, by name."""
    seen: dict[str, Any] = {}
    mixed: set[str] = set()
    for t in trials:
        for name, d in t.distributions.items():
            if name in seen and seen[name] != d:
                mixed.add(name)
            seen.setdefault(name, d)
    return {n: d for n, d in sorted(seen.items()) if n not in mixed}


def infer_conditions(
    params: dict[str, Param], configs: Sequence[dict[str, Any]]
) -> tuple[list[str], dict[str, dict[str, list[Any]]]]:
    """The parameters to model and their conditions, read off the configurations of the
    completed trials (each holding the parameters its trial asked, isoline values).

    Returns:
        ``(names, conditions)``: the parameters kept (a parent found for each one missing
        from some configuration), and ``{child: {parent: values}}`` for
        :class:`isoline.params.Space`.
    """
    names = list(params)
    while True:
        present = {n: [c for c in configs if n in c] for n in names}
        conditions: dict[str, dict[str, list[Any]]] = {}
        dropped = []
        for p in names:
            if len(present[p]) == len(configs):
                continue
            found = _parent(p, names, params, present, configs)
            if found is None:
                dropped.append(p)
            else:
                conditions[p] = found
        if not dropped:
            return names, conditions
        names = [n for n in names if n not in dropped]


def unsettled_children(
    conditions: dict[str, dict[str, list[Any]]], configs: Sequence[dict[str, Any]]
) -> dict[str, tuple[str, list[Any]]]:
    """``{child: (parent, values seen)}``: for each conditional parameter, its parent and
    the parent's values in ``configs`` (completed trials). At a value not among them the
    child counts as active, but whether the objective asks it is still unknown."""
    out = {}
    for child, cond in conditions.items():
        ((parent, _),) = cond.items()
        seen: list[Any] = []
        for c in configs:
            if parent in c and not _has(seen, c[parent]):
                seen.append(c[parent])
        out[child] = (parent, seen)
    return out


def settled(config: dict[str, Any], unsettled: dict[str, tuple[str, list[Any]]]) -> dict[str, Any]:
    """``config`` without the children :func:`unsettled_children` cannot place: those whose
    parent is absent or takes a value no completed trial had. Two configurations equal
    here may be evaluated as one (the objective may not ask the child at that value)."""
    out = dict(config)
    for child, (parent, seen) in unsettled.items():
        if child in out and (parent not in config or not _has(seen, config[parent])):
            del out[child]
    return out


def _parent(
    p: str,
    names: list[str],
    params: dict[str, Param],
    present: dict[str, list[dict[str, Any]]],
    configs: Sequence[dict[str, Any]],
) -> dict[str, list[Any]] | None:
    best: tuple[int, float, int, str, list[Any]] | None = None
    for i, q in enumerate(names):
        param = params[q]
        if q == p or not isinstance(param, (Categorical, Integer)):
            continue
        if len(present[q]) <= len(present[p]) or any(q not in c for c in present[p]):
            continue
        with_p = [c[q] for c in present[p]]
        without = [c[q] for c in configs if q in c and p not in c]
        if any(_has(without, v) for v in with_p):
            continue
        domain: Sequence[Any]
        if isinstance(param, Categorical):
            domain = param.choices
        elif param.high - param.low < _MAX_LISTED:
            domain = range(param.low, param.high + 1)
        else:
            domain = _unique(with_p, same_value)
        values = [v for v in domain if not _has(without, v)]
        share = len(values) / max(len(domain), 1)
        if best is None or (len(present[q]), share, i) < best[:3]:
            best = (len(present[q]), share, i, q, values)
    return None if best is None else {best[3]: best[4]}


def _has(values: Sequence[Any], v: Any) -> bool:
    return any(same_value(v, w) for w in values)


def _unique(values: Sequence[Any], same: Callable[[Any, Any], bool]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if not any(same(v, w) for w in out):
            out.append(v)
    return sorted(out)
