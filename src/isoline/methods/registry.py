"""Registry of optimization methods, by lower-case dashed name.

Every method name a user can write, in any entry point (:func:`isoline.minimize`,
:class:`~isoline.optimizer.Optimizer`, the CLI, benchmark configs, the Optuna sampler),
is resolved here by :func:`resolve_name`: case-insensitively, with a "did you mean"
suggestion for a typo.

A method class is registered by the ``@register`` line above it; :data:`MODULES` names the
module that holds it, so that looking a method up imports that module alone (the GP
methods import torch and BoTorch, the forest method scikit-learn: ``import isoline`` and a
random search load neither). A module of :mod:`isoline.methods` that registers a name
missing from :data:`MODULES` fails at import, and a test checks the table against the
modules.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from isoline.methods.base import Method

__all__ = [
    "DESIGN_KEYS",
    "MODULES",
    "MethodInfo",
    "capable_methods",
    "input_constraint_methods",
    "get_method",
    "make_method",
    "method_names",
    "methods",
    "option_defaults",
    "register",
    "resolve_name",
    "settled_options",
    "take_design",
]

#: the name that asks for the automatic choice (:mod:`isoline.auto`)
_AUTO = "auto"
_PEERS = "isoline.methods.peers"

#: module of each of isoline's methods and of each peer (imported on first look-up)
MODULES: dict[str, str] = {
    "bkop": "isoline.methods.bkop",
    "bull": "isoline.methods.bull",
    "cma-es": "isoline.methods.classic",
    "cobyqa": "isoline.methods.cobyqa",
    "dngo": "isoline.methods.dngo",
    "gibo": "isoline.methods.gibo",
    "gp-bucb": "isoline.methods.gp_bucb",
    "gp-ei": "isoline.methods.gp_bo",
    "gp-ei-cobyqa": "isoline.methods.gp_local",
    "gp-ts": "isoline.methods.gp_ts",
    "gp-ucb": "isoline.methods.gp_bo",
    "gp-ucb-pe": "isoline.methods.gp_ucb_pe",
    "la-minucb": "isoline.methods.la_minucb",
    "minucb": "isoline.methods.minucb",
    "mpd": "isoline.methods.mpd",
    "neural-greedy": "isoline.methods.neural_greedy",
    "neuralbo": "isoline.methods.neuralbo",
    "random": "isoline.methods.classic",
    "rf-ei": "isoline.methods.rf_ei",
    "sobol": "isoline.methods.classic",
    "turbo": "isoline.methods.turbo",
    # peers: other libraries' optimizers, for comparisons (not listed by methods())
    "ax": f"{_PEERS}.ax",
    "nevergrad": f"{_PEERS}.nevergrad",
    "optuna-cmaes": f"{_PEERS}.optuna",
    "optuna-gp": f"{_PEERS}.optuna",
    "optuna-nsga2": f"{_PEERS}.optuna",
    "optuna-tpe": f"{_PEERS}.optuna",
    "skopt-gp": f"{_PEERS}.skopt",
    "smac-bb": f"{_PEERS}.smac",
    "smac-hpo": f"{_PEERS}.smac",
}

_REGISTRY: dict[str, type[Method]] = {}
_COMMON = ("seed", "batch_size", "n_init", "init", "space", "n_objectives", "n_constraints")


@dataclass(frozen=True)
class MethodInfo:
    """What :func:`methods` lists about one registered method."""

    name: str
    family: str
    paper: str
    supports_batch: bool
    options: dict[str, object]
    summary: str = ""


def register(cls: type[Method]) -> type[Method]:
    """Class decorator adding a :class:`Method` subclass under ``cls.name``.

    A class of isoline's own method modules must have its name in :data:`MODULES`; a
    method defined elsewhere (your own module) registers under any free name.
    """
    if not cls.name or cls.name != cls.name.lower() or " " in cls.name:
        raise ValueError(f"method name must be lower-case with dashes, got {cls.name!r}")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"method {cls.name!r} is already registered")
    if cls.__module__.startswith("isoline.methods.") and MODULES.get(cls.name) != cls.__module__:
        raise ValueError(
            f"method {cls.name!r} of {cls.__module__} is missing from "
            "isoline.methods.registry.MODULES"
        )
    _REGISTRY[cls.name] = cls
    return cls


def method_names(*, peers: bool = True) -> list[str]:
    """Every method name, sorted (``"auto"`` not included); ``peers=False`` leaves out
    the peers of :mod:`isoline.methods.peers`."""
    names = set(_REGISTRY) | {n for n, m in MODULES.items() if peers or not _is_peer(m)}
    return sorted(names)


def resolve_name(name: object) -> str:
    """The registered spelling of method ``name`` (matched case-insensitively), or ``"auto"``.

    Raises:
        TypeError: ``name`` is not a string.
        ValueError: no method has that name; the message suggests the closest one.
    """
    if not isinstance(name, str):
        raise TypeError(f"method must be a name (str), got {type(name).__name__}")
    key = name.strip().lower()
    known = method_names()
    if key == _AUTO or key in known:
        return key
    import difflib

    close = difflib.get_close_matches(key, [*known, _AUTO], n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise ValueError(
        f"unknown method {name!r}; {hint}(`isoline methods` lists the methods, "
        "isoline.methods.registry.method_names() all names)"
    )


def _is_peer(module: str) -> bool:
    return module.startswith(f"{_PEERS}.")


def get_method(name: str) -> type[Method]:
    """The class of method ``name`` (any case; a registered method or a peer).

    Raises:
        ValueError: an unknown name (with a suggestion), or ``"auto"`` (a rule that picks a
            method, not a class).
        isoline.methods.peers.PeerNotInstalled: a peer whose package is missing.
    """
    key = resolve_name(name)
    if key == _AUTO:
        raise ValueError("'auto' chooses a method (isoline.auto.resolve); it has no class")
    if key in _REGISTRY:
        return _REGISTRY[key]
    module = MODULES[key]
    importlib.import_module(module)
    if _is_peer(module):
        from isoline.methods.peers.base import get_peer

        return get_peer(key)
    return _REGISTRY[key]


def _options(cls: type[Method]) -> dict[str, object]:
    """Options of ``cls`` and their defaults, collected along its class hierarchy.

    A family base class (such as :class:`~isoline.methods.local.LocalBO`) declares the
    options its methods share once, as keyword-only ``__init__`` arguments; a subclass
    declares only its own and passes the rest on with ``**options``. The subclass's
    declaration of a name wins (a method may change a family default). The arguments of
    :class:`Method` itself (seed, batch size, initial design) are common to all.
    """
    import inspect

    from isoline.methods.base import Method

    out: dict[str, object] = {}
    for klass in cls.__mro__:
        if klass is Method or not issubclass(klass, Method) or "__init__" not in vars(klass):
            continue
        for p in inspect.signature(vars(klass)["__init__"]).parameters.values():
            if p.kind is p.KEYWORD_ONLY and p.name not in _COMMON:
                out.setdefault(p.name, p.default)
    if cls.presets:
        out["preset"] = None
    return out


def option_defaults(name: str) -> dict[str, object]:
    """The options of method ``name`` (registered or peer) and their current defaults."""
    return _options(get_method(name))


def settled_options(
    name: str, options: Mapping[str, Any], n_objectives: int, batch_size: int
) -> dict[str, Any]:
    """Every option of method ``name`` as a run with ``options`` uses it on a problem of
    ``n_objectives`` objectives in batches of up to ``batch_size``: the defaults filled in
    and run-time choices settled (:meth:`~isoline.methods.base.Method.settled_options`).
    Two option sets that settle alike give the same run."""
    filled = {**option_defaults(name), **options}
    return get_method(name).settled_options(filled, n_objectives, batch_size)


#: the initial design's settings, taken by every method; a choice of ``"auto"`` may set them
DESIGN_KEYS = ("n_init", "init")


def take_design(
    options: dict[str, Any], n_init: int | None, init: str | None
) -> tuple[int | None, str | None]:
    """The initial design's ``(n_init, init)``: those given, else those in ``options`` (a
    choice of ``"auto"``'s, or a stored study's), which are removed from ``options``."""
    chosen = {k: options.pop(k, None) for k in DESIGN_KEYS}
    return (chosen["n_init"] if n_init is None else n_init,
            chosen["init"] if init is None else init)  # fmt: skip


def make_method(name: str, dim: int, **kwargs: Any) -> Method:
    """Instantiate method ``name`` in ``dim`` dimensions, checking option names.

    ``preset=NAME`` (methods with :attr:`Method.presets`) fills every option not given
    explicitly from that named option set.
    """
    from isoline.validation import check_choice, check_int

    cls = get_method(name)
    if getattr(cls, "family", "") == "peer":  # a peer checks its own options
        return cls(dim, **kwargs)
    allowed = _options(cls)
    unknown = sorted(set(kwargs) - set(allowed) - set(_COMMON))
    if unknown:
        raise TypeError(
            f"unknown option(s) {unknown} for method {cls.name!r}; "
            f"its options are {sorted(allowed) or 'none'}"
        )
    preset = kwargs.pop("preset", None)
    if preset is not None:
        check_choice(preset, "preset", tuple(cls.presets))
        dim = check_int(dim, "dim", 1)
        kwargs = {**cls.presets[preset](dim), **kwargs}
    return cls(dim, **kwargs)


def _summary(cls: type[Method]) -> str:
    """``cls.summary``, or the first line of its docstring."""
    import inspect

    return cls.summary or (inspect.getdoc(cls) or "").partition("\n")[0]


def methods() -> list[MethodInfo]:
    """Every registered method: name, family, paper reference, batch support, options and
    a one-line summary (the peers are not listed)."""
    for module in sorted({m for m in MODULES.values() if not _is_peer(m)}):
        importlib.import_module(module)
    return [
        MethodInfo(c.name, c.family, c.paper, c.supports_batch, _options(c), _summary(c))
        for _, c in sorted(_REGISTRY.items())
    ]


def capable_methods(n_objectives: int = 1, n_constraints: int = 0) -> list[str]:
    """Names of the registered methods that handle ``n_objectives`` objectives and
    ``n_constraints`` constraints, sorted: those that adapt to values, or, if none does,
    the designs that ignore values (random, sobol). Imports every method module."""
    for module in sorted({m for m in MODULES.values() if not _is_peer(m)}):
        importlib.import_module(module)
    able = [
        c
        for _, c in sorted(_REGISTRY.items())
        if c.family != "peer"
        and (not c.adaptive or n_objectives <= c.max_objectives)
        and (not c.adaptive or n_constraints == 0 or c.supports_constraints)
    ]
    adaptive = [c.name for c in able if c.adaptive]
    return adaptive or [c.name for c in able]


def input_constraint_methods() -> list[str]:
    """Names of the registered methods whose proposals satisfy a space's known linear
    constraints (:attr:`Method.supports_input_constraints`), sorted. Imports every method
    module."""
    for module in sorted({m for m in MODULES.values() if not _is_peer(m)}):
        importlib.import_module(module)
    return [n for n, c in sorted(_REGISTRY.items()) if c.supports_input_constraints]
