"""isoline's methods as an Optuna sampler.

``optuna.create_study(sampler=IsolineSampler("turbo", seed=0))`` lets an Optuna study (its
storages, dashboard and pruners) propose with any registered isoline method. The joint
search space of the completed trials is sampled *relatively* by the method. That is the
*union* of the parameters the completed trials asked: in a define-by-run study a parameter
asked only in some trials is modelled as a conditional parameter whose parent is read off
the trials (:mod:`isoline.integrations.union`), the method proposes a full configuration
and the trial takes the parameters it asks. Parameters outside it (first trial, never
seen before, or following no single parent) are drawn by an independent sampler
(uniform draws of Optuna's ``RandomSampler``, seeded by the seed and the trial number,
unless another sampler is given).

Optuna distributions map onto :mod:`isoline.params`: ``FloatDistribution`` to ``Real``
(``log`` kept; with a ``step``, to an ``Integer`` index of the grid), ``IntDistribution``
to ``Integer`` (a ``step`` > 1 likewise), ``CategoricalDistribution`` to ``Categorical``.
isoline minimizes: a maximized study's values are negated before the method sees them.
Failed trials are failed evaluations (NaN); a pruned trial counts with its last reported
intermediate value, or as failed if it reported none.

State: each process keeps one isoline :class:`~isoline.Optimizer` per study and search
space, told every finished trial in trial-number order as it first sees it (its own
proposals as answers to its asks, other workers' trials as known data; running trials
as pending, whose configurations are not proposed again; each proposal, with the rest of
its joint batch, is claimed in the storage before it is returned or queued, so two workers
never evaluate one configuration), so a sampler started on an existing study, or in
another worker process, recovers from the stored trials on its first ask. With ``batch_size = q > 1`` the method proposes ``q`` points
jointly; the first goes to the asking trial and the others into the study's waiting-trial
queue (``Study.enqueue_trial``), from which any worker of the study takes them. Workers
may share one seed: independent draws are seeded by the trial number too, and the claims
keep two workers that propose alike at the same moment from evaluating one configuration.

Several objectives and constraints: a multi-objective study (``directions=[...]``) is
optimized by a method that handles several objectives (``method="auto"`` picks one;
``random``/``sobol`` take any study; another method raises ValueError naming those that
can). Constraint values, feasible when ``<= 0``, are read where Optuna stores them in the
trial's system attributes: the tuple of the sampler's ``constraints_func`` (stored after
each complete or pruned trial, as Optuna's own samplers do) and each
``Trial.set_constraint(name, value)``. They reach the method beside the objectives as one
row of outputs per trial (a missing constraint value makes the trial a failed
evaluation; an infinite one, which Optuna accepts, is made finite on its side of 0). An
infinite objective value, which Optuna also stores in a complete trial, is a failed
evaluation for the method, as an objective returning one is in isoline's own runs. A method that does not handle constraints gets the objectives alone, and the
study one ``UserWarning`` per process saying that its constraints are ignored.
"""

from __future__ import annotations

import contextlib
import math
import threading
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from isoline.auto import AUTO
from isoline.integrations.union import infer_conditions, settled, union_of, unsettled_children
from isoline.methods.registry import capable_methods, get_method, resolve_name
from isoline.objective import Objective
from isoline.optimizer import Optimizer
from isoline.params import Real, Space

try:
    import optuna
    from optuna.distributions import BaseDistribution
    from optuna.samplers import BaseSampler, RandomSampler
    from optuna.samplers._base import _process_constraints_after_trial
    from optuna.study import Study, StudyDirection
    from optuna.trial import FrozenTrial, TrialState

    from isoline.integrations.distributions import from_optuna, param_of, to_optuna
except ImportError as err:  # pragma: no cover - exercised without the extra
    raise ImportError(
        'isoline.integrations.optuna needs Optuna: pip install "isoline[optuna]"'
    ) from err

__all__ = ["AUTO_ATTR", "IsolineSampler"]

