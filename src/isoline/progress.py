"""What a run tells its user: the ``isoline`` logger, its verbosity, and the progress bar.

Messages go to ``logging.getLogger("isoline")``, which writes them to stderr as
``[isoline] message`` at level INFO and above unless :func:`set_verbosity` says
otherwise (``set_verbosity("warning")`` keeps only warnings and errors). The logger does
not pass its records on to the root logger's handlers (so a program that configures
logging sees each message once); :func:`set_verbosity` with ``propagate=True`` hands
them to the program's handlers instead.
"""

from __future__ import annotations

import logging
import sys

import numpy as np

from isoline.objective import Objective

__all__ = ["LOGGER_NAME", "get_logger", "get_verbosity", "set_verbosity"]

LOGGER_NAME = "isoline"
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
           "error": logging.ERROR}  # fmt: skip
_handler: logging.Handler | None = None


def get_logger() -> logging.Logger:
    """The ``isoline`` logger, with its stderr handler installed on first use."""
    global _handler
    log = logging.getLogger(LOGGER_NAME)
    if _handler is None:
        _handler = logging.StreamHandler(sys.stderr)
        _handler.setFormatter(logging.Formatter("[isoline] %(message)s"))
        log.addHandler(_handler)
        if log.level == logging.NOTSET:
            log.setLevel(logging.INFO)
        log.propagate = False
    return log


def set_verbosity(level: int | str, propagate: bool = False) -> None:
    """Show the ``isoline`` logger's messages from ``level`` up: ``"debug"``, ``"info"``
    (the default: e.g. "resuming study S: n stored evaluations"), ``"warning"``,
    ``"error"`` or a :mod:`logging` level number. With ``propagate=True`` the messages go
    to the root logger's handlers (the program's logging configuration) instead of
    isoline's own stderr handler.

    Raises:
        ValueError: an unknown level name.
        TypeError: ``level`` is neither a name nor an int.
    """
    if isinstance(level, str):
        if level.lower() not in _LEVELS:
            raise ValueError(f"verbosity must be one of {list(_LEVELS)}, got {level!r}")
        level = _LEVELS[level.lower()]
    elif isinstance(level, bool) or not isinstance(level, int):
        raise TypeError(f"verbosity must be a level name or number, got {level!r}")
    log = get_logger()
    log.setLevel(level)
    log.propagate = bool(propagate)
    if _handler is not None:
        if propagate:
            log.removeHandler(_handler)
        elif _handler not in log.handlers:
            log.addHandler(_handler)


def get_verbosity() -> int:
    """The ``isoline`` logger's level (a :mod:`logging` level number)."""
    return get_logger().getEffectiveLevel()


class Progress:
    """A rich progress bar over evaluations (best feasible value of the first objective,
    in the study's direction), or nothing when disabled."""

    def __init__(
        self, enabled: bool, total: int, completed: int, name: str, objective: Objective
    ) -> None:
        self.objective = objective
        #: the sign that makes the first objective minimized
        self.sign = -1.0 if objective.directions[0] == "maximize" else 1.0
        self.best = np.inf
        self.bar = None
        if enabled:
            from rich.progress import Progress as RichProgress

            self.bar = RichProgress(*RichProgress.get_default_columns(), "{task.fields[best]}")
            self.task = self.bar.add_task(name, total=total, completed=completed, best="")
            self.bar.start()

    def note(self, y: float | None, outputs: np.ndarray | None = None) -> None:
        """Take an evaluation into the best value without counting it (one stored before
        a resume)."""
        feasible = outputs is None or bool(self.objective.feasible(outputs)[0])
        if y is not None and feasible:
            self.best = min(self.best, self.sign * float(y))

    def advance(self, y: float | None, outputs: np.ndarray | None = None) -> None:
        """Count one evaluation: its value ``y`` (``None`` if it failed) and, in a run
        with several outputs, its row ``outputs``, whose constraints decide whether ``y``
        can be the best."""
        self.note(y, outputs)
        if self.bar is not None:
            best = self.sign * float(self.best)
            text = f"best {best:.6g}" if np.isfinite(self.best) else ""
            self.bar.update(self.task, advance=1, best=text)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
