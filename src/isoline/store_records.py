"""The records a store read returns, each field checked against the schema.

A store file may come from elsewhere (a colleague, a snapshot, an editor): nothing read
from it is trusted. Every study and trial row is checked here before anything uses it:
types, ranges, sizes, JSON nesting depth, UTF-8 text, the stored point against the
study's space, and the trial status. A field that fails raises :class:`StoreError` naming
the store, the study, the trial and the field, so resume, report, merge and delete end
with one clear error instead of whatever a malformed value would raise further on.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from isoline.conditions import Conditions
from isoline.input_constraints import Linear
from isoline.objective import Objective
from isoline.params import Categorical, Integer, Real, Space
from isoline.space import Box
from isoline.store_schema import RESUME_FORMATS

__all__ = [
    "outputs_json",
    "MAX_DEPTH",
    "MAX_JSON",
    "MAX_TEXT",
    "STATUSES",
    "StoreError",
    "StudyRecord",
    "Trial",
    "decode_text",
    "dumps",
    "read_study",
    "read_trial",
    "space_dim",
]

#: characters a JSON field (options, space, attrs, x, u, info) may hold
MAX_JSON = 16_000_000
#: characters a plain text field (error message, method, resume format) may hold
MAX_TEXT = 1_000_000
#: characters a study name may hold
MAX_NAME = 10_000
#: nesting depth of a JSON field (lists and objects)
MAX_DEPTH = 64
#: the statuses a trial may have
STATUSES = ("pending", "ok", "failed")
#: the largest integer a count field (budget, batch size, attempts) may hold
MAX_COUNT = 2**53


class StoreError(RuntimeError):
    """The file is not a usable isoline store, or a study cannot be run as asked."""


@dataclass(frozen=True)
class StudyRecord:
    study_id: int
    name: str
    method: str
    seed: int
    batch_size: int
    options: dict[str, Any]
    space: dict[str, Any]
    budget: int | None
    attrs: dict[str, Any]
    created: float
    state_batch: int
    finished: bool
    resume_format: str = RESUME_FORMATS[0]

    @property
    def objective(self) -> Objective:
        """The objective specification the study recorded (its outputs and directions)."""
        return Objective.from_dict(self.attrs.get("objective"))

    @property
    def directions(self) -> tuple[str, ...]:
        """The direction of each objective, ``"minimize"`` or ``"maximize"``."""
        return self.objective.directions

    @property
    def direction(self) -> str:
        """The direction of the one objective (ValueError with several)."""
        return self.objective.direction


@dataclass(frozen=True)
class Trial:
    number: int
    batch: int
    x: Any
    u: np.ndarray
    y: float | None
    status: str
    error: str | None
    info: dict[str, Any] | None
    started: float | None
    finished: float | None
    attempts: int = 0
    #: the row of outputs (objectives then constraints, user units; NaN for a non-finite
    #: one) of a study with several outputs, else ``None``
    outputs: np.ndarray | None = None

    @property
    def duration(self) -> float | None:
        if self.started is None or self.finished is None:
            return None
        return self.finished - self.started


def decode_text(raw: bytes) -> str:
    """The connection's text factory: UTF-8, with invalid bytes kept as surrogate escapes
    (so reading a malformed name does not fail; :func:`read_study` refuses it, and
    ``isoline delete`` can still match it by the name the shell passes)."""
    return raw.decode("utf-8", "surrogateescape")


class _Field:
    """Checks of one row's fields; every failure names ``where`` and the field."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, field: str, problem: str) -> StoreError:
        return StoreError(
            f"{self.where}, field {field!r}: {problem}; the store is damaged or was edited"
        )

    def text(self, field: str, v: Any, limit: int = MAX_TEXT, empty: bool = True) -> str:
        if isinstance(v, bytes):
            raise self.fail(field, f"holds a BLOB of {len(v)} bytes, not text")
        if not isinstance(v, str):
            raise self.fail(field, f"must be text, got {type(v).__name__} {_short(v)}")
        if len(v) > limit:
            raise self.fail(field, f"holds {len(v)} characters, more than {limit}")
        if not v and not empty:
            raise self.fail(field, "is empty")
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            raise self.fail(field, f"is not valid UTF-8: {_short(v)}") from None
        return v

    def integer(self, field: str, v: Any, low: int, high: int = MAX_COUNT) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(field, f"must be an integer, got {type(v).__name__} {_short(v)}")
        if not low <= v <= high:
            raise self.fail(field, f"must be in [{low}, {high}], got {v}")
        return v

    def number(self, field: str, v: Any, finite: bool = True) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.fail(field, f"must be a number, got {type(v).__name__} {_short(v)}")
        if isinstance(v, int) and abs(v) > 2**1000:
            raise self.fail(field, f"is out of range: {_short(v)}")
        if finite and not math.isfinite(v):
            raise self.fail(field, f"must be finite, got {v}")
        return float(v)

    def json(self, field: str, v: Any) -> Any:
        text = self.text(field, v, MAX_JSON)
        try:
            out = json.loads(text)
        except RecursionError:
            raise self.fail(field, f"is JSON nested deeper than {MAX_DEPTH}") from None
        except ValueError as err:
            raise self.fail(field, f"is not JSON ({err})") from None
        if _depth(out) > MAX_DEPTH:
            raise self.fail(field, f"is JSON nested deeper than {MAX_DEPTH}")
        return out

    def mapping(self, field: str, v: Any) -> dict[str, Any]:
        out = self.json(field, v)
        if not isinstance(out, dict):
            raise self.fail(field, f"must be a JSON object, got {type(out).__name__}")
        return out