#: Optuna versions this bridge is tested with (major versions)
TESTED_OPTUNA = (4, 5)
_FIXED = "fixed_params"
_BATCH = "isoline:batch"
_CLAIM = "isoline:claim"
#: trial system attribute: what method="auto" chose for the trial's proposal
AUTO_ATTR = "isoline:auto"
#: trial system attribute Optuna keeps constraint values under: the whole tuple of a
#: sampler's ``constraints_func`` under this key, each ``Trial.set_constraint(name, value)``
#: under ``"constraints:<name>"``
_CONSTRAINTS = "constraints"
#: proposals tried for one that no other trial holds or has claimed, before the trial is
#: left to the independent sampler
_CLAIM_ATTEMPTS = 5


def _check_version() -> None:
    major = int(optuna.__version__.split(".")[0])
    if major not in TESTED_OPTUNA:
        raise RuntimeError(
            f"IsolineSampler is tested with Optuna {TESTED_OPTUNA[0]}.x-{TESTED_OPTUNA[-1]}.x, "
            f"this is {optuna.__version__}"
        )


@dataclass
class _State:
    """One process's optimizer for one study and search space."""

    optimizer: Optimizer
    told: set[int] = field(default_factory=set)
    #: names of the constraints the optimizer is told, after the objectives
    constraints: tuple[str, ...] = ()


