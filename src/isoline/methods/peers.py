"""Other libraries' optimizers as isoline methods: the peers a benchmark compares against.

Each adapter drives the peer's own public ask/tell API over the problem's parameters (a
:class:`~isoline.space.Box` as ``d`` reals in ``[0, 1]``; a typed
:class:`~isoline.params.Space` natively: log scales, integers and categorical choices in
the peer's own types), minimizing, so a peer runs under the same harness as isoline's
methods: the same problem object, budget and seed, the same store (resume by replay,
failed evaluations recorded), the same reports. A peer's repeated configurations are
served as it proposed them; one that refuses repeats on an exhausted finite space
(SMAC3, Ax) gets random configurations served, untold. They are not registered methods and are not listed by
:func:`isoline.methods`; :func:`isoline.methods.registry.get_method` finds them by name.

Needs the extra ``peers`` (``pip install 'isoline[peers]'``):

=================  ====================================================================
name               peer
=================  ====================================================================
``optuna-tpe``     Optuna ``TPESampler`` (Watanabe, "Tree-structured Parzen estimator:
                   understanding its algorithm components", arXiv 2304.11127, 2023)
``optuna-gp``      Optuna ``GPSampler`` (GP with log-EI)
``optuna-cmaes``   Optuna ``CmaEsSampler`` (Hansen, "The CMA evolution strategy: a
                   tutorial", arXiv 1604.00772, 2016)
``nevergrad``      Nevergrad's ``NGOpt`` portfolio (Meunier et al., "Black-box
                   optimization revisited", IEEE TEVC 2022); ``optimizer=`` another name
                   of its registry
``skopt-gp``       scikit-optimize's ``gp_minimize`` settings on ``skopt.Optimizer``
``smac-bb``        SMAC3 ``BlackBoxFacade`` (Lindauer et al., "SMAC3: a versatile Bayesian
                   optimization package for hyperparameter optimization", JMLR 2022)
``smac-hpo``       SMAC3 ``HyperparameterOptimizationFacade`` (random forest)
``ax``             Ax ``Client`` with its default generation strategy
=================  ====================================================================

Options of a peer row are the peer's own keyword arguments (for the sampler, optimizer or
facade named above) and are checked by constructing it: :meth:`PeerMethod.check_options`
raises before any run starts. HEBO is not among them: its releases pin numpy below 1.25
(``benchmarks/results/peers/README.md``).

Reproducibility: a seed gives the same trajectory within one interpreter; SMAC3's also
depends on the interpreter's string-hash seed (set ``PYTHONHASHSEED``; the benchmark
runner gives its workers ``0``), or a resume in another process is refused.

Failed evaluations: Optuna and Ax receive their own failed state; Nevergrad, scikit-optimize
and SMAC are told the worst value seen so far (as isoline's own methods impute them), or
nothing while no evaluation has succeeded. Pickling replays the recorded calls on a fresh
adapter, so a peer whose object does not pickle (an Optuna study holds locks) still
pickles, and a seeded peer continues exactly.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import logging
import math
import tempfile
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from isoline.methods.base import ReplayPickled
from isoline.params import Categorical, Integer, Param, Real, Space
from isoline.validation import check_int

__all__ = ["PEERS", "PeerMethod", "PeerNotInstalled", "get_peer", "peer_names"]

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
    #: whether minimize/bench pass the run's budget
    takes_budget: ClassVar[bool] = True
    #: warnings the peer emits outside our calls (from its own threads), silenced for good
    quiet_messages: ClassVar[tuple[str, ...]] = ()

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
        **options: Any,
    ) -> None:
        super().__init__(
            dim, seed=seed, batch_size=batch_size, n_init=n_init, init=init, space=space
        )
        self.budget = None if budget is None else check_int(budget, "budget", 1)
        self.options = dict(options)
        #: the parameters the peer sees, named x0, x1, ...: the typed space's own (log
        #: scales, integers, categorical choices as their indices) or d reals in [0, 1]
        self._params = _peer_params(space, dim)
        self._record_args({"dim": dim, "budget": budget, "seed": seed, "batch_size": batch_size,
                           "n_init": n_init, "init": init, "space": space, **options})  # fmt: skip
        self._handles: dict[bytes, list[Any]] = {}
        self._worst: float | None = None
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
            v = values[key]
            if isinstance(p, Categorical):
                config[name] = p.choices[int(v)]
            elif isinstance(p, Integer):
                config[name] = int(min(max(round(float(v)), p.low), p.high))
            else:
                config[name] = float(min(max(float(v), p.low), p.high))
        return np.asarray(self.space.encode(config), dtype=float)

    def _to_peer(self, u: np.ndarray) -> dict[str, Any]:
        """The peer's configuration ``{x0: v0, ...}`` of a unit-cube row."""
        if self.space is None:
            return {n: float(v) for n, v in zip(self._params, u)}
        config = self.space.decode(u[None, :])[0]
        out: dict[str, Any] = {}
        for (name, p), key in zip(self.space.params.items(), self._params):
            out[key] = p.index(config[name]) if isinstance(p, Categorical) else config[name]
        return out

    def observe(self, X: np.ndarray, y: np.ndarray) -> None:
        with _quiet():
            for x, v in zip(X, y):
                handles = self._handles.get(x.tobytes())
                if handles:
                    handle = handles.pop(0)
                    if not handles:
                        del self._handles[x.tobytes()]
                    if handle is not None:
                        self._tell_one(handle, float(v))
                elif np.isfinite(v) or self._worst is not None:
                    self._tell_new(self._to_peer(x), float(v))
                if np.isfinite(v):
                    self._worst = float(v) if self._worst is None else max(self._worst, float(v))

    def _imputed(self, v: float) -> float | None:
        """``v``, or for a failure the worst value seen (``None`` if there is none)."""
        return v if np.isfinite(v) else self._worst

    # -- for subclasses -----------------------------------------------------------------
    def _start(self) -> None:
        raise NotImplementedError

    def _ask_one(self) -> tuple[Mapping[str, Any], Any]:
        """One configuration ``{x0: v0, ...}`` of the peer and its handle for the tell."""
        raise NotImplementedError

    def _tell_one(self, handle: Any, y: float) -> None:
        raise NotImplementedError

    def _tell_new(self, values: Mapping[str, Any], y: float) -> None:
        """A configuration ``{x0: v0, ...}`` the peer did not propose, and its value."""
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