def read_study(row: Mapping[str, Any], path: str) -> StudyRecord:
    """The record of one ``studies`` row (column name -> value), every field checked.

    Raises:
        StoreError: a field does not fit the schema; the message names the study and field.
    """
    raw_name = row.get("name")
    label = repr(raw_name) if isinstance(raw_name, str) else f"id {row.get('study_id')!r}"
    c = _Field(f"{path}: study {label}")
    name = c.text("name", raw_name, MAX_NAME, empty=False)
    options = c.mapping("options", row["options"])
    space = c.mapping("space", row["space"])
    space_dim(space, c)
    attrs = c.mapping("attrs", row["attrs"])
    try:
        Objective.from_dict(attrs.get("objective"))
    except (TypeError, ValueError) as err:
        raise c.fail("attrs", f"holds an unusable objective record ({err})") from None
    budget = row["budget"]
    return StudyRecord(
        study_id=c.integer("study_id", row["study_id"], 0),
        name=name,
        method=c.text("method", row["method"], 200, empty=False),
        seed=c.integer("seed", row["seed"], -(2**63), 2**63 - 1),
        batch_size=c.integer("batch_size", row["batch_size"], 1, 10**6),
        options=options,
        space=space,
        budget=None if budget is None else c.integer("budget", budget, 1),
        attrs=attrs,
        created=c.number("created", row["created"]),
        state_batch=c.integer("state_batch", row["state_batch"], -1),
        finished=bool(c.integer("finished", row["finished"], 0, 1)),
        resume_format=c.text("resume_format", row["resume_format"], 200),
    )


def read_trial(row: Mapping[str, Any], study: StudyRecord, dim: int, path: str) -> Trial:
    """The trial of one ``trials`` row of ``study`` (whose space has ``dim`` encoded
    columns), every field checked.

    Raises:
        StoreError: a field does not fit the schema; the message names the study, the
            trial and the field.
    """
    number = row["number"]
    c = _Field(f"{path}: study {study.name!r}, trial {_short(number)}")
    number = c.integer("number", number, 0)
    status = row["status"]
    if status not in STATUSES:
        raise c.fail("status", f"must be one of {list(STATUSES)}, got {_short(status)}")
    u = c.json("u", row["u"])
    if not (isinstance(u, list) and len(u) == dim):
        raise c.fail("u", f"must be a list of {dim} numbers (the space's encoded columns)")
    for i, v in enumerate(u):
        if not 0.0 <= c.number(f"u[{i}]", v) <= 1.0:
            raise c.fail("u", f"entry {i} is {v}, outside the unit interval")
    x = c.json("x", row["x"])
    _check_x(x, study.space, dim, c)
    y = row["y"]
    info = row["info"]
    started, finished = row["started"], row["finished"]
    return Trial(
        number=number,
        batch=c.integer("batch", row["batch"], 0),
        x=np.array(x, dtype=float) if isinstance(x, list) else x,
        u=np.array(u, dtype=float),
        y=None if y is None else c.number("y", y, finite=False),
        status=status,
        error=None if row["error"] is None else c.text("error", row["error"]),
        info=None if info is None else c.mapping("info", info),
        started=None if started is None else c.number("started", started),
        finished=None if finished is None else c.number("finished", finished),
        attempts=c.integer("attempts", row["attempts"], 0),
        outputs=_outputs(row.get("outputs"), study, status, y, c),
    )