class IsolineSampler(BaseSampler):
    """An Optuna sampler that proposes with a registered isoline method.

    Args:
        method: an isoline method name (``isoline.methods()``), or ``"auto"`` (default):
            the method :func:`isoline.auto.choose` picks for the relative search space
            (options ``budget``, e.g. the study's ``n_trials``, ``noisy`` and ``workers``);
            each trial it proposes records the choice in its system attribute
            ``"isoline:auto"`` (``{"method": ..., "rule": ...}``). ``workers`` (trials
            evaluated at once) defaults to one plus the study's other running trials when
            the sampler first models the search space: a study optimized by several
            workers gets a method that proposes while their points are pending.
        seed: seed of the method and of the independent sampler (``None``: a random one).
        batch_size: points the method proposes jointly; all but the first of each batch are
            queued in the study for the next trials (of any worker).
        independent_sampler: sampler of the parameters outside the relative search space
            (default: uniform draws seeded by ``seed`` and the trial number).
        constraints_func: Optuna's constraints function: takes a ``FrozenTrial`` and
            returns its constraint values (``<= 0`` feasible), stored after each complete
            or pruned trial as Optuna's samplers store them. Constraints a trial sets with
            ``Trial.set_constraint`` are read without it.
        **options: the method's options (and ``n_init``, ``init``).

    Raises:
        ValueError: on a multi-objective study when the method handles one objective, or
            for an unsupported distribution.
    """

    def __init__(
        self,
        method: str = AUTO,
        *,
        seed: int | None = None,
        batch_size: int = 1,
        independent_sampler: BaseSampler | None = None,
        constraints_func: Callable[[FrozenTrial], Sequence[float]] | None = None,
        **options: Any,
    ) -> None:
        _check_version()
        self._constraints_func = constraints_func
        self.method = resolve_name(method)
        self._seed = int(np.random.default_rng().integers(2**31)) if seed is None else seed
        self.batch_size = batch_size
        self.options = options
        self._independent = independent_sampler
        self._states: dict[tuple[int, str, tuple[str, ...]], _State] = {}
        # studies (id, name) warned already that their constraints are ignored
        self._warned: set[tuple[int, str]] = set()
        # study.optimize(n_jobs > 1) samples from threads: one at a time reads and changes
        # the optimizers (a tell interleaved with another thread's ask broke a fit)
        self._lock = threading.RLock()
        # fail now, not at the first relative sample, on a bad method or option
        Optimizer(Space({"x": Real(0.0, 1.0)}), self.method, seed=self._seed, batch_size=batch_size,
                  **options)  # fmt: skip

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()

    def reseed_rng(self) -> None:
        if self._independent is not None:
            self._independent.reseed_rng()

    def after_trial(
        self,
        study: Study,
        trial: FrozenTrial,
        state: TrialState,
        values: Any,
    ) -> None:
        if self._constraints_func is not None:
            _process_constraints_after_trial(self._constraints_func, study, trial, state)
        with self._lock:
            self._warn_constraints(study, [trial])

    def _handles(self, n_objectives: int, n_constraints: int) -> bool:
        """Whether the method handles a study of this shape (``auto`` chooses one that
        does; designs that ignore values handle any)."""
        if self.method == AUTO:
            return True
        cls = get_method(self.method)
        if not cls.adaptive:
            return True
        able = not n_constraints or cls.supports_constraints
        return n_objectives <= cls.max_objectives and able

    def _check_objectives(self, study: Study) -> None:
        """Raise ValueError on a multi-objective study the method cannot optimize."""
        n = len(study.directions)
        if n > 1 and not self._handles(n, 0):
            raise ValueError(
                f"IsolineSampler({self.method!r}) cannot be used for a study with {n} "
                f"objectives: that method handles one; use one of: "
                + ", ".join(capable_methods(n, 0))
            )

    def _warn_constraints(self, study: Study, trials: list[FrozenTrial]) -> None:
        """Warn once per study if some of ``trials`` carry constraints the method
        ignores."""
        key = (study._study_id, study.study_name)
        if key in self._warned or self._handles(len(study.directions), 1):
            return
        for t in trials:
            names = _constraint_names(t)
            if names:
                self._warned.add(key)
                warnings.warn(
                    f"IsolineSampler ignores Optuna constraints: trial {t.number} of study "
                    f"{study.study_name!r} has constraint(s) {names}, which the isoline "
                    f"method {self.method!r} does not handle; its proposals are not "
                    "steered towards feasible points (methods that handle constraints: "
                    f"{', '.join(capable_methods(1, 1))}; warned once per study)",
                    UserWarning,
                    stacklevel=2,
                )
                return

    def infer_relative_search_space(
        self, study: Study, trial: FrozenTrial
    ) -> dict[str, BaseDistribution]:
        self._check_objectives(study)
        done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        space = {name: d for name, d in union_of(done).items() if not d.single()}
        names, _ = _conditions(done, space)
        return {name: space[name] for name in names}

    def sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        self._check_objectives(study)
        if not search_space:
            return {}
        fixed = trial.system_attrs.get(_FIXED, {})
        done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        _, conditions = _conditions(done, search_space)
        if all(name in fixed for name in search_space if name not in conditions):
            return {}  # a queued trial: its parameters are set already
        with self._lock:
            return self._sample_relative(study, trial, search_space)

    def _sample_relative(
        self, study: Study, trial: FrozenTrial, search_space: dict[str, BaseDistribution]
    ) -> dict[str, Any]:
        done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        _, conditions = _conditions(done, search_space)
        state = self._state(study, trial, search_space, conditions, self._constraint_names(study))
        self._sync(study, state, search_space)
        unsettled = unsettled_children(conditions, [t.params for t in done])
        for _ in range(_CLAIM_ATTEMPTS):
            batch = state.optimizer.ask()
            claims = [{n: to_optuna(search_space[n], c[n]) for n in c} for c in batch]
            taken = _claimed_elsewhere(study, trial, claims, unsettled)
            if not taken:
                break
            state.optimizer.withdraw(batch)
            state.optimizer.add_pending([batch[i] for i in taken])
        else:  # every proposal was taken: the independent sampler draws this trial
            study._storage.set_trial_system_attr(trial._trial_id, _CLAIM, [])
            return {n: self.sample_independent(study, trial, n, d) for n, d in search_space.items()}
        params, *rest = claims
        choice = state.optimizer.choice
        if choice is not None:
            study._storage.set_trial_system_attr(
                trial._trial_id, AUTO_ATTR, {"method": choice.method, "rule": choice.rule}
            )
        for queued in rest:
            study.enqueue_trial(queued, user_attrs={_BATCH: trial.number}, skip_if_exists=True)
        return params

    def sample_independent(
        self,
        study: Study,
        trial: FrozenTrial,
        param_name: str,
        param_distribution: BaseDistribution,
    ) -> Any:
        self._check_objectives(study)
        seed = int(np.random.SeedSequence([self._seed, trial.number]).generate_state(1)[0])
        independent = self._independent or RandomSampler(seed=seed)
        return independent.sample_independent(study, trial, param_name, param_distribution)

    # -- state ---------------------------------------------------------------------------
    def _constraint_names(self, study: Study) -> tuple[str, ...]:
        """The constraints the method models: every name a finished trial carries, in
        order of appearance (none if the method ignores them)."""
        if not self._handles(len(study.directions), 1):
            return ()
        names: dict[str, None] = {}
        for t in study.get_trials(deepcopy=False):
            if t.state.is_finished():
                names.update(dict.fromkeys(_constraint_names(t)))
        return tuple(names)

    def _state(
        self,
        study: Study,
        trial: FrozenTrial,
        search_space: dict[str, BaseDistribution],
        conditions: dict[str, dict[str, list[Any]]],
        constraints: tuple[str, ...] = (),
    ) -> _State:
        """The optimizer of the space ``search_space`` with ``conditions`` (read off the
        completed trials), built when first needed."""
        key = (study._study_id, repr((sorted(search_space.items()), conditions)), constraints)
        if key not in self._states:
            space = Space({name: param_of(d) for name, d in search_space.items()}, conditions)
            objective = _objective(study, constraints)
            options = dict(self.options)
            if self.method == AUTO:
                options.setdefault("workers", 1 + _running_elsewhere(study, trial))
            opt = Optimizer(space, self.method, seed=self._seed, batch_size=self.batch_size,
                            objective=objective, **options)  # fmt: skip
            self._states[key] = _State(opt, constraints=constraints)
        return self._states[key]

    def _sync(self, study: Study, state: _State, search_space: dict[str, BaseDistribution]) -> None:
        """Tell the optimizer every finished trial of the search space it has not seen."""
        space = state.optimizer.space
        assert isinstance(space, Space)
        configs: list[dict[str, Any]] = []
        values: list[Any] = []
        pending = []
        trials = study.get_trials(deepcopy=False)
        self._warn_constraints(study, trials)
        for t in trials:
            if t.number in state.told:
                continue
            if not t.state.is_finished():
                held = _held(t)
                if all(n in held for n in search_space if n not in space.conditions.parent):
                    pending.append(
                        {
                            n: from_optuna(search_space[n], held[n])
                            for n in search_space
                            if n in held
                        }
                    )
                continue
            if not all(
                t.distributions[n] == search_space[n] for n in search_space if n in t.params
            ):
                continue
            config = {
                n: from_optuna(search_space[n], t.params[n]) for n in search_space if n in t.params
            }
            if sorted(config) != sorted(space.active(config)):
                continue  # not a configuration of the modelled space (its parameters differ)
            state.told.add(t.number)
            configs.append(config)
            values.append(_outputs(t, len(study.directions), state.constraints))
        if configs and state.constraints:
            values = _finite_constraints(values, trials, len(study.directions), state.constraints)
        if configs:
            state.optimizer.tell(configs, values)
        for config in pending:
            with contextlib.suppress(ValueError, TypeError):  # held values outside the space
                state.optimizer.add_pending([config])