#: peer name -> its adapter class
PEERS: dict[str, type[PeerMethod]] = {}


def _peer(cls: type[PeerMethod]) -> type[PeerMethod]:
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


# -- Optuna ---------------------------------------------------------------------------
class _OptunaPeer(PeerMethod):
    packages: ClassVar[tuple[str, ...]] = ("optuna",)
    takes_budget = False
    sampler_class: ClassVar[str] = ""

    def _start(self) -> None:
        import optuna

        sampler = getattr(optuna.samplers, self.sampler_class)(seed=self.seed, **self.options)
        self._study = optuna.create_study(direction="minimize", sampler=sampler)
        D = optuna.distributions
        self._dists: dict[str, optuna.distributions.BaseDistribution] = {}
        for n, p in self._params.items():
            if isinstance(p, Categorical):
                self._dists[n] = D.CategoricalDistribution(p.choices)
            elif isinstance(p, Integer):
                self._dists[n] = D.IntDistribution(p.low, p.high, log=p.log)
            else:
                self._dists[n] = D.FloatDistribution(p.low, p.high, log=p.log)

    def _ask_one(self) -> tuple[Mapping[str, Any], Any]:
        trial = self._study.ask(self._dists)
        return trial.params, trial

    def _tell_one(self, handle: Any, y: float) -> None:
        from optuna.trial import TrialState

        if np.isfinite(y):
            self._study.tell(handle, y)
        else:
            self._study.tell(handle, state=TrialState.FAIL)

    def _tell_new(self, values: Mapping[str, Any], y: float) -> None:
        from optuna.trial import TrialState, create_trial

        kw: dict[str, Any] = {"value": y} if np.isfinite(y) else {"state": TrialState.FAIL}
        self._study.add_trial(create_trial(params=dict(values), distributions=self._dists, **kw))


