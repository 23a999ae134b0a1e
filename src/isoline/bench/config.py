"""Benchmark configuration files (YAML or TOML): methods x problems x seeds x budget.

Example (YAML)::

    name: demo                 # prefix of every study in the store
    budget: 30                 # evaluations per run
    direction: minimize        # optional: or maximize (the report ranks minus the values)
    seeds: 3                   # or a list, e.g. [0, 1, 2]
    batch_size: 1
    timeout: 600               # optional: seconds per evaluation (a longer one fails)
    methods:
      - random
      - {name: gp-ei, label: GP-EI, options: {kernel: rbf}}
      - {name: minucb, options: {lengthscale: from-problem}}  # the problem's model_hints()
    problems:
      - {name: ackley, dim: 2}
      - {name: levy, dim: 6, noise_std: 0.1, budget: 60}   # per-problem budget
    report: {against: gp-ei}   # optional: t-tests of every method against this label
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from isoline.bench.preflight import run_errors
from isoline.objective import Objective
from isoline.validation import check_int, check_positive

__all__ = [
    "BenchConfig", "ConfigError", "MethodSpec", "ProblemSpec", "RunSpec", "load_config",
    "parse_config",
]  # fmt: skip


@dataclass(frozen=True)
class MethodSpec:
    name: str
    label: str
    options: dict[str, Any] = field(default_factory=dict)
    batch_size: int | None = None


@dataclass(frozen=True)
class ProblemSpec:
    name: str
    label: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    budget: int | None = None


@dataclass(frozen=True)
class RunSpec:
    """One (method, problem, seed) run; its study name is ``config/problem/method/seed``."""

    config: str
    method: MethodSpec
    problem: ProblemSpec
    seed: int
    budget: int
    batch_size: int
    #: seconds an evaluation may run (``minimize(timeout=...)``), None: no limit
    timeout: float | None = None
    direction: str = "minimize"

    @property
    def study(self) -> str:
        return f"{self.config}/{self.problem.label}/{self.method.label}/seed{self.seed}"


@dataclass(frozen=True)
class BenchConfig:
    name: str
    budget: int
    seeds: list[int]
    batch_size: int
    methods: list[MethodSpec]
    problems: list[ProblemSpec]
    report: dict[str, Any] = field(default_factory=dict)
    timeout: float | None = None
    direction: str = "minimize"

    @property
    def auto_index(self) -> int | None:
        """The position of the ``auto`` contender in :attr:`methods`, if it has one."""
        names = [m.name for m in self.methods]
        return names.index("auto") if "auto" in names else None

    def runs(self) -> list[RunSpec]:
        """Every run, problems outermost so that early results cover all methods."""
        return [
            RunSpec(
                self.name,
                m,
                p,
                s,
                p.budget or self.budget,
                m.batch_size or self.batch_size,
                self.timeout,
                self.direction,
            )  # fmt: skip
            for p in self.problems
            for s in self.seeds
            for m in self.methods
        ]

    def run_of(self, label: str, seed: int) -> RunSpec:
        """The first run of problem ``label`` (its options and budget) with ``seed``, which
        need not be one of the config's seeds: for scripts that reuse a suite's problems on
        fresh seeds."""
        for spec in replace(self, seeds=[seed]).runs():
            if spec.problem.label == label:
                return spec
        raise ValueError(f"{self.name}: no problem {label!r}")

    def subset(self, seeds: str | None = None, problems: str | None = None) -> BenchConfig:
        """This config restricted to some seeds and problems (e.g. the finished part of a run).

        Args:
            seeds: ``"0-5"``, ``"0,2,7"`` or both (``"0-3,8"``); each must be a config seed.
            problems: a regular expression; the problems whose label it matches stay.

        Raises:
            ValueError: naming the text that is not a seed, not a config seed, not a
                regular expression, or matches no problem.
        """
        out = self
        if seeds is not None:
            out = replace(out, seeds=_seed_subset(seeds, self.seeds))
        if problems is not None:
            out = replace(out, problems=_problem_subset(problems, self.problems))
        return out


def _seed_subset(text: str, seeds: list[int]) -> list[int]:
    chosen: list[int] = []
    for part in text.split(","):
        lo, sep, hi = part.strip().partition("-")
        try:
            chosen += list(range(int(lo), int(hi) + 1)) if sep else [int(lo)]
        except ValueError:
            raise ValueError(f"seeds: {part!r} is not a seed or a range like 0-5") from None
    unknown = sorted(set(chosen) - set(seeds))
    if unknown or not chosen:
        raise ValueError(f"seeds: {unknown or text!r} not among the config's seeds {seeds}")
    return sorted(set(chosen))


def _problem_subset(pattern: str, problems: list[ProblemSpec]) -> list[ProblemSpec]:
    try:
        rx = re.compile(pattern)
    except re.error as e:
        raise ValueError(f"problems: {pattern!r} is not a regular expression ({e})") from None
    chosen = [p for p in problems if rx.search(p.label)]
    if not chosen:
        labels = [p.label for p in problems]
        raise ValueError(f"problems: {pattern!r} matches none of the config's problems {labels}")
    return chosen


_TOP = {"name", "budget", "direction", "seeds", "batch_size", "methods", "problems", "report",
        "timeout"}  # fmt: skip


class ConfigError(ValueError):
    """Everything wrong with a benchmark config's form at once: ``errors`` holds one line
    per error, each naming the key or entry it is about. Method options and problem
    arguments are checked after the form is valid, before any run starts
    (:func:`isoline.bench.preflight.run_errors`), so their errors come in a second report."""

    def __init__(self, errors: list[str], source: str = "config") -> None:
        self.errors = list(errors)
        n = len(self.errors)
        lines = "".join(f"\n  {e}" for e in self.errors)
        super().__init__(f"{source} has {n} error{'' if n == 1 else 's'}:{lines}")


def load_config(path: str | Path) -> BenchConfig:
    """Read and validate a YAML (``.yaml``/``.yml``) or TOML (``.toml``) config file.

    Raises:
        FileNotFoundError: no such file.
        ConfigError: the file is not valid YAML/TOML (line, column and the offending
            text), or its content is not a valid config (every error at once).
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"config file {path} does not exist")
    text = path.read_text()
    if path.suffix == ".toml":
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError([f"not valid TOML: {e}"], str(path)) from None
    elif path.suffix in (".yaml", ".yml"):
        try:
            raw = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise ConfigError([f"not valid YAML: {_yaml_error(e, text)}"], str(path)) from None
    else:
        raise ValueError(f"config must be .yaml, .yml or .toml, got {path.name}")
    return parse_config(raw, default_name=path.stem, source=str(path))


