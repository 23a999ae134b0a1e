"""Resuming a study: the settings it must be resumed with, and the replay of its history.

A stored study is continued only with the settings it was created with (method, seed,
batch size, effective options, space, direction) and, as far as isoline can tell, the same
objective (:func:`fingerprint`). Its stored history is then replayed into a fresh
:class:`~isoline.optimizer.Optimizer` (no method state is ever read from a file), checking
that the method re-asks the stored points.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import numpy as np

from isoline.methods.registry import DESIGN_KEYS, get_method, option_defaults
from isoline.objective import Objective
from isoline.optimizer import Optimizer, study_objective
from isoline.progress import get_logger
from isoline.space import SearchSpace
from isoline.store import RESUME_FORMATS, Store, StoreError, StudyRecord, Trial

__all__ = [
    "DEFAULTS_BEFORE_RECORD",
    "OPTIONS_ADDED",
    "REPLAY_TOLERANCE",
    "told_value",
    "TRAJECTORY_PACKAGES",
    "Settings",
    "check_objective",
    "check_same_settings",
    "fingerprint",
    "package_versions",
    "replay",
    "stored_choice",
    "stored_defaults",
]

#: largest difference, in unit-cube coordinates (a fraction of a box's width), between a
#: point re-asked on resume and the stored one: a model-based proposal can differ in its
#: last bits between two processes (seen once in ~10 runs of the resume test, 4e-13)
REPLAY_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Settings:
    """What a study is created with and must match on resume."""

    method: str
    seed: int
    batch_size: int
    budget: int
    options: dict[str, Any]
    objective: Objective = Objective()
    #: the objective function's :func:`fingerprint`, if it has one
    function: dict[str, str] | None = None


#: Method defaults changed since studies began recording theirs (``attrs["defaults"]``):
#: a study stored without that record was created with these values.
DEFAULTS_BEFORE_RECORD: dict[str, dict[str, Any]] = {
    "gp-ei": {"kernel": "rbf", "priors": "botorch"},
}


#: Options added to a method after studies began: a study created before has no record
#: of the option and ran as with this value.
OPTIONS_ADDED: dict[str, dict[str, Any]] = {
    "cobyqa": {"start_spread": 0.0},
}


def stored_defaults(rec: StudyRecord) -> dict[str, Any]:
    """The method's option defaults when ``rec`` was created."""
    added = OPTIONS_ADDED.get(rec.method, {})
    if "defaults" in rec.attrs:
        return {**added, **rec.attrs["defaults"]}
    now = jsonable(option_defaults(rec.method))
    return {**now, **added, **DEFAULTS_BEFORE_RECORD.get(rec.method, {})}


def check_same_settings(rec: StudyRecord, s: Settings, space: SearchSpace) -> None:
    """Refuse to resume ``rec`` with other settings than it was created with.

    Options compare by their effective values, the given ones over the method's defaults,
    so a study goes on with the options it began with even after a default changed (pass
    the old value to resume it) and passing a default explicitly changes nothing."""
    if rec.resume_format not in RESUME_FORMATS:
        raise StoreError(
            f"study {rec.name!r} was written with resume format {rec.resume_format!r}; this "
            f"isoline continues {list(RESUME_FORMATS)}: upgrade isoline to resume it"
        )
    diff = [
        f"{k}: stored {a!r}, given {b!r}"
        for k, a, b in (
            ("method", rec.method, s.method),
            ("seed", rec.seed, s.seed),
            ("batch_size", rec.batch_size, s.batch_size),
        )
        if a != b
    ]
    hint = ""
    if rec.method != s.method:
        if rec.options != s.options:
            diff.append(f"options: stored {rec.options!r}, given {s.options!r}")
        chose = rec.attrs.get("auto")
        if chose:
            hint = (
                f"; method='auto' chose {chose['method']!r} (rule {chose['rule']!r}) when the "
                "study was created: pass that method and its stored options to resume it"
            )
    else:
        options, hint = _option_difference(rec, s)
        diff += options
    if rec.space != space.to_dict():
        diff.append(_space_difference(rec.space, space.to_dict()))
    stored = study_objective(rec)
    if stored != s.objective:
        if stored.n_objectives == s.objective.n_objectives == 1 and not (
            stored.objectives or s.objective.objectives
        ):
            diff.append(f"direction: stored {stored.direction!r}, given {s.objective.direction!r}")
        else:
            diff.append(f"objectives: stored {stored.describe()}, given {s.objective.describe()}")
    if diff:
        raise StoreError(f"study {rec.name!r} exists with other settings ({'; '.join(diff)}){hint}")


