"""One evaluation: call the objective, read what it returned, classify the outcome.

A run with one unnamed objective reads a real number (:func:`as_real`); a run with named
or several outputs wraps its objective in :class:`RowObjective`, and the return is read
into a row of outputs by :meth:`isoline.objective.Objective.outputs`. Either way a
malformed return, an exception, NaN or inf is a ``failed`` outcome with its reason.
"""

from __future__ import annotations

import math
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from isoline.objective import Objective
from isoline.validation import as_real

__all__ = ["Outcome", "RowObjective", "as_real", "evaluate"]


@dataclass(frozen=True)
class RowObjective:
    """An objective function whose return :func:`evaluate` reads as a row of outputs of
    ``objective`` (picklable when ``f`` is)."""

    f: Callable[..., Any]
    objective: Objective

    @property
    def takes_trial_number(self) -> bool:
        return bool(getattr(self.f, "takes_trial_number", False))

    def __call__(self, x: Any, **kwargs: Any) -> Any:
        return self.f(x, **kwargs)


@dataclass(frozen=True)
class Outcome:
    """What one evaluation produced. ``y`` is ``None`` unless ``status == "ok"``."""

    y: float | None
    status: str
    error: str | None
    info: dict[str, Any] | None
    started: float
    finished: float
    #: the whole row of outputs (objectives then constraints, user units) of a run with
    #: named or several outputs; ``None`` otherwise
    outputs: np.ndarray | None = None


def evaluate(f: Callable[..., Any], x: Any, number: int | None = None) -> Outcome:
    """Call ``f(x)`` and classify the result; never raises for an ordinary exception.

    ``f`` gets a read-only copy of ``x`` and returns a real number (see :func:`as_real`),
    or ``(number, dict)`` whose dict is kept as per-evaluation info. An exception, a value
    that is not a real number, NaN or inf gives a ``failed`` outcome with the reason.
    ``number`` is the evaluation's trial number in its run; an objective with a true
    ``takes_trial_number`` attribute (e.g. a noisy :class:`~isoline.problems.Problem`) is
    called as ``f(x, number=number)`` so that it can key its randomness on it.
    """
    started = time.time()
    info: dict[str, Any] | None = None
    spec = f.objective if isinstance(f, RowObjective) else None
    if isinstance(x, Mapping):
        x = dict(x)  # a configuration of a typed Space: the objective gets its own copy
    else:
        x = np.array(x, dtype=float)
        x.setflags(write=False)
    try:
        if number is not None and getattr(f, "takes_trial_number", False):
            out = f(x, number=number)
        else:
            out = f(x)
        if isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], dict):
            out, info = out
        elif isinstance(out, tuple) and spec is None:
            raise TypeError("objective must return a number or a (number, dict) pair")
        if spec is not None:
            return _row_outcome(spec, out, info, started)
        try:
            y = as_real(out)
        except TypeError as e:
            raise TypeError(f"objective must return a real number: {e}") from None
    except Exception as e:  # noqa: BLE001 - every failure of user code is recorded
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        return Outcome(None, "failed", tb, info, started, time.time())
    finished = time.time()
    if not math.isfinite(y):
        return Outcome(None, "failed", f"objective returned {y}", info, started, finished)
    return Outcome(y, "ok", None, info, started, finished)


def _row_outcome(spec: Objective, out: Any, info: dict[str, Any] | None, started: float) -> Outcome:
    """The outcome of a return ``out`` read as a row of outputs of ``spec``: failed, with
    the outputs named, when one is not finite."""
    row = spec.outputs(out)
    finished = time.time()
    bad = [f"{n} = {v}" for n, v in zip(spec.names, row) if not math.isfinite(v)]
    if bad:
        msg = f"objective returned a non-finite output: {', '.join(bad)}"
        return Outcome(None, "failed", msg, info, started, finished, row)
    return Outcome(float(row[0]), "ok", None, info, started, finished, row)