def _yaml_error(e: yaml.YAMLError, text: str) -> str:
    """One line: what the YAML parser says, where (line and column, 1-based), and the
    text of that line (PyYAML's own message ends in a caret drawing)."""
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    what = ": ".join(
        str(part) for part in (getattr(e, "context", None), getattr(e, "problem", None)) if part
    )
    if mark is None:
        return what or str(e).splitlines()[0]
    lines = text.splitlines()
    line = lines[mark.line].strip() if mark.line < len(lines) else ""
    return f"{what or 'syntax error'} at line {mark.line + 1}, column {mark.column + 1}: {line!r}"


def parse_config(raw: Any, default_name: str = "bench", source: str = "config") -> BenchConfig:
    """Validate a config mapping.

    Raises:
        ConfigError: listing every error (unknown or missing keys, bad budgets, seeds,
            batch sizes, unknown methods or problems, dimensions a problem does not
            allow, unique labels), each naming its key or entry. When there are any, the
            valid entries are also built as :func:`isoline.bench.preflight.run_errors` does,
            so problem keywords and method options are listed in the same message.
    """
    if not isinstance(raw, dict):
        raise ConfigError(["must be a mapping with keys " + ", ".join(sorted(_TOP))], source)
    errors: list[str] = []

    def attempt(where: str, check: Any, *args: Any) -> Any:
        try:
            return check(*args)
        except (ValueError, TypeError) as e:
            errors.append(f"{where}: {e}")
            return None

    unknown = set(raw) - _TOP
    if unknown:
        errors.append(f"unknown config key(s) {sorted(unknown)}; allowed: {sorted(_TOP)}")
    for key in ("methods", "problems", "budget"):
        if key not in raw:
            errors.append(f"config is missing {key!r}")
    budget = attempt("budget", _budget, raw.get("budget", 1), "budget")
    seeds = attempt("seeds", _seeds, raw.get("seeds", 1)) or []
    batch_size = attempt("batch_size", check_int, raw.get("batch_size", 1), "batch_size", 1)
    entries = {
        key: (attempt(key, _nonempty_list, raw[key], key) or []) if key in raw else []
        for key in ("methods", "problems")
    }
    methods = [
        attempt(f"methods[{i}] {_entry_name(m)}", _method, m)
        for i, m in enumerate(entries["methods"])
    ]
    problems = [
        attempt(f"problems[{i}] {_entry_name(p)}", _problem, p)
        for i, p in enumerate(entries["problems"])
    ]
    for what, labels in (
        ("method", [m.label for m in methods if m is not None]),
        ("problem", [p.label for p in problems if p is not None]),
    ):
        if len(set(labels)) != len(labels):
            errors.append(f"{what} labels must be unique, got {labels}")
    name = str(raw.get("name", default_name))
    if "/" in name:
        errors.append(f"name must not contain '/', got {name!r}")
    direction = attempt("direction", Objective.of, raw.get("direction", "minimize"))
    timeout = raw.get("timeout")
    if timeout is not None:
        timeout = attempt("timeout", check_positive, timeout, "timeout")
    report = raw.get("report") or {}
    if not isinstance(report, dict):
        errors.append(f"report must be a mapping, got {report!r}")
    cfg = BenchConfig(
        name=name,
        budget=budget or 1,
        seeds=seeds or [0],
        batch_size=batch_size or 1,
        methods=[m for m in methods if m is not None],
        problems=[p for p in problems if p is not None],
        report=dict(report) if isinstance(report, dict) else {},
        timeout=timeout,
        direction="minimize" if direction is None else direction.direction,
    )
    if errors:
        positions = (
            [i for i, m in enumerate(methods) if m is not None],
            [i for i, p in enumerate(problems) if p is not None],
        )
        raise ConfigError(errors + run_errors(cfg, positions), source)
    return cfg


