"""Registry of optimization methods, by lower-case dashed name.

A method is registered in one place: the ``@register`` line above its class. Every module
of :mod:`isoline.methods` is imported on first use of the registry, so a new method module
needs no other entry.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from dataclasses import dataclass
from typing import Any

from isoline.methods.base import Method
from isoline.validation import check_choice, check_int

__all__ = ["MethodInfo", "register", "get_method", "make_method", "methods", "option_defaults"]

_REGISTRY: dict[str, type[Method]] = {}
_COMMON = ("seed", "batch_size", "n_init", "init", "space")


@dataclass(frozen=True)
class MethodInfo:
    """What :func:`methods` lists about one registered method."""

    name: str
    family: str
    paper: str
    supports_batch: bool
    options: dict[str, object]


def register(cls: type[Method]) -> type[Method]:
    """Class decorator adding a :class:`Method` subclass under ``cls.name``."""
    if not cls.name or cls.name != cls.name.lower() or " " in cls.name:
        raise ValueError(f"method name must be lower-case with dashes, got {cls.name!r}")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"method {cls.name!r} is already registered")
    _REGISTRY[cls.name] = cls
    return cls


def _load() -> None:
    """Import every module of :mod:`isoline.methods`: their ``@register`` lines fill the registry."""
    package = importlib.import_module("isoline.methods")  # iso.methods is the function
    for mod in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{mod.name}")


def _options(cls: type[Method]) -> dict[str, object]:
    """Options of ``cls`` and their defaults, collected along its class hierarchy.

    A family base class (such as :class:`~isoline.methods.local.LocalBO`) declares the
    options its methods share once, as keyword-only ``__init__`` arguments; a subclass
    declares only its own and passes the rest on with ``**options``. The subclass's
    declaration of a name wins (a method may change a family default). The arguments of
    :class:`Method` itself (seed, batch size, initial design) are common to all.
    """
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


def get_method(name: str) -> type[Method]:
    """The class registered under ``name``; ValueError listing the names otherwise."""
    _load()
    if isinstance(name, str) and name not in _REGISTRY:
        from isoline.methods.peers import PEERS, get_peer

        if name in PEERS:
            return get_peer(name)
    if not isinstance(name, str) or name not in _REGISTRY:
        raise ValueError(
            f"unknown method {name!r}; choose one of {sorted(_REGISTRY)} "
            "(or a peer of isoline.methods.peers for comparisons)"
        )
    return _REGISTRY[name]


def option_defaults(name: str) -> dict[str, object]:
    """The options of method ``name`` (registered or peer) and their current defaults."""
    return _options(get_method(name))


def make_method(name: str, dim: int, **kwargs: Any) -> Method:
    """Instantiate method ``name`` in ``dim`` dimensions, checking option names.

    ``preset=NAME`` (methods with :attr:`Method.presets`) fills every option not given
    explicitly from that named option set.
    """
    cls = get_method(name)
    if getattr(cls, "family", "") == "peer":  # a peer checks its own options
        return cls(dim, **kwargs)
    allowed = _options(cls)
    unknown = sorted(set(kwargs) - set(allowed) - set(_COMMON))
    if unknown:
        raise TypeError(
            f"unknown option(s) {unknown} for method {name!r}; "
            f"its options are {sorted(allowed) or 'none'}"
        )
    preset = kwargs.pop("preset", None)
    if preset is not None:
        check_choice(preset, "preset", tuple(cls.presets))
        dim = check_int(dim, "dim", 1)
        kwargs = {**cls.presets[preset](dim), **kwargs}
    return cls(dim, **kwargs)


def methods() -> list[MethodInfo]:
    """Every registered method: name, family, paper reference, batch support, options."""
    _load()
    return [
        MethodInfo(c.name, c.family, c.paper, c.supports_batch, _options(c))
        for _, c in sorted(_REGISTRY.items())
    ]
