"""Evaluating objectives safely, one point or a batch through an executor.

Any object with the ``concurrent.futures`` ``submit`` protocol works as an executor: a
``ProcessPoolExecutor``, a ``ThreadPoolExecutor`` or a Dask ``Client(...).get_executor()``.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Outcome", "evaluate", "evaluate_batch", "make_executor"]


@dataclass(frozen=True)
class Outcome:
    """What one evaluation produced. ``y`` is ``None`` unless ``status == "ok"``."""

    y: float | None
    status: str
    error: str | None
    info: dict[str, Any] | None
    started: float
    finished: float


def evaluate(f: Callable[[np.ndarray], Any], x: np.ndarray) -> Outcome:
    """Call ``f(x)`` and classify the result; never raises for an ordinary exception.

    ``f`` returns a float, or ``(float, dict)`` whose dict is kept as per-evaluation info.
    An exception, a non-numeric value, NaN or inf gives a ``failed`` outcome with the error.
    """
    started = time.time()
    info: dict[str, Any] | None = None
    try:
        out = f(x)
        if isinstance(out, tuple):
            if len(out) != 2 or not isinstance(out[1], dict):
                raise TypeError("objective must return a float or a (float, dict) pair")
            out, info = out
        y = float(np.asarray(out, dtype=float).reshape(()))
    except Exception as e:  # noqa: BLE001 - every failure of user code is recorded
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        return Outcome(None, "failed", tb, info, started, time.time())
    finished = time.time()
    if not math.isfinite(y):
        return Outcome(None, "failed", f"objective returned {y}", info, started, finished)
    return Outcome(y, "ok", None, info, started, finished)


def evaluate_batch(
    f: Callable[[np.ndarray], Any], X: np.ndarray, executor: Any = None
) -> Iterator[tuple[int, Outcome]]:
    """Yield ``(row, outcome)`` for each row of ``X`` ``(q, d)`` as soon as it finishes.

    With ``executor=None`` the rows are evaluated in order in this process. Otherwise
    they are submitted together; a future that fails (e.g. its worker died) yields a
    ``failed`` outcome carrying the error, and the others are unaffected.
    """
    if executor is None:
        for i, x in enumerate(X):
            yield i, evaluate(f, x)
        return
    submitted = time.time()
    futures = {executor.submit(evaluate, f, x): i for i, x in enumerate(X)}
    for fut in cf.as_completed(futures):
        i = futures[fut]
        try:
            yield i, fut.result()
        except Exception as e:  # noqa: BLE001 - a lost worker is a failed evaluation
            msg = f"evaluation lost: {type(e).__name__}: {e}"
            yield i, Outcome(None, "failed", msg, None, submitted, time.time())


def make_executor(executor: Any, workers: int) -> tuple[Any, bool]:
    """Resolve ``executor``: ``None``, ``"process"``, ``"thread"`` or an object with ``submit``.

    Returns ``(executor, owned)``; ``owned`` executors are shut down by the caller.
    """
    if executor is None:
        return None, False
    if executor == "process":
        return cf.ProcessPoolExecutor(max_workers=workers), True
    if executor == "thread":
        return cf.ThreadPoolExecutor(max_workers=workers), True
    if isinstance(executor, str):
        raise ValueError(
            f"executor must be None, 'process', 'thread' or an object with submit(); got {executor!r}"
        )
    if not callable(getattr(executor, "submit", None)):
        raise TypeError(
            f"executor must follow the concurrent.futures protocol (have a submit method); "
            f"got {type(executor).__name__}"
        )
    return executor, False


def dask_client(address: str, timeout: float = 10.0) -> Any:
    """Connect to the Dask scheduler at ``address``, with a clear error if it is unreachable."""
    try:
        from dask.distributed import Client
    except ImportError as e:  # pragma: no cover - dask is a dependency
        raise ImportError('Dask is needed for a cluster: pip install "dask[distributed]"') from e
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError) as e:
        raise ConnectionError(f"cannot reach the Dask scheduler at {address!r}: {e}") from None