def _outputs(raw: Any, study: StudyRecord, status: str, y: Any, c: _Field) -> np.ndarray | None:
    """A stored row of outputs, checked against the study's specification: NULL for a
    study with one output (its value is ``y``); for one with ``m`` outputs, a JSON list of
    ``m`` numbers (``null`` for NaN), all finite and led by ``y`` for an evaluated trial,
    NULL allowed only for a trial that is pending or failed."""
    m = Objective.from_dict(study.attrs.get("objective")).n_outputs
    if raw is None:
        if m > 1 and status == "ok":
            raise c.fail("outputs", f"is missing: an evaluated trial of this study has {m}")
        return None
    if m == 1:
        raise c.fail("outputs", "must be null: the study has one output, stored in y")
    v = c.json("outputs", raw)
    if not (isinstance(v, list) and len(v) == m):
        raise c.fail("outputs", f"must be a list of {m} numbers, one per output of the study")
    row = np.array([np.nan if e is None else c.number(f"outputs[{i}]", e) for i, e in enumerate(v)])
    if status == "ok" and not (np.all(np.isfinite(row)) and y is not None and row[0] == y):
        raise c.fail("outputs", "of an evaluated trial must be finite and start with its y")
    return row


def space_dim(space: dict[str, Any], c: _Field | None = None) -> int:
    """The encoded columns of a stored space description (a box's ``lower``/``upper``/
    ``names``, or a typed space's ``params``), built with the space classes' own checks.

    Raises:
        StoreError: the description is not a valid space.
    """
    c = c or _Field("stored space")
    try:
        if "params" in space:
            params = space["params"]
            if not isinstance(params, list):
                raise TypeError("params must be a list")
            conditions = Conditions.from_list(space.get("conditions", []))
            linear = space.get("constraints", [])
            if not isinstance(linear, list):
                raise TypeError("constraints must be a list")
            constraints = [Linear.from_dict(c) for c in linear]
            return Space([_param(p) for p in params], conditions, constraints).dim
        if set(space) - {"lower", "upper", "names"}:
            raise ValueError(f"unknown keys {sorted(set(space) - {'lower', 'upper', 'names'})}")
        names = space.get("names")
        if names is not None and not (
            isinstance(names, list) and all(isinstance(n, str) for n in names)
        ):
            raise TypeError("names must be a list of strings")
        return Box(space["lower"], space["upper"], names).dim
    except (KeyError, TypeError, ValueError, OverflowError) as err:
        raise c.fail("space", f"is not a valid space ({type(err).__name__}: {err})") from None


def _param(p: Any) -> tuple[str, Real | Integer | Categorical]:
    if not isinstance(p, dict):
        raise TypeError(f"a parameter must be an object, got {_short(p)}")
    kinds: dict[Any, Callable[..., Any]] = {"real": Real, "integer": Integer}
    kind = kinds.get(p.get("type"))
    if kind is not None:
        keys = ("low", "high", "log", "logit") if kind is Real else ("low", "high", "log")
        flags = [p.get(k, False) for k in keys[2:]]
        if not all(isinstance(f, bool) for f in flags):
            raise TypeError(f"parameter {p.get('name')!r}: log/logit must be booleans")
        return p["name"], kind(*(p[k] for k in keys[:2]), *flags)
    if p.get("type") == "categorical":
        return p["name"], Categorical(p["choices"])
    raise ValueError(f"unknown parameter type {_short(p.get('type'))}")


def _check_x(x: Any, space: dict[str, Any], dim: int, c: _Field) -> None:
    """``x`` in user units: a list of ``dim`` numbers for a box, an object of the
    parameters for a typed space."""
    if "params" in space:
        names = [p["name"] for p in space["params"]]
        if "conditions" in space and isinstance(x, dict):
            # the active parameters of x, read from its stored (JSON) values
            names = Space.from_dict(space).active(x)
        if not (isinstance(x, dict) and sorted(x) == sorted(names)):
            raise c.fail("x", f"must be an object with the (active) parameters {names}")
        return
    if not (isinstance(x, list) and len(x) == dim):
        raise c.fail("x", f"must be a list of {dim} numbers (the space's dimension)")
    for i, v in enumerate(x):
        c.number(f"x[{i}]", v)


def _depth(obj: Any) -> int:
    """Nesting depth of parsed JSON, without recursion."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        o, d = stack.pop()
        if isinstance(o, (list, dict)):
            deepest = max(deepest, d)
            if d > MAX_DEPTH:
                return d
            stack.extend((v, d + 1) for v in (o.values() if isinstance(o, dict) else o))
    return deepest


def _short(v: Any) -> str:
    text = ascii(v)
    return text if len(text) <= 60 else text[:57] + "..."


def dumps(obj: Any) -> str:
    """JSON text of a stored field (arrays and NumPy scalars as lists and numbers)."""
    return json.dumps(obj, default=json_default, allow_nan=True)


def json_default(o: Any) -> Any:
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, np.generic):
        return o.item()
    return repr(o)


def outputs_json(outputs: np.ndarray | None) -> str | None:
    """A row of outputs as the store keeps it (JSON, ``null`` for a non-finite value)."""
    if outputs is None:
        return None
    return json.dumps([float(v) if np.isfinite(v) else None for v in np.asarray(outputs)])
