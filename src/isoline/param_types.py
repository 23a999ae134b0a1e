"""Parameter types of a typed search space: :class:`Real`, :class:`Integer` and
:class:`Categorical` (validated on construction), and the values each can take.
:class:`isoline.params.Space` orders named parameters of these types and encodes them."""

from __future__ import annotations

import json
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from isoline.encoding import Scale
from isoline.validation import check_float, same_value

__all__ = ["Categorical", "Integer", "Param", "Real"]


def _scale(log: bool, logit: bool, what: str) -> Scale:
    if not isinstance(log, bool) or not isinstance(logit, bool):
        raise TypeError(f"{what}: log and logit must be True or False")
    if log and logit:
        raise ValueError(f"{what}: choose log or logit, not both")
    return "log" if log else "logit" if logit else "linear"


@dataclass(frozen=True)
class Real:
    """A real parameter in ``[low, high]``, on a linear, log or logit scale.

    ``log=True`` needs ``low > 0``; ``logit=True`` (for values in ``(0, 1)``, as bayesmark's
    "logit" space) needs ``0 < low < high < 1``.
    """

    low: float
    high: float
    log: bool = False
    logit: bool = False

    def __post_init__(self) -> None:
        low, high = check_float(self.low, "Real low"), check_float(self.high, "Real high")
        if not low < high:
            raise ValueError(f"Real needs low < high, got low={low!r}, high={high!r}")
        scale = _scale(self.log, self.logit, "Real")
        if scale == "log" and not low > 0:
            raise ValueError(f"Real with log=True needs low > 0, got low={low!r}")
        if scale == "logit" and not (low > 0 and high < 1):
            raise ValueError(
                f"Real with logit=True needs 0 < low < high < 1, got {low!r}, {high!r}"
            )
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    @property
    def scale(self) -> Scale:
        return _scale(self.log, self.logit, "Real")

    @property
    def width(self) -> int:
        """Encoded columns: 1."""
        return 1


@dataclass(frozen=True)
class Integer:
    """An integer parameter in ``[low, high]`` (both included), linear or log scale."""

    low: int
    high: int
    log: bool = False

    def __post_init__(self) -> None:
        for name in ("low", "high"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, numbers.Integral):
                raise TypeError(f"Integer {name} must be an integer, got {v!r}")
            object.__setattr__(self, name, int(v))
        if not self.low <= self.high:
            raise ValueError(f"Integer needs low <= high, got low={self.low}, high={self.high}")
        _scale(self.log, False, "Integer")
        if self.log and self.low < 1:
            raise ValueError(f"Integer with log=True needs low >= 1, got low={self.low}")

    @property
    def scale(self) -> Scale:
        return "log" if self.log else "linear"

    @property
    def width(self) -> int:
        """Encoded columns: 1."""
        return 1


@dataclass(frozen=True, init=False)
class Categorical:
    """A choice among ``choices`` (any objects, distinct); encoded one-hot."""

    choices: tuple[Any, ...]

    def __init__(self, choices: Iterable[Any]) -> None:
        if isinstance(choices, (str, bytes)) or not isinstance(choices, Iterable):
            raise TypeError(f"Categorical needs a sequence of choices, got {choices!r}")
        c = tuple(choices)
        if not c:
            raise ValueError("Categorical needs at least one choice")
        for i, a in enumerate(c):
            if any(same_value(a, b) for b in c[:i]):
                raise ValueError(f"Categorical choices must be distinct; {a!r} is repeated")
        object.__setattr__(self, "choices", c)

    @property
    def width(self) -> int:
        """Encoded columns: one per choice."""
        return len(self.choices)

    def index(self, value: Any) -> int:
        for i, c in enumerate(self.choices):
            if same_value(value, c):
                return i
        raise ValueError(f"{value!r} is not one of the choices {self.choices}")


def _jsonable(v: Any) -> bool:
    try:
        json.dumps(v, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


Param = Real | Integer | Categorical


def param_domain(p: Param) -> Sequence[Any] | None:
    """The values a parameter takes (what :class:`~isoline.conditions.Conditions` needs)."""
    if isinstance(p, Categorical):
        return p.choices
    return range(p.low, p.high + 1) if isinstance(p, Integer) else None


def stored_form(v: Any) -> Any:
    """A choice's JSON form in a stored space (its ``repr`` if it has none)."""
    return json.loads(json.dumps(v)) if _jsonable(v) else repr(v)