def _option_difference(rec: StudyRecord, s: Settings) -> tuple[list[str], str]:
    """The options of one method whose effective values differ, and how to resume."""
    then = {**stored_defaults(rec), **rec.options}
    now = {**jsonable(option_defaults(s.method)), **s.options}
    changed = sorted(k for k in then.keys() | now.keys() if then.get(k) != now.get(k))
    diff = [
        f"option {k}: stored {then.get(k)!r}{'' if k in rec.options else ' (the default then)'}"
        f", given {now.get(k)!r}{'' if k in s.options else ' (the default now)'}"
        for k in changed
    ]
    moved = [k for k in changed if k not in rec.options and k not in s.options]
    if not moved:
        return diff, ""
    pins = ", ".join(f"{k}={then.get(k)!r}" for k in moved)
    return diff, (
        f"; {s.method}'s defaults changed since the study was created: pass {pins} "
        "to resume it with the settings it began with"
    )


def _space_difference(stored: Any, given: Any) -> str:
    """Which parameters of a typed space differ (the whole description for a Box)."""
    if "params" not in stored or "params" not in given:
        return f"space: stored {stored!r}, given {given!r}"
    a = {p["name"]: p for p in stored["params"]}
    b = {p["name"]: p for p in given["params"]}
    parts = [f"parameter {n!r} removed" for n in a if n not in b]
    parts += [f"parameter {n!r} added" for n in b if n not in a]
    parts += [
        f"parameter {n!r}: stored {a[n]!r}, given {b[n]!r}" for n in a if n in b and a[n] != b[n]
    ]
    parts += [
        f"{k}: stored {stored.get(k, [])!r}, given {given.get(k, [])!r}"
        for k in ("conditions", "constraints")
        if stored.get(k, []) != given.get(k, [])
    ]
    if not parts:
        parts = [f"parameter order: stored {list(a)}, given {list(b)}"]
    return "space: " + "; ".join(parts)


def abandon_crashed(
    store: Store, rec: StudyRecord, trials: list[Trial], max_attempts: int
) -> list[Trial]:
    """Record as failed the pending trials whose evaluation was started ``max_attempts``
    times without finishing; return the trials as stored afterwards."""
    crashed = [t for t in trials if t.status == "pending" and t.attempts >= max_attempts]
    for t in crashed:
        reason = (
            f"evaluation started {t.attempts} times and never finished (the process running "
            f"it died each time); recorded as failed after max_attempts={max_attempts}"
        )
        store.record_result(rec, t.number, None, "failed", reason, None,
                            t.started or rec.created, t.started or rec.created)  # fmt: skip
    return store.trials(rec) if crashed else trials