def _conditions(
    done: list[FrozenTrial], search_space: dict[str, BaseDistribution]
) -> tuple[list[str], dict[str, dict[str, list[Any]]]]:
    """The parameters of ``search_space`` (the union of the completed trials' ones) that
    the method models, and their conditions (:mod:`isoline.integrations.union`)."""
    configs = [
        {n: from_optuna(d, t.params[n]) for n, d in search_space.items() if n in t.params}
        for t in done
    ]
    return infer_conditions({n: param_of(d) for n, d in search_space.items()}, configs)


def _claimed_elsewhere(
    study: Study,
    trial: FrozenTrial,
    claims: list[dict[str, Any]],
    unsettled: dict[str, tuple[str, list[Any]]] | None = None,
) -> list[int]:
    """Record ``claims`` (the configurations of one joint batch: the trial's own and those
    it will queue) as ``trial``'s claim, then return the indices of those another trial
    holds already or another unfinished trial claimed too, or an earlier claim of the
    batch repeats. Each worker writes its claim before it reads the others', so of two
    workers that propose alike at the same moment at least one sees the other's claim and
    proposes again; the claim covers the queued configurations until their waiting trials
    exist. Configurations are compared without the ``unsettled`` children
    (:func:`~isoline.integrations.union.settled`): two that differ only in a parameter the
    objective may not ask would be one evaluation twice."""
    study._storage.set_trial_system_attr(trial._trial_id, _CLAIM, claims)
    keys = [settled(c, unsettled or {}) for c in claims]
    taken = {i for i, k in enumerate(keys) if k in keys[:i]}
    for t in study.get_trials(deepcopy=False):
        if t.number == trial.number:
            continue
        others = [_held(t)]
        if not t.state.is_finished():
            others += t.system_attrs.get(_CLAIM, [])
        held = [settled(o, unsettled or {}) for o in others]
        taken.update(i for i, k in enumerate(keys) if k in held)
    return sorted(taken)


