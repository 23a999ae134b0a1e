"""Conditions of a typed space: parameters that exist only when a parent takes given values.

``Space(params, conditions={"gamma": {"kernel": ["rbf", "poly"]}})`` makes ``gamma``
*active* only when ``kernel`` is ``"rbf"`` or ``"poly"``. Each conditional parameter (a
*child*) has one *parent*, a Categorical or Integer of the same space; a parent may be
conditional itself, so conditions nest to any depth (a child is active when its parent is
active and takes one of the listed values). A configuration holds exactly its active
parameters: the objective receives those, the store records those.

**Encoding of inactive parameters.** The encoding keeps its fixed length
(:mod:`isoline.encoding`), and every column of an inactive parameter holds the constant
:data:`INACTIVE` (``0.0``; an inactive Categorical's one-hot block is all zeros, which no
active choice encodes to). This is imputation to a constant, the treatment that
Levesque, Durand, Gagne & Sabourin, "Bayesian optimization for conditional hyperparameter
spaces", IJCNN 2017, found competitive with kernels built for conditional spaces: the
parent's own columns (its one-hot block, or its integer column) already tell which
children are active, so no extra indicator column is needed, and two configurations that
differ only in inactive parameters have one encoding, so a surrogate sees them as the
same point and a method never proposes them twice. Rounding
(:meth:`isoline.params.Space.round`, and the GP's rounding input transform) imputes the
constant too, so a method searching the relaxed cube has an acquisition that is flat in the
columns of inactive parameters. The alternative, gp-ei's ``inactive="arc"``, keeps this
encoding and changes the GP's kernel instead: the arc kernel of :mod:`isoline.models.arc`
ignores a parameter inactive in both points and puts an active and an inactive one a
learned distance apart; the default stays imputation until a benchmark decides.

This module knows parameters only through their *domains*: the finite sequence of values
a Categorical or Integer takes, or ``None`` for a Real.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Integral
from typing import Any

import numpy as np

from isoline.validation import same_value

__all__ = ["INACTIVE", "Conditions"]

#: the value of every encoded column of an inactive parameter
INACTIVE = 0.0


def _index(domain: Sequence[Any], value: Any) -> int | None:
    """The position of ``value`` in a domain (exact type: ``True`` is not ``1``; a NumPy
    scalar counts as the Python value it holds)."""
    if isinstance(domain, range):
        ok = isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))
        return int(value) - domain.start if ok and int(value) in domain else None
    for i, v in enumerate(domain):
        if same_value(v, value):
            return i
    return None


class Conditions:
    """The validated conditions of a space whose parameters have the given domains.

    Args:
        domains: each parameter's name (in the space's order) mapped to the sequence of
            values it takes (a Categorical's choices, an Integer's ``range``), or ``None``
            for a Real.
        conditions: ``{child: {parent: values}}``; ``values`` a list (or tuple, set,
            ``range``, array) of the parent's values, or one value given bare.

    Raises:
        ValueError, TypeError: a condition names an unknown child or parent, its own
            parameter, a Real parent, a value the parent cannot take, no value, more than
            one parent, or closes a cycle; the message names the parameter.
    """

    def __init__(
        self,
        domains: Mapping[str, Sequence[Any] | None],
        conditions: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> None:
        self.domains = dict(domains)
        #: child -> (parent, the parent's values as given, their positions in its domain)
        self.parent: dict[str, tuple[str, tuple[Any, ...], tuple[int, ...]]] = {}
        if conditions is None:
            conditions = {}
        if not isinstance(conditions, Mapping):
            raise TypeError(
                f"conditions must be a mapping {{child: {{parent: values}}}}, got {conditions!r}"
            )
        for child, cond in conditions.items():
            self._add(child, cond)
        #: every parameter, each parent before its children (the space's order otherwise)
        self.order = self._topological()

    def _add(self, child: Any, cond: Any) -> None:
        if child not in self.domains:
            raise ValueError(f"condition on unknown parameter {child!r}")
        if not isinstance(cond, Mapping) or len(cond) != 1:
            raise ValueError(
                f"parameter {child!r}: a condition is one {{parent: values}} pair, got {cond!r}"
            )
        ((parent, values),) = cond.items()
        if parent == child:
            raise ValueError(f"parameter {child!r}: a condition on itself")
        if parent not in self.domains:
            raise ValueError(f"parameter {child!r}: condition on unknown parent {parent!r}")
        domain = self.domains[parent]
        if domain is None:
            raise ValueError(
                f"parameter {child!r}: parent {parent!r} is a Real; a parent must be a "
                "Categorical or an Integer"
            )
        listed = (list, tuple, set, frozenset, range, np.ndarray)
        given = tuple(values) if isinstance(values, listed) else (values,)
        if not given:
            raise ValueError(f"parameter {child!r}: condition on {parent!r} lists no value")
        codes = []
        for v in given:
            i = _index(domain, v)
            if i is None:
                raise ValueError(f"parameter {child!r}: parent {parent!r} cannot take {v!r}")
            codes.append(i)
        given = tuple(domain[i] for i in codes)  # the parent's own values, not NumPy copies
        self.parent[child] = (parent, given, tuple(sorted(set(codes))))

    def _topological(self) -> list[str]:
        order: list[str] = []
        placed: set[str] = set()
        for name in self.domains:
            path: list[str] = []
            node = name
            while node not in placed:
                if node in path:
                    cycle = " -> ".join([*path[path.index(node) :], node])
                    raise ValueError(f"parameter {node!r}: conditions form a cycle ({cycle})")
                path.append(node)
                if node not in self.parent:
                    break
                node = self.parent[node][0]
            for n in reversed(path):
                if n not in placed:
                    placed.add(n)
                    order.append(n)
        return order

    def __bool__(self) -> bool:
        return bool(self.parent)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Conditions) and {
            c: (p, codes) for c, (p, _, codes) in self.parent.items()
        } == {c: (p, codes) for c, (p, _, codes) in other.parent.items()}

    __hash__ = None  # type: ignore[assignment]

    def active(self, config: Mapping[str, Any]) -> list[str]:
        """The parameters active in ``config`` (a dict of values; a parent missing from
        it, or holding a value outside its domain, activates none of its children), in
        the space's order."""
        on: set[str] = set()
        for name in self.order:
            cond = self.parent.get(name)
            if cond is None:
                on.add(name)
                continue
            parent, _, codes = cond
            if parent in on and parent in config:
                i = _index(self.domains[parent] or (), config[parent])
                if i is not None and i in codes:
                    on.add(name)
        return [n for n in self.domains if n in on]

    def masks(self, codes: Mapping[str, Any], xp: Any = np) -> dict[str, Any]:
        """``{child: (n,) bool}``: where each conditional parameter is active, given the
        ``(n,)`` integer positions ``codes[parent]`` that each parent's rows take in its
        domain (``xp`` is ``numpy`` or ``torch``)."""
        out: dict[str, Any] = {}
        for name in self.order:
            cond = self.parent.get(name)
            if cond is None:
                continue
            parent, _, allowed = cond
            code = codes[parent]
            if xp is np:
                hit = np.isin(code, allowed)
            else:
                hit = xp.isin(code, xp.tensor(allowed, dtype=code.dtype, device=code.device))
            out[name] = hit & out[parent] if parent in out else hit
        return out

    def given(self) -> dict[str, dict[str, list[Any]]]:
        """The conditions as given: ``{child: {parent: [values]}}``."""
        return {c: {p: list(given)} for c, (p, given, _) in self.parent.items()}

    def children(self, name: str) -> list[tuple[str, tuple[int, ...]]]:
        return [(c, codes) for c, (p, _, codes) in self.parent.items() if p == name]

    def count(self) -> int | None:
        """The number of distinct configurations (only active parameters counted), or
        ``None`` if an active Real makes it infinite."""

        def tree(name: str) -> int | None:
            domain = self.domains[name]
            if domain is None:
                return None
            total = 0
            kids = self.children(name)
            for i in range(len(domain)):
                n: int | None = 1
                for c, codes in kids:
                    if i in codes:
                        t = tree(c)
                        n = None if n is None or t is None else n * t
                if n is None:
                    return None
                total += n
            return total

        out = 1
        for name in self.domains:
            if name not in self.parent:
                t = tree(name)
                if t is None:
                    return None
                out *= t
        return out

    def configurations(self) -> list[dict[str, Any]]:
        """Every configuration of a finite space (check :meth:`count` first)."""
        rows: list[dict[str, Any]] = [{}]
        for name in self.order:
            domain = self.domains[name]
            assert domain is not None
            cond = self.parent.get(name)
            new: list[dict[str, Any]] = []
            for row in rows:
                if cond is None or (
                    cond[0] in row and _index(self.domains[cond[0]] or (), row[cond[0]]) in cond[2]
                ):
                    new.extend({**row, name: v} for v in domain)
                else:
                    new.append(row)
            rows = new
        return [{n: row[n] for n in self.domains if n in row} for row in rows]

    def to_list(self, stored: Any) -> list[dict[str, Any]]:
        """JSON description: ``[{"child", "parent", "values"}]``, each value in its stored
        form ``stored(value)`` (as the space stores its choices)."""
        return [
            {"child": c, "parent": p, "values": [stored(v) for v in given]}
            for c, (p, given, _) in self.parent.items()
        ]

    @staticmethod
    def from_list(items: Any) -> dict[str, dict[str, Any]]:
        """The ``conditions`` argument that :meth:`to_list` described."""
        if not isinstance(items, list):
            raise TypeError(f"conditions must be a list, got {type(items).__name__}")
        out: dict[str, dict[str, Any]] = {}
        for item in items:
            if not isinstance(item, dict) or set(item) != {"child", "parent", "values"}:
                raise ValueError(f"a stored condition has child, parent, values: {item!r}")
            if item["child"] in out:
                raise ValueError(f"parameter {item['child']!r}: two conditions")
            out[item["child"]] = {item["parent"]: item["values"]}
        return out
