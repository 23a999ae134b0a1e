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
``optuna-nsga2``   Optuna ``NSGAIISampler`` (Deb et al., "A fast and elitist
                   multiobjective genetic algorithm: NSGA-II", IEEE TEVC 2002)
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
raises before any run starts. HEBO is not among them: its releases pin numpy below 1.25.

Reproducibility: a seed gives the same trajectory within one interpreter; SMAC3's also
depends on the interpreter's string-hash seed (set ``PYTHONHASHSEED``; the benchmark
runner gives its workers ``0``), or a resume in another process is refused.

Several objectives and black-box constraints: Optuna's samplers but CMA-ES take both
(``directions``, ``constraints_func``), Ax both (multi-objective ``objective``, outcome
constraints), SMAC3 several objectives (ParEGO); the other peers refuse them when built,
as isoline's methods do, naming the methods that handle them.

Failed evaluations: Optuna and Ax receive their own failed state; Nevergrad, scikit-optimize
and SMAC are told the worst value seen so far (as isoline's own methods impute them), or
nothing while no evaluation has succeeded. Pickling replays the recorded calls on a fresh
adapter, so a peer whose object does not pickle (an Optuna study holds locks) still
pickles, and a seeded peer continues exactly.

The shared adapter, :class:`PeerMethod`, and the registry are in
:mod:`isoline.methods.peers.base`; each peer library has a module of its own (``optuna``,
``nevergrad``, ``skopt``, ``smac``, ``ax``). A new peer subclasses :class:`PeerMethod`
and is decorated with :func:`register_peer`.
"""

from __future__ import annotations

from isoline.methods.peers.ax import AxPeer
from isoline.methods.peers.base import (
    DEFAULT_BUDGET,
    EXTRA,
    PEERS,
    PeerMethod,
    PeerNotInstalled,
    get_peer,
    peer_names,
    register_peer,
)
from isoline.methods.peers.nevergrad import NevergradPeer
from isoline.methods.peers.optuna import OptunaCmaEs, OptunaGP, OptunaNSGA2, OptunaTPE
from isoline.methods.peers.skopt import SkoptGP
from isoline.methods.peers.smac import SmacBlackBox, SmacHPO

__all__ = [
    "DEFAULT_BUDGET", "EXTRA", "PEERS", "AxPeer", "NevergradPeer", "OptunaCmaEs", "OptunaGP",
    "OptunaNSGA2", "OptunaTPE", "PeerMethod", "PeerNotInstalled", "SkoptGP", "SmacBlackBox", "SmacHPO",
    "get_peer", "peer_names", "register_peer",
]  # fmt: skip