def replay(
    opt: Optimizer, rec: StudyRecord, trials: list[Trial]
) -> tuple[int, list[Trial], list[Trial]]:
    """Bring a fresh ``opt`` to the state after the study's last stored ``ask``.

    Every stored batch is asked again (same sizes) and, but for the last one, told its
    stored values; each re-asked point must equal the stored one up to
    :data:`REPLAY_TOLERANCE` in the unit cube (a fraction of a box's width), which checks that the method reproduces the run. The tolerance admits last-bit
    differences of the linear algebra between processes, nothing a method would choose
    differently. Returns the last batch's index and its unfinished and
    finished trials.

    Raises:
        StoreError: the stored batches are not contiguous, or a re-asked point differs
            from the stored one (another isoline version or non-reproducible method).
    """
    by_batch: dict[int, list[Trial]] = {}
    for t in trials:
        by_batch.setdefault(t.batch, []).append(t)
    # the count first: a crafted last batch number must not make a list that long
    contiguous = len(by_batch) == rec.state_batch + 1
    if not contiguous or sorted(by_batch) != list(range(rec.state_batch + 1)):
        raise StoreError(
            f"study {rec.name!r} has batches {sorted(by_batch)} but its record says the last "
            f"one is {rec.state_batch}; the store was edited or is damaged"
        )
    for b in range(rec.state_batch + 1):
        batch = by_batch[b]
        X, U = opt.ask_with_unit(len(batch))
        stored = opt.space.stored_unit([t.x for t in batch], [t.u for t in batch])
        off = np.abs(U - stored) > REPLAY_TOLERANCE
        if off.any():
            row = int(np.flatnonzero(off.any(axis=1))[0])
            raise StoreError(
                f"cannot resume study {rec.name!r}: replaying its history proposes trial "
                f"{batch[row].number} at {U[row].tolist()} but the stored trial is at "
                f"{stored[row].tolist()} (unit-cube coordinates). The study was written by isoline "
                f"{rec.attrs.get('isoline', '< 0.1')} and this is {version()}"
                f"{_changed_packages(rec.attrs.get('versions'))}; the method does not "
                "reproduce it. All its evaluations stay in the store; start a new study to go on"
            )
        if b < rec.state_batch:
            opt.tell(X, [told_value(opt, t) for t in batch])
    if rec.state_batch < 0:
        return -1, [], []
    last = by_batch[rec.state_batch]
    return (
        rec.state_batch,
        [t for t in last if t.status == "pending"],
        [t for t in last if t.status != "pending"],
    )