def _running_elsewhere(study: Study, trial: FrozenTrial) -> int:
    """The number of the study's trials other than ``trial`` being evaluated now."""
    running = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
    return sum(t.number != trial.number for t in running)


def _constraint_names(t: FrozenTrial) -> list[str]:
    """The names of the constraint values a trial carries (positions for a tuple of a
    ``constraints_func``), in the order Optuna stored them."""
    names = [f"{i}" for i, _ in enumerate(t.system_attrs.get(_CONSTRAINTS) or ())]
    prefix = f"{_CONSTRAINTS}:"
    names += [k[len(prefix) :] for k in t.system_attrs if k.startswith(prefix)]
    return names


def _held(t: FrozenTrial) -> dict[str, Any]:
    """A trial's parameters: suggested ones, and for a waiting (queued) trial its fixed ones."""
    return {**t.system_attrs.get(_FIXED, {}), **t.params}


def _objective(study: Study, constraints: tuple[str, ...]) -> Objective:
    """The specification of a study whose constraints (Optuna's names) are modelled."""
    directions = ["maximize" if d == StudyDirection.MAXIMIZE else "minimize"
                  for d in study.directions]  # fmt: skip
    if len(directions) == 1 and not constraints:
        return Objective(directions)
    names = ["value"] if len(directions) == 1 else [f"value_{i}" for i in range(len(directions))]
    return Objective(directions, objectives=names,
                     constraints=[f"{_CONSTRAINTS}:{c}" for c in constraints])  # fmt: skip


def _constraint_values(t: FrozenTrial) -> dict[str, float]:
    """A trial's constraint values by name, read as :func:`_constraint_names` names them."""
    out = {f"{i}": c for i, c in enumerate(t.system_attrs.get(_CONSTRAINTS) or ())}
    prefix = f"{_CONSTRAINTS}:"
    out.update({k[len(prefix) :]: v for k, v in t.system_attrs.items() if k.startswith(prefix)})
    return out


def _finite_constraints(rows: list[Any], trials: list[FrozenTrial], k: int,
                        constraints: tuple[str, ...]) -> list[Any]:  # fmt: skip
    """``rows`` with each infinite constraint value (Optuna's ``-inf`` is satisfied,
    ``+inf`` violated; a method reads it as a failure) moved to the finite values of that
    constraint in the study, or 0, extended by their spread (at least 1) on its side."""
    for j, name in enumerate(constraints, start=k):
        seen = [float(_constraint_values(t).get(name, math.nan)) for t in trials]
        finite = [v for v in seen if math.isfinite(v)] + [0.0]
        margin = max(max(finite) - min(finite), 1.0)
        for row in rows:
            if math.isinf(row[j]):
                row[j] = min(finite) - margin if row[j] < 0 else max(finite) + margin
    return rows


def _outputs(t: FrozenTrial, n_objectives: int, constraints: tuple[str, ...]) -> Any:
    """What the optimizer is told for a finished trial, in the study's directions: its
    value (``None`` marks a failure) for one objective without constraints, else its row
    of objectives and constraints (NaN marks a failed or missing output)."""
    values: list[float] | None = None
    if t.state == TrialState.COMPLETE and t.values is not None:
        values = [float(v) for v in t.values]
    elif t.state == TrialState.PRUNED and t.intermediate_values and n_objectives == 1:
        values = [float(t.intermediate_values[max(t.intermediate_values)])]
    if n_objectives == 1 and not constraints:
        return values[0] if values is not None and math.isfinite(values[0]) else None
    row = values if values is not None else [math.nan] * n_objectives
    given = _constraint_values(t)
    return row + [float(given.get(c, math.nan)) for c in constraints]
