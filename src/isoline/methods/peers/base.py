"""The adapter every peer shares: :class:`PeerMethod` (ask/tell over the peer's own API,
unit cube, minimization, failures, repeats, pickling by replay), the peers' registry and
the translation of isoline's parameters into what a peer is told to search."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import logging
import warnings
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

import numpy as np

from isoline.methods.replay import ReplayPickled
from isoline.params import Categorical, Integer, Param, Real, Space
from isoline.validation import check_int

__all__ = [
    "DEFAULT_BUDGET", "EXTRA", "PEERS", "PeerMethod", "PeerNotInstalled", "get_peer",
    "peer_names", "plain", "register_peer",
]  # fmt: skip

EXTRA = "pip install 'isoline[peers]'"
#: evaluations a peer that plans by the budget assumes when none is given (ask/tell use)
DEFAULT_BUDGET = 100


class PeerNotInstalled(ImportError):
    """A peer's package is missing; the message names the extra to install."""


class PeerMethod(ReplayPickled):
    """An ask/tell adapter around another library's optimizer (unit cube, minimization).

    Subclasses implement :meth:`_start` (build the peer's optimizer), :meth:`_ask_one` (one
    point and the peer's handle for it), :meth:`_tell_one` (a value for a handle, ``NaN`` for
    a failure) and :meth:`_tell_new` (a point the peer did not propose).

    Args:
        dim: number of variables.
        budget: the run's number of evaluations, for peers that plan by it (Nevergrad's
            portfolio choice, SMAC's initial design); :func:`isoline.minimize` passes its
            own. ``None`` (ask/tell without a budget) assumes :data:`DEFAULT_BUDGET`.
        n_init: by default 0: the peer draws its own initial design. A positive ``n_init``
            serves isoline's design first and gives it to the peer as known data.
        **options: the peer's own keyword arguments.
    """

    family = "peer"
    needs_data = False
    #: the importable packages the peer needs (the first is imported before it starts)
    packages: ClassVar[tuple[str, ...]] = ()
    takes_budget = True
    #: warnings the peer emits outside our calls (from its own threads), silenced for good
    quiet_messages: ClassVar[tuple[str, ...]] = ()
    #: whether the peer is told a conditional space's conditions and searches its tree
    #: (else it sees the space flat); each such peer reads :attr:`_conditions`
    native_conditions: ClassVar[bool] = False

    def __init__(
        self,
        dim: int,
        *,
        budget: int | None = None,
        seed: int = 0,
        batch_size: int = 1,
        n_init: int | None = None,
        init: str | None = None,
        space: Any = None,
        n_objectives: int = 1,
        n_constraints: int = 0,
        **options: Any,
    ) -> None:
        super().__init__(
            dim, seed=seed, batch_size=batch_size, n_init=n_init, init=init, space=space,
            n_objectives=n_objectives, n_constraints=n_constraints,
        )  # fmt: skip
        self.budget = None if budget is None else check_int(budget, "budget", 1)
        self.options = dict(options)
        #: the parameters the peer sees, named x0, x1, ...: the typed space's own (log
        #: scales, integers, categorical choices as their indices) or d reals in [0, 1]
        self._params = _peer_params(space, dim)
        #: child -> (parent, the parent's values in the peer's terms) for a peer that
        #: searches the tree natively (empty otherwise); ``_order``: parents first
        self._conditions = _peer_conditions(space) if self.native_conditions else {}
        self._order = _peer_order(space, list(self._params))
        self._record_args({"dim": dim, "budget": budget, "seed": seed, "batch_size": batch_size,
                           "n_init": n_init, "init": init, "space": space, "n_objectives": n_objectives,
                           "n_constraints": n_constraints, **options})  # fmt: skip
        self._handles: dict[bytes, list[Any]] = {}
        self._worst: float | None = None
        #: per output, the worst (largest) value of the finite rows told so far
        self._worst_row: np.ndarray | None = None
        _require(self.name, self.packages)
        importlib.import_module(
            self.packages[0]
        )  # before _quiet: a peer sets its log levels on import
        for message in self.quiet_messages:
            warnings.filterwarnings("ignore", message=message)
        with _quiet():
            self._start()

    @classmethod
    def check_options(cls, options: dict[str, Any], dim: int = 2) -> None:
        """Build the peer once with ``options``; ValueError naming the option it rejects."""
        try:
            cls(dim, budget=20, **options)
        except PeerNotInstalled:
            raise
        except Exception as e:  # noqa: BLE001 - a peer rejects options with many types
            raise ValueError(f"{cls.name}: the peer rejects options {options}: {e}") from e

    # -- Method hooks -------------------------------------------------------------------
    def propose(self, q: int) -> np.ndarray:
        out = np.empty((q, self.dim))
        with _quiet():
            for i in range(q):
                try:
                    values, handle = self._ask_one()
                    out[i] = self._to_unit(values)
                except Exception as e:
                    if not _exhausted(e):
                        raise
                    # the peer has proposed every configuration of a finite space and
                    # refuses repeats (SMAC3, Ax): isoline serves random ones, untold
                    out[i], handle = self.rng.random(self.dim), None
                self._handles.setdefault(out[i].tobytes(), []).append(handle)
        return out

    def _distinct(self, X: np.ndarray) -> np.ndarray:
        # a peer's repeats are its own behaviour: served as proposed, never replaced
        assert self.space is not None
        return self.space.round(X)

    def _to_unit(self, values: Mapping[str, Any]) -> np.ndarray:
        """The ``(dim,)`` unit-cube row of a peer's configuration ``{x0: v0, ...}``."""
        if self.space is None:
            return np.clip(np.array([float(values[n]) for n in self._params]), 0.0, 1.0)
        config: dict[str, Any] = {}
        for (name, p), key in zip(self.space.params.items(), self._params):
            if key not in values:
                continue  # inactive in a peer that searches the tree natively
            v = values[key]
            if isinstance(p, Categorical):
                config[name] = p.choices[int(v)]
            elif isinstance(p, Integer):
                config[name] = int(min(max(round(float(v)), p.low), p.high))
            else:
                config[name] = float(min(max(float(v), p.low), p.high))
        active = set(self.space.active(config))
        config = {k: v for k, v in config.items() if k in active}
        return np.asarray(self.space.encode(config), dtype=float)

    def _to_peer(self, u: np.ndarray) -> dict[str, Any]:
        """The peer's configuration ``{x0: v0, ...}`` of a unit-cube row. A peer that
        searches a conditional space natively gets the active parameters only; one that
        sees it flat gets an inactive parameter at the value isoline's encoding imputes to
        it (its lower bound, or its first choice), ignored on the way back."""
        if self.space is None:
            return {n: float(v) for n, v in zip(self._params, u)}
        config = self.space.decode(u[None, :])[0]
        out: dict[str, Any] = {}
        for (name, p), key in zip(self.space.params.items(), self._params):
            if name not in config:
                if not self._conditions:
                    out[key] = 0 if isinstance(p, Categorical) else p.low
            else:
                out[key] = p.index(config[name]) if isinstance(p, Categorical) else config[name]
        return out

    def observe(self, X: np.ndarray, y: np.ndarray) -> None:
        rows = self.Y[len(self.Y) - len(X) :]
        with _quiet():
            for x, v, row in zip(X, y, rows):
                # one output: its value (float); several: the row (objectives, constraints)
                told: Any = float(v) if self.n_outputs == 1 else row.copy()
                if np.isfinite(v):  # a finite row is never imputed: it may count at once
                    w = self._worst_row
                    self._worst_row = row.copy() if w is None else np.maximum(w, row)
                handles = self._handles.get(x.tobytes())
                if handles:
                    handle = handles.pop(0)
                    if not handles:
                        del self._handles[x.tobytes()]
                    if handle is not None:
                        self._tell_one(handle, told)
                elif np.isfinite(v) or self._worst is not None:
                    self._tell_new(self._to_peer(x), told)
                if np.isfinite(v):
                    self._worst = float(v) if self._worst is None else max(self._worst, float(v))

    def _imputed(self, v: float) -> float | None:
        """``v``, or for a failure the worst value seen (``None`` if there is none)."""
        return v if np.isfinite(v) else self._worst

    def _imputed_row(self, row: Any) -> np.ndarray | None:
        """A row of several outputs, or for a failure (a row of NaN) each output's worst
        value among the finite rows told (``None`` if there is none)."""
        row = np.asarray(row, dtype=float)
        if np.all(np.isfinite(row)):
            return row
        return None if self._worst_row is None else self._worst_row.copy()

    # -- for subclasses -----------------------------------------------------------------
    def _start(self) -> None:
        raise NotImplementedError

    def _ask_one(self) -> tuple[Mapping[str, Any], Any]:
        """One configuration ``{x0: v0, ...}`` of the peer and its handle for the tell."""
        raise NotImplementedError

    def _tell_one(self, handle: Any, y: Any) -> None:
        """The result for a handle: a float (``NaN``: failed) with one output; with several
        (a peer whose :attr:`max_objectives` or :attr:`supports_constraints` allows them)
        the ``(m,)`` internal row, objectives minimized then constraints (``<= 0``
        feasible), all ``NaN`` when the evaluation failed."""
        raise NotImplementedError

    def _tell_new(self, values: Mapping[str, Any], y: Any) -> None:
        """A configuration ``{x0: v0, ...}`` the peer did not propose, and its value (or
        row, as for :meth:`_tell_one`)."""
        raise NotImplementedError