def jsonable(d: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(
        json.dumps(d, default=lambda o: o.tolist() if hasattr(o, "tolist") else repr(o))
    )
    return out


#: the packages whose version can change a trajectory: the numerics under isoline's methods
#: and the peers' own packages (recorded when installed)
TRAJECTORY_PACKAGES = (
    "numpy", "scipy", "torch", "gpytorch", "botorch", "cma", "scikit-learn", "optuna",
    "ax-platform", "nevergrad", "scikit-optimize", "smac",
)  # fmt: skip


def package_versions() -> dict[str, str]:
    """``{package: version}`` of the installed :data:`TRAJECTORY_PACKAGES`; each new study
    records it, since a model-based run amplifies a change in a fit's last bits."""
    out = {}
    for name in TRAJECTORY_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def _changed_packages(stored: dict[str, str] | None) -> str:
    """``"; changed since: botorch 0.17.0 -> 0.18.1"`` for a study's recorded versions."""
    if not stored:
        return ""
    now = package_versions()
    changed = [f"{k} {v} -> {now.get(k, 'absent')}" for k, v in stored.items() if now.get(k) != v]
    return f"; changed since: {', '.join(changed)}" if changed else ""


def version() -> str:
    try:
        return metadata.version("isoline")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def fingerprint(f: Callable[..., Any]) -> dict[str, str] | None:
    """``{"name", "code"}`` of an objective: its qualified name and a hash of its compiled
    code (a function's, or a callable object's ``__call__``), or ``None`` for a callable
    without Python code (a builtin). The code hash changes with any edit of the function
    (and with the Python version), not with comments or formatting."""
    inner = f
    while hasattr(inner, "func"):  # functools.partial
        inner = inner.func
    code = getattr(inner, "__code__", None)
    owner = inner
    if code is None:
        owner = type(inner)
        code = getattr(getattr(owner, "__call__", None), "__code__", None)  # noqa: B004
    if code is None:
        return None
    name = f"{getattr(owner, '__module__', '?')}.{getattr(owner, '__qualname__', '?')}"
    return {"name": name, "code": hashlib.sha256(_code_bytes(code)).hexdigest()[:16]}


def _code_bytes(code: Any) -> bytes:
    """The bytecode and constants of ``code`` and of the code objects nested in it, with no
    memory address or file position (so it is the same in every process)."""
    parts = [code.co_code]
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            parts.append(_code_bytes(c))
        elif isinstance(c, frozenset):
            parts.append(repr(sorted(map(repr, c))).encode())
        else:
            parts.append(repr(c).encode())
    parts.append(repr(code.co_names).encode())
    return b"\x00".join(parts)


def check_objective(rec: StudyRecord, given: dict[str, str] | None) -> None:
    """Warn (``isoline`` logger, WARNING) when ``rec`` is resumed with an objective of
    another :func:`fingerprint` than it was created with: its stored values would be taken
    as this objective's. A warning, not a refusal: a fingerprint cannot tell another
    objective from the same one wrapped (a crash test's wrapper, a logging decorator),
    renamed or edited without changing its values. A study or objective without a
    fingerprint is not checked."""
    stored = rec.attrs.get("function")
    if not stored or not given or stored == given:
        return
    what = (
        f"the objective {given['name']} has changed since the study began"
        if stored.get("name") == given["name"]
        else f"it was created with the objective {stored.get('name')}, not {given['name']}"
    )
    get_logger().warning(
        "study %r: %s (code %s, now %s); its stored evaluations are taken as this "
        "objective's. Give another study name to start afresh",
        rec.name,
        what,
        stored.get("code"),
        given["code"],
    )


def told_value(opt: Optimizer, t: Trial) -> Any:
    """What ``opt.tell`` takes for stored trial ``t``: its value, or its row of outputs
    when the run has several (NaN for a failed or missing one)."""
    if opt.objective.single:
        return np.nan if t.y is None else t.y
    if t.outputs is None or len(t.outputs) != opt.objective.n_outputs:
        return np.full(opt.objective.n_outputs, np.nan)
    return t.outputs


def stored_choice(
    study: str, method: Any, options: Any, choice: Any, budget: int | None, dim: int
) -> tuple[str, dict[str, Any]]:
    """The method and options of a choice stored with ``study``, checked before a resume
    uses them: the store may have been edited, and a resume must not be made to run an
    unknown method or to allocate without bound.

    The choice must name the study's method, a registered one; every option must be one
    of that method's or of the initial design's (``n_init``, ``init``); and every
    whole-number option (a population, a sample count) must not exceed the largest of the
    study's budget, 100 per dimension and ten times the method's default for it. The method's own checks of its options run when the
    optimizer is made from them.

    Raises:
        StoreError: the stored choice fails one of these checks.
    """

    def refuse(problem: str) -> StoreError:
        return StoreError(f"study {study!r}: its stored auto choice is refused: {problem}")

    if not (isinstance(choice, dict) and choice.get("method") == method):
        raise refuse(f"it does not name the study's method {method!r}")
    try:
        get_method(method)
        defaults = option_defaults(method)
    except (TypeError, ValueError) as err:
        raise refuse(str(err)) from None
    if not isinstance(options, dict):
        raise refuse(f"its options are {type(options).__name__}, not an object")
    defaults = {**dict.fromkeys(DESIGN_KEYS), **defaults}  # the design's, common to all
    unknown = sorted(set(options) - set(defaults))
    if unknown:
        raise refuse(f"options {unknown} are not options of {method!r}")
    for name, value in options.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        default = defaults[name]
        scale = default if isinstance(default, (int, float)) else 0
        bound = max(budget or 0, 100 * dim, 10 * abs(scale))
        if value == value and abs(value) > bound:  # NaN is left to the method's check
            raise refuse(f"option {name}={value!r} exceeds {bound:g}")
    return method, dict(options)
