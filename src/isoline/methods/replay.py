"""Methods whose state does not pickle, pickled as the calls that made it."""

from __future__ import annotations

from typing import Any

import numpy as np

from isoline.methods.base import Method

__all__ = ["ReplayPickled"]


class ReplayPickled(Method):
    """A method whose state lives in objects that do not pickle (another library's
    optimizer, a thread): it pickles as its constructor arguments and the public calls made
    on it, and unpickles by building itself again and replaying those calls.

    A subclass's ``__init__`` calls :meth:`_record_args` with its arguments first.
    """

    def _record_args(self, args: dict[str, Any]) -> None:
        self._args = dict(args)
        self._calls: list[tuple[str, tuple[Any, ...]]] = []

    def ask(self, q: int | None = None) -> np.ndarray:
        self._calls.append(("ask", (q,)))
        return super().ask(q)

    def tell(self, X: np.ndarray, y: np.ndarray) -> None:
        self._calls.append(("tell", (np.array(X, dtype=float), np.array(y, dtype=float))))
        super().tell(X, y)

    def add_pending(self, X: np.ndarray) -> None:
        self._calls.append(("add_pending", (np.array(X, dtype=float),)))
        super().add_pending(X)

    def withdraw(self, X: np.ndarray) -> None:
        self._calls.append(("withdraw", (np.array(X, dtype=float),)))
        super().withdraw(X)

    def enqueue(self, X: np.ndarray) -> None:
        self._calls.append(("enqueue", (np.array(X, dtype=float),)))
        super().enqueue(X)

    def __getstate__(self) -> dict[str, Any]:
        return {"args": self._args, "calls": self._calls}

    def __setstate__(self, state: dict[str, Any]) -> None:
        args = dict(state["args"])
        type(self).__init__(self, args.pop("dim"), **args)
        for name, call_args in state["calls"]:
            getattr(self, name)(*call_args)