#: exceptions by which a peer says a finite space has no configuration left to propose
#: (SMAC3's ``ask`` also ends its trial generator with a bare ``StopIteration``)
_EXHAUSTED = ("ConfigurationSpaceExhaustedException", "SearchSpaceExhausted", "StopIteration")


def _exhausted(e: BaseException | None) -> bool:
    while e is not None:
        if type(e).__name__ in _EXHAUSTED:
            return True
        e = e.__cause__ or e.__context__
    return False


def _peer_params(space: Space | None, dim: int) -> dict[str, Param]:
    """What the peers are told to search: ``x{i}`` per parameter of ``space`` (a
    categorical one over its choice indices; a logit-scaled real as a linear one, which no
    peer offers), or ``dim`` reals in ``[0, 1]``."""
    if space is None:
        return {f"x{i}": Real(0.0, 1.0) for i in range(dim)}
    out: dict[str, Param] = {}
    for i, p in enumerate(space.params.values()):
        if isinstance(p, Categorical):
            out[f"x{i}"] = Categorical(range(len(p.choices)))
        elif isinstance(p, Real) and p.logit:
            out[f"x{i}"] = Real(p.low, p.high)
        else:
            out[f"x{i}"] = p
    return out


def _peer_conditions(space: Space | None) -> dict[str, tuple[str, tuple[Any, ...]]]:
    """A conditional space's conditions over the peer's names ``x{i}``: ``{child:
    (parent, values)}``, a Categorical parent's values as the peer sees them (indices)."""
    if space is None or not space.conditions:
        return {}
    key = {name: f"x{i}" for i, name in enumerate(space.params)}
    out: dict[str, tuple[str, tuple[Any, ...]]] = {}
    for child, cond in space.conditions.given().items():
        ((parent, values),) = cond.items()
        p = space.params[parent]
        peer = [p.index(v) if isinstance(p, Categorical) else int(v) for v in values]
        out[key[child]] = (key[parent], tuple(peer))
    return out