@_peer
class OptunaTPE(_OptunaPeer):
    name = "optuna-tpe"
    paper = "Optuna TPESampler"
    sampler_class = "TPESampler"


@_peer
class OptunaGP(_OptunaPeer):
    name = "optuna-gp"
    paper = "Optuna GPSampler"
    sampler_class = "GPSampler"


@_peer
class OptunaCmaEs(_OptunaPeer):
    name = "optuna-cmaes"
    paper = "Optuna CmaEsSampler"
    packages = ("optuna", "cmaes")
    sampler_class = "CmaEsSampler"


# -- Nevergrad ------------------------------------------------------------------------
@_peer
class NevergradPeer(PeerMethod):
    name = "nevergrad"
    paper = "Nevergrad NGOpt (Meunier et al., IEEE TEVC 2022)"
    packages = ("nevergrad",)
    # its scipy-based members run in a thread and warn between asks
    quiet_messages = ("COBYLA: Invalid RHOEND",)

    def _start(self) -> None:
        import nevergrad as ng

        opts = dict(self.options)
        name = opts.pop("optimizer", "NGOpt")
        if name not in ng.optimizers.registry:
            raise ValueError(f"optimizer {name!r} is not in Nevergrad's registry")
        param = ng.p.Dict(**{n: _nevergrad_param(ng, p) for n, p in self._params.items()})
        param.random_state = np.random.RandomState(self.seed)
        factory: Callable[..., Any] = ng.optimizers.registry[name]
        self._opt = factory(
            parametrization=param, budget=self.budget or DEFAULT_BUDGET,
            num_workers=self.batch_size, **opts,
        )  # fmt: skip

    def _ask_one(self) -> tuple[Mapping[str, Any], Any]:
        cand = self._opt.ask()
        return cand.value, cand

    def _tell_one(self, handle: Any, y: float) -> None:
        # a sequential optimizer of the portfolio waits for every tell: a failure before
        # any success is told as inf (which Nevergrad accepts with a warning)
        v = self._imputed(y)
        self._opt.tell(handle, math.inf if v is None else v)

    def _tell_new(self, values: Mapping[str, Any], y: float) -> None:
        self._tell_one(self._opt.parametrization.spawn_child(new_value=dict(values)), y)


def _nevergrad_param(ng: Any, p: Param) -> Any:
    if isinstance(p, Categorical):
        return ng.p.Choice(list(p.choices))
    if p.log:
        out = ng.p.Log(lower=p.low, upper=p.high)
    else:
        out = ng.p.Scalar(lower=p.low, upper=p.high)
    return out.set_integer_casting() if isinstance(p, Integer) else out


