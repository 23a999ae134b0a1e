"""One driver of the crash benchmark: runs (or resumes) one study to its end.

``python driver.py STORE STUDY METHOD BATCH EXECUTOR LOG BUDGET [SPEC]`` runs it in a
fresh interpreter; :func:`zygote` serves the same runs forked from one interpreter that has
imported isoline already (the harness's cheap restarts, see ``crash.py``).

LOG gets one line per event, each ``EVENT NUMBER PID TIME``: ``ready`` (isoline imported,
``minimize`` about to be called), ``start``/``end`` of each evaluation (written by the
objective, in whichever process evaluates it), ``exit`` when ``minimize`` returned. So the
harness can tell which evaluations ran more than once, in which process, and whether an
evaluation ended before or after the driver was killed. On ``exit`` the returned result's
points and rows of outputs (``Result.x_iters``, ``Result.values``) are written to
``LOG.result.json``, for the harness to compare with the uninterrupted run's.

SPEC (one of :data:`SPECS`, default ``objective``) is the output specification: one
objective returned as a number (``iso.minimize``, the original protocol), two objectives
returned as a mapping (``f`` minimized, ``g`` maximized), or one objective with one
black-box constraint (``c <= 0``) that cuts off the unconstrained minimum.

``max_attempts`` is raised above the number of kills: the harness's kills are not the
point's fault, and its kill moments cluster at evaluation starts, so the default (3) would
record an evaluation killed three times in a row as failed (the behaviour
``tests/test_reliability.py`` checks) instead of measuring resume.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback

import numpy as np

import isoline as iso

DIM, N_INIT, SEED, MAX_ATTEMPTS = 3, 4, 7, 100


def note(log: str, event: str, number: int | None = None) -> None:
    """Append ``EVENT NUMBER PID TIME`` to ``log``, synced to disk."""
    with open(log, "a") as fh:
        fh.write(f"{event} {-1 if number is None else number} {os.getpid()} {time.time():.6f}\n")
        fh.flush()
        os.fsync(fh.fileno())


#: output specifications: keywords of ``iso.optimize`` (``None``: ``iso.minimize``)
SPECS: dict[str, dict | None] = {
    "objective": None,
    "two-objectives": {"directions": ["minimize", "maximize"], "objectives": ["f", "g"]},
    "constrained": {"direction": "minimize", "objectives": ["f"], "constraints": ["c"]},
}


class LoggedObjective:
    """A shifted sphere with its minimum near a bound; ~50 ms per evaluation. With
    ``spec`` ``two-objectives`` it returns ``{f, g}`` (``g`` peaks at the opposite corner),
    with ``constrained`` ``{f, c}`` (``c = sum(x) - 1``, infeasible at ``f``'s minimum)."""

    takes_trial_number = True

    def __init__(self, log: str, spec: str = "objective") -> None:
        self.log = log
        self.spec = spec

    def __call__(self, x: np.ndarray, number: int | None = None) -> float | dict[str, float]:
        note(self.log, "start", number)
        time.sleep(0.05)
        y = float(np.sum((x - 1.8) ** 2))
        out: float | dict[str, float] = y
        if self.spec == "two-objectives":
            out = {"f": y, "g": -float(np.sum((x + 1.0) ** 2))}
        elif self.spec == "constrained":
            out = {"f": y, "c": float(np.sum(x)) - 1.0}
        note(self.log, "end", number)
        return out


def run(store: str, study: str, method: str, batch: str, executor: str, log: str,
        budget: str, spec: str = "objective") -> None:  # fmt: skip
    note(log, "ready")
    kwargs = dict(
        budget=int(budget),
        max_attempts=MAX_ATTEMPTS,
        seed=SEED,
        batch_size=int(batch),
        n_init=N_INIT,
        executor=None if executor == "none" else executor,
        storage=store,
        study=study,
    )
    space = iso.Box([-2.0] * DIM, [2.0] * DIM)
    keywords = SPECS[spec]
    if keywords is None:
        result = iso.minimize(LoggedObjective(log), space, method, **kwargs)
    else:
        result = iso.optimize(LoggedObjective(log, spec), space, method=method, **keywords,
                              **kwargs)  # fmt: skip
    record = {"x": [np.asarray(x).tolist() for x in result.x_iters],
              "values": np.asarray(result.values).tolist()}  # fmt: skip
    with open(log + ".result.json", "w") as fh:
        json.dump(record, fh)
    note(log, "exit")


def zygote() -> None:
    """Read one JSON list of :func:`run` arguments per line from stdin; fork a driver for
    each (in a new session, stderr to ``LOG.err``) and print its pid.

    The child exits 0 after ``run`` returned and 1 after an exception (traceback in
    ``LOG.err``); exited children are reaped at the next line.
    """
    for line in sys.stdin:
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
        args = json.loads(line)
        pid = os.fork()
        if pid == 0:
            os.setsid()
            fd = os.open(args[5] + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 2)
            code = 0
            try:
                run(*args)
            except BaseException:  # noqa: BLE001 - reported to the harness in LOG.err
                traceback.print_exc()
                code = 1
            sys.stderr.flush()
            os._exit(code)
        print(pid, flush=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["--zygote"]:
        zygote()
    else:
        run(*sys.argv[1:9])