def _peer_order(space: Space | None, keys: list[str]) -> list[str]:
    """The peer's names with every parent before its children."""
    if space is None:
        return keys
    key = {name: f"x{i}" for i, name in enumerate(space.params)}
    return [key[n] for n in space.conditions.order]


#: peer name -> its adapter class
PEERS: dict[str, type[PeerMethod]] = {}


def register_peer(cls: type[PeerMethod]) -> type[PeerMethod]:
    """Class decorator: make ``cls`` a peer, found by its ``name``."""
    PEERS[cls.name] = cls
    return cls


def peer_names() -> list[str]:
    return sorted(PEERS)


def get_peer(name: str) -> type[PeerMethod]:
    """The adapter class of peer ``name``.

    Raises:
        ValueError: ``name`` is not a peer.
        PeerNotInstalled: its package is missing (the message names the extra).
    """
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}; choose one of {peer_names()}")
    cls = PEERS[name]
    _require(name, cls.packages)
    return cls


def _require(name: str, packages: tuple[str, ...]) -> None:
    for package in packages:
        if importlib.util.find_spec(package) is None:
            raise PeerNotInstalled(f"peer {name!r} needs the package {package!r}: {EXTRA}")


_LOGGERS = ("optuna", "ax", "smac", "nevergrad", "botorch", "pyro")


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence the peers' loggers and warnings (progress lines, experimental features)."""
    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] in _LOGGERS]
    levels = {n: logging.getLogger(n).level for n in {*_LOGGERS, *names}}
    for n in levels:
        logging.getLogger(n).setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for n, level in levels.items():
            logging.getLogger(n).setLevel(level)


def plain(v: Any) -> Any:
    """A NumPy scalar as the Python number a peer's API expects."""
    return v.item() if isinstance(v, np.generic) else v