# -- scikit-optimize ------------------------------------------------------------------
@_peer
class SkoptGP(PeerMethod):
    """``skopt.Optimizer`` configured as ``gp_minimize`` configures it (GP with Gaussian
    noise, ``gp_hedge``, 10 random initial points, L-BFGS acquisition search)."""

    name = "skopt-gp"
    paper = "scikit-optimize gp_minimize"
    packages = ("skopt",)
    takes_budget = False

    def _start(self) -> None:
        from skopt import Optimizer
        from skopt import space as sk
        from skopt.utils import cook_estimator

        o = {"n_initial_points": 10, "initial_point_generator": "random",
             "acq_func": "gp_hedge", "acq_optimizer": "auto", "n_points": 10000,
             "n_restarts_optimizer": 5, "xi": 0.01, "kappa": 1.96, "noise": "gaussian",
             **self.options}  # fmt: skip
        dims: list[Any] = []
        for p in self._params.values():
            prior = "log-uniform" if getattr(p, "log", False) else "uniform"
            if isinstance(p, Categorical):
                dims.append(sk.Categorical(list(p.choices)))
            elif isinstance(p, Integer):
                dims.append(sk.Integer(p.low, p.high, prior=prior))
            else:
                dims.append(sk.Real(p.low, p.high, prior=prior))
        rng = np.random.RandomState(self.seed)
        est = cook_estimator(
            "GP", space=sk.Space(dims), random_state=rng.randint(0, np.iinfo(np.int32).max),
            noise=o.pop("noise"),
        )  # fmt: skip
        self._opt = Optimizer(
            dims, est, random_state=rng,
            acq_optimizer_kwargs={"n_points": o.pop("n_points"), "n_jobs": 1,
                                  "n_restarts_optimizer": o.pop("n_restarts_optimizer")},
            acq_func_kwargs={"xi": o.pop("xi"), "kappa": o.pop("kappa")}, **o,
        )  # fmt: skip
        self._pending: list[list[float]] = []

    def _ask_one(self) -> tuple[Mapping[str, Any], Any]:
        # skopt proposes a batch with a constant liar only through ask(n_points); one at a
        # time it would repeat a point until told, so pending points get the lie here
        if self._pending:
            x = self._opt.ask(n_points=len(self._pending) + 1, strategy="cl_min")[-1]
        else:
            x = self._opt.ask()
        self._pending.append(list(x))
        return dict(zip(self._params, x)), list(x)

    def _tell_one(self, handle: Any, y: float) -> None:
        self._pending.remove(handle)
        self._tell_new(dict(zip(self._params, handle)), y)

    def _tell_new(self, values: Mapping[str, Any], y: float) -> None:
        v = self._imputed(y)
        if v is not None:
            self._opt.tell([_plain(values[n]) for n in self._params], v)


# -- SMAC3 ----------------------------------------------------------------------------
class _SmacPeer(PeerMethod):
    packages = ("smac",)
    facade: ClassVar[str] = ""

    def _start(self) -> None:
        import smac
        from ConfigSpace import Categorical as CSCategorical
        from ConfigSpace import ConfigurationSpace, Float
        from ConfigSpace import Integer as CSInteger

        cs = ConfigurationSpace(seed=self.seed)
        hps: list[Any] = []
        for n, p in self._params.items():
            if isinstance(p, Categorical):
                hps.append(CSCategorical(n, [str(c) for c in p.choices]))
            elif isinstance(p, Integer):
                hps.append(CSInteger(n, (p.low, p.high), log=p.log))
            else:
                hps.append(Float(n, (p.low, p.high), log=p.log))
        cs.add(hps)
        self._tmp = tempfile.TemporaryDirectory(prefix="isoline-smac-")
        scenario = smac.Scenario(
            cs, deterministic=True, seed=self.seed, n_trials=self.budget or DEFAULT_BUDGET,
            output_directory=Path(self._tmp.name),
        )  # fmt: skip
        cls = getattr(smac, self.facade)
        self._smac = cls(
            scenario, lambda config, seed=0: 0.0, overwrite=True, logging_level=False,
            **self.options,
        )  # fmt: skip
        self._cs = cs

    def _ask_one(self) -> tuple[Mapping[str, Any], Any]:
        info = self._smac.ask()
        return {n: info.config[n] for n in self._params}, info

    def _tell_one(self, handle: Any, y: float) -> None:
        from smac.runhistory.dataclasses import TrialValue
        from smac.runhistory.enumerations import StatusType

        v = self._imputed(y)
        if v is None:
            return
        status = StatusType.SUCCESS if np.isfinite(y) else StatusType.CRASHED
        self._smac.tell(handle, TrialValue(cost=v, status=status), save=False)

    def _tell_new(self, values: Mapping[str, Any], y: float) -> None:
        from ConfigSpace import Configuration
        from smac.runhistory.dataclasses import TrialInfo

        typed = {n: str(v) if isinstance(self._params[n], Categorical) else _plain(v)
                 for n, v in values.items()}  # fmt: skip
        config = Configuration(self._cs, values=typed)
        self._tell_one(TrialInfo(config=config, seed=self.seed), y)


