"""Argument checks shared by the whole package.

Every check returns the value converted to a plain Python type, or raises ``TypeError``
when the value has the wrong type and ``ValueError`` when it has the right type but is out
of range; both messages name the argument. Booleans are never accepted as numbers.
"""

from __future__ import annotations

import decimal
import math
import numbers
import unicodedata
from collections.abc import Collection
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "MAX_STORED_INT",
    "MAX_STUDY_NAME",
    "as_real",
    "check_batch",
    "check_bool",
    "check_choice",
    "check_float",
    "check_int",
    "check_positive",
    "check_positive_vector",
    "check_probability",
    "check_sequence",
    "check_study_name",
    "same_value",
]

#: largest integer a store column holds (SQLite integers are signed 64-bit)
MAX_STORED_INT = 2**63 - 1
#: longest study name, in characters
MAX_STUDY_NAME = 256

_T = TypeVar("_T")


def check_int(
    value: object, name: str, minimum: int | None = None, maximum: int | None = None
) -> int:
    """``value`` as an ``int`` in ``[minimum, maximum]`` (either bound may be ``None``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer{_int_range(minimum, maximum)}, got {value!r}")
    v = int(value)
    if (minimum is not None and v < minimum) or (maximum is not None and v > maximum):
        raise ValueError(f"{name} must be an integer{_int_range(minimum, maximum)}, got {v}")
    return v


def check_float(
    value: object,
    name: str,
    low: float = -math.inf,
    high: float = math.inf,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a finite ``float`` in the interval from ``low`` to ``high``.

    The ends are included unless ``low_open`` / ``high_open``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    v = float(value)
    above = v > low if low_open else v >= low
    below = v < high if high_open else v <= high
    if not (math.isfinite(v) and above and below):
        interval = f" in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
        if low == -math.inf and high == math.inf:
            interval = ""
        raise ValueError(f"{name} must be a finite number{interval}, got {value!r}")
    return v


def check_positive(value: object, name: str) -> float:
    """``value`` as a finite ``float > 0``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number > 0, got {value!r}")
    v = float(value)
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return v


def check_probability(value: object, name: str) -> float:
    """``value`` as a ``float`` in the open interval ``(0, 1)``."""
    return check_float(value, name, 0.0, 1.0, low_open=True, high_open=True)


def check_positive_vector(value: object, name: str, size: int) -> np.ndarray:
    """``value`` as a ``(size,)`` float array of finite entries ``> 0``; a single number is
    repeated ``size`` times."""
    try:
        v = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a positive number or {size} positive numbers, got {value!r}"
        ) from None
    if v.size == 1:
        v = np.full(size, float(v[0]))
    if v.shape != (size,) or not np.all(np.isfinite(v)) or np.any(v <= 0):
        raise ValueError(
            f"{name} must be a positive number or {size} positive numbers, got {value!r}"
        )
    return v


def check_choice(value: _T, name: str, choices: Collection[object]) -> _T:
    """``value`` itself if it is one of ``choices``."""
    try:
        ok = bool(value in choices)
    except (TypeError, ValueError):  # e.g. an array, whose comparison has no single truth
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def check_bool(value: object, name: str) -> bool:
    """``value`` if it is ``True`` or ``False`` (no other truthy objects)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def _int_range(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f" in [{minimum}, {maximum}]"
    if minimum is not None:
        return f" >= {minimum}"
    if maximum is not None:
        return f" <= {maximum}"
    return ""


def check_study_name(value: object, name: str = "study") -> str:
    """``value`` as a study name: a non-empty ``str`` of at most :data:`MAX_STUDY_NAME`
    characters that encodes as UTF-8 (no lone surrogates) and holds no control
    characters."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} {value!r}")
    if not value:
        raise ValueError(f"{name} must be a non-empty str")
    if len(value) > MAX_STUDY_NAME:
        raise ValueError(f"{name} must have at most {MAX_STUDY_NAME} characters, got {len(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(
            f"{name} must be valid UTF-8 text: {value!r} holds {value[err.start]!r} at "
            f"position {err.start}, a lone surrogate"
        ) from None
    control = [c for c in value if unicodedata.category(c) == "Cc"]
    if control:
        raise ValueError(f"{name} must not hold control characters, got {value!r}")
    return value


def check_sequence(value: object, name: str, n: int) -> list[object]:
    """``value`` as a list of ``n`` items: a 1-D sequence (or array) of length ``n``, or a
    single scalar when ``n == 1``. The items are returned as given (not converted)."""
    if value is None or np.isscalar(value):
        items: list[object] = [value]
    else:
        try:
            arr = np.asarray(value, dtype=object)
        except (TypeError, ValueError) as err:
            raise TypeError(f"{name} must be a 1-D sequence of {n} values: {err}") from None
        if arr.ndim == 0:
            items = [arr.item()]
        elif arr.ndim == 1:
            items = list(arr)
        else:
            raise ValueError(f"{name} must be a 1-D sequence of {n} values, got shape {arr.shape}")
    if len(items) != n:
        raise ValueError(f"{name} has {len(items)} values but {n} are needed, one per point")
    return items


def check_batch(value: object, name: str, method: str, supports_batch: bool) -> int:
    """``value`` as a number of points ``>= 1`` asked of ``method`` at once; more than one
    only if the method proposes batches."""
    q = check_int(value, name, 1)
    if q > 1 and not supports_batch:
        raise ValueError(
            f"method {method!r} does not support batch_size > 1 (it proposes one point at "
            f"a time), got {name}={q}"
        )
    return q


def same_value(a: object, b: object) -> bool:
    """Equality that does not conflate ``True`` with ``1`` or ``1`` with ``1.0`` (values of
    a categorical parameter, or of a condition on one). A NumPy scalar compares as the
    Python value it holds (``np.str_("rbf")`` is ``"rbf"``, ``np.int64(2)`` is ``2``)."""
    if isinstance(a, np.generic):
        a = a.item()
    if isinstance(b, np.generic):
        b = b.item()
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:  # e.g. arrays, whose comparison has no single truth value
        return a is b


def as_real(v: Any) -> float:
    """``v`` as a float if it is a real number, else TypeError saying what it is.

    Real numbers are ``int``, ``float``, ``fractions.Fraction``, ``decimal.Decimal``, NumPy
    integer and floating scalars, and 0-d arrays or tensors holding one of them. Booleans,
    complex numbers, strings and sequences are not: converting them silently would store a
    value the objective never meant.
    """
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"a bool ({v!r}) is not an objective value")
    if isinstance(v, (numbers.Real, decimal.Decimal)):
        return float(v)
    if getattr(v, "ndim", None) == 0 and callable(getattr(v, "item", None)):
        return as_real(v.item())
    text = repr(v)
    text = text if len(text) <= 60 else text[:57] + "..."
    raise TypeError(f"expected a real number, got {type(v).__name__} {text}")