def _entry_name(entry: Any) -> str:
    """How an error names a methods/problems entry: its label or name if it has one."""
    if isinstance(entry, dict):
        entry = entry.get("label", entry.get("name"))
    return repr(entry) if isinstance(entry, str) else "(no name)"


def _budget(value: Any, name: str) -> int:
    from isoline.validation import MAX_STORED_INT

    return check_int(value, name, 1, MAX_STORED_INT)


def _seeds(seeds: Any) -> list[int]:
    from isoline.validation import MAX_STORED_INT

    if isinstance(seeds, int) and not isinstance(seeds, bool):
        return list(range(check_int(seeds, "seeds", 1, 10**6)))
    if not isinstance(seeds, list) or not seeds:
        raise ValueError(f"must be a count or a list of non-negative integers, got {seeds!r}")
    for s in seeds:
        check_int(s, "each seed", 0, MAX_STORED_INT)
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must not repeat, got {seeds}")
    return list(seeds)


def _method(m: Any) -> MethodSpec:
    from isoline.auto import AUTO
    from isoline.methods.registry import get_method, resolve_name

    if isinstance(m, str):
        m = {"name": m}
    if not isinstance(m, dict) or "name" not in m:
        raise ValueError(f"each method must be a name or a mapping with 'name', got {m!r}")
    m = {**m, "name": resolve_name(m["name"])}
    extra = set(m) - {"name", "label", "options", "batch_size"}
    if extra:
        raise ValueError(f"unknown method key(s) {sorted(extra)} in {m!r}")
    options = m.get("options") or {}
    if not isinstance(options, dict):
        raise ValueError(f"options must be a mapping, got {options!r}")
    if m["name"] == AUTO:
        unknown = sorted(set(options) - {"noisy"})
        if unknown:
            raise ValueError(
                f"method 'auto' takes only the option 'noisy' in a config (the budget is the "
                f"config's), got {unknown}"
            )
    else:
        cls = get_method(m["name"])
        check = getattr(cls, "check_options", None)  # a peer (isoline.methods.peers) builds itself
        if check is not None:
            check(dict(options))
    bs = m.get("batch_size")
    return MethodSpec(
        m["name"], str(m.get("label", m["name"])), dict(options),
        None if bs is None else check_int(bs, "batch_size", 1),
    )  # fmt: skip


def _problem(p: Any) -> ProblemSpec:
    from isoline import problems

    if isinstance(p, str):
        p = {"name": p}
    if not isinstance(p, dict) or "name" not in p:
        raise ValueError(f"each problem must be a name or a mapping with 'name', got {p!r}")
    kwargs = {k: v for k, v in p.items() if k not in ("name", "label", "budget")}
    problems.check_name_and_dim(p["name"], kwargs.get("dim"))
    label = p.get("label") or "-".join(
        [p["name"]] + [f"{k}{v}" if k == "dim" else f"{k}={v}" for k, v in kwargs.items()]
    ).replace("dim", "d")
    budget = p.get("budget")
    return ProblemSpec(
        p["name"], str(label), kwargs, None if budget is None else _budget(budget, "budget")
    )


def _nonempty_list(v: Any, name: str) -> list[Any]:
    if not isinstance(v, list) or not v:
        raise ValueError(f"{name} must be a non-empty list")
    return v