@_peer
class SmacBlackBox(_SmacPeer):
    name = "smac-bb"
    paper = "SMAC3 BlackBoxFacade (Lindauer et al., JMLR 2022)"
    facade = "BlackBoxFacade"
    supports_batch = False


@_peer
class SmacHPO(_SmacPeer):
    name = "smac-hpo"
    paper = "SMAC3 HyperparameterOptimizationFacade (Lindauer et al., JMLR 2022)"
    facade = "HyperparameterOptimizationFacade"
    supports_batch = False


# -- Ax -------------------------------------------------------------------------------
@_peer
class AxPeer(PeerMethod):
    """Ax's ``Client`` with the generation strategy it chooses by default.

    Ax rejects a range narrower than its own limit (``100 * ax.core.parameter.EPS``)
    even on a log scale (bayesmark's MLP ``epsilon`` spans 1e-9 to 1e-6), and advises to
    reparameterize: such a log-scaled real is given to Ax as its ``log10`` on a linear
    scale, which is what Ax's log transform models anyway.

    With ``batch_size > 1`` the generation strategy is configured with Ax's
    ``allow_exceeding_initialization_budget=True``: the default one proposes its few Sobol
    points and then refuses (``DataRequiredError``) until results arrive, so a first
    batch larger than its initialization budget could not be served.
    """

    name = "ax"
    paper = "Ax Client, default generation strategy"
    packages = ("ax",)
    takes_budget = False

    def _start(self) -> None:
        from ax import ChoiceParameterConfig, Client, RangeParameterConfig
        from ax.core.parameter import EPS

        self._client = Client(random_seed=self.seed, **self.options)
        params: list[Any] = []
        #: log-scaled reals too narrow for Ax, given to it as their log10
        self._log10 = {n for n, p in self._params.items()
                       if isinstance(p, Real) and p.log and p.high - p.low < 100 * EPS}  # fmt: skip
        for n, p in self._params.items():
            if isinstance(p, Categorical):
                values = [str(c) for c in p.choices]
                params.append(ChoiceParameterConfig(name=n, values=values, parameter_type="str"))
            elif n in self._log10:
                bounds = (float(np.log10(p.low)), float(np.log10(p.high)))
                params.append(RangeParameterConfig(name=n, parameter_type="float", bounds=bounds))
            else:
                params.append(RangeParameterConfig(
                    name=n, parameter_type="int" if isinstance(p, Integer) else "float",
                    bounds=(p.low, p.high), scaling="log" if p.log else "linear",
                ))  # fmt: skip
        self._client.configure_experiment(parameters=params)
        self._client.configure_optimization(objective="-loss")
        if self.batch_size > 1:
            self._client.configure_generation_strategy(allow_exceeding_initialization_budget=True)
        self._ready: list[tuple[int, Mapping[str, Any]]] = []

    def _ask_one(self) -> tuple[Mapping[str, Any], Any]:
        if not self._ready:
            self._ready = list(self._client.get_next_trials(max_trials=1).items())
            if not self._ready:
                raise RuntimeError(
                    "ax: the generation strategy proposes no further trial before more "
                    "results arrive; use a smaller batch_size"
                )
        index, params = self._ready.pop(0)
        return {n: 10.0**v if n in self._log10 else v for n, v in params.items()}, index

    def _tell_one(self, handle: Any, y: float) -> None:
        if np.isfinite(y):
            self._client.complete_trial(handle, raw_data={"loss": y})
        else:
            self._client.mark_trial_failed(handle)

    def _tell_new(self, values: Mapping[str, Any], y: float) -> None:
        typed = {n: str(v) if isinstance(self._params[n], Categorical)
                 else float(np.log10(v)) if n in self._log10 else _plain(v)
                 for n, v in values.items()}  # fmt: skip
        self._tell_one(self._client.attach_trial(typed), y)


def _plain(v: Any) -> Any:
    """A NumPy scalar as the Python number a peer's API expects."""
    return v.item() if isinstance(v, np.generic) else v
