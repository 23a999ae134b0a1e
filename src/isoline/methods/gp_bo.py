"""Classic GP Bayesian optimization: expected improvement and UCB (Thompson sampling, on
the same GP and options, is :mod:`isoline.methods.gp_ts`).

All three refit a GP (:func:`isoline.models.gp.fit_gp`) to every observation at each
``propose`` and maximize an acquisition function with :func:`isoline.acquisition.maximize`.
The GP models ``y``; BoTorch's acquisitions, made to maximize, see ``-f`` through
:func:`isoline.acquisition.negated` (or ``maximize=False``), so maximizing them minimizes
``f``. Failed evaluations are imputed with the worst value seen (:meth:`Method.data`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, TypeVar

import numpy as np
import torch
from botorch.acquisition import (
    AcquisitionFunction,
    qLogExpectedImprovement,
    qUpperConfidenceBound,
)
from botorch.acquisition.logei import TAU_MAX, TAU_RELU
from botorch.sampling import SobolQMCNormalSampler

from isoline.acquisition import (
    RelativeFloorLogEI,
    RelativeFloorUCB,
    handled_fallbacks,
    maximize,
    negated,
    outside_range_unit,
)
from isoline.encoding import DiscreteLayout
from isoline.methods.base import Method
from isoline.methods.believer import kriging_believer
from isoline.methods.gp_outputs import (
    MO_ACQUISITIONS,
    constrained_log_ei,
    constrained_log_nei,
    hypervolume_ei,
    hypervolume_log_ei,
    hypervolume_log_nei,
    mo_acquisition,
    model_outputs,
    parego_log_nei,
    parego_scalarized,
    settled_mo_acquisition,
)
from isoline.methods.registry import register
from isoline.methods.ucb import UCBWeight
from isoline.models.gp import GP, KERNELS, PRIORS, GPFitError, fit_gp
from isoline.models.outputs import OutputGPs, fit_gps
from isoline.models.rounding import space_rounding
from isoline.params import Space
from isoline.validation import (
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_positive,
)

__all__ = ["GPEI", "GPUCB", "PAPER_GP_OPTIONS"]

#: values of the ``discrete_search`` option
DISCRETE_SEARCHES = ("held", "local")
#: gp-ei's forms of log expected improvement for one point (see :class:`GPEI`)
EI_FORMS = ("qlogei", "logei")
#: gp-ei's treatments of inactive parameters on a conditional space (see :class:`GPEI`)
INACTIVE = ("impute", "arc")
#: a model :meth:`_GPMethod._fit_with` fits: one GP or the GPs of several outputs
M = TypeVar("M", GP, OutputGPs)
#: the NeuralBO paper's GP for its baselines (squared-exponential kernel, BoTorch's
#: priors): gp-ucb's and gp-ts's defaults, and gp-ei's before Matern-5/2 with Optuna's priors
PAPER_GP_OPTIONS: Mapping[str, str] = MappingProxyType({"kernel": "rbf", "priors": "botorch"})


class _GPMethod(Method):
    """Shared options and model fitting of the GP methods.

    Options:
        kernel: ``"rbf"`` or ``"matern52"`` (ARD), see :func:`isoline.models.gp.fit_gp`.
            gp-ucb and gp-ts default to RBF, the NeuralBO paper's kernel for these
            baselines (§5: "the common Squared Exponential Kernel"); gp-ei defaults to
            Matern-5/2 with ``priors="optuna"``, chosen on benchmark evidence.
        num_restarts: L-BFGS-B starts of the acquisition optimizer.
        raw_samples: Sobol points scored to pick those starts.
        warm_start: start each hyperparameter fit from the previous proposal's fitted
            hyperparameters (as Optuna's GPSampler does) instead of the prior modes, which
            reaches the same marginal likelihood in fewer L-BFGS iterations. The state is
            a dict of arrays, so the method stays picklable.
        fit_ftol: relative tolerance of the hyperparameter fit's L-BFGS-B
            (:func:`isoline.models.gp.fit_gp`); ``None`` = scipy's default (about 2e-9).
        refit_growth: the hyperparameters are fitted again once the number of observations
            has grown by this fraction since the last fit (``0`` = at every proposal); in
            between the GP conditions on all data with the last fitted hyperparameters.
        acq_maxiter: L-BFGS-B iterations per restart of the acquisition search; ``None`` =
            BoTorch's default (2000).
        mc_samples: quasi-Monte-Carlo samples of the MC acquisitions (qLogEI, qUCB);
            ``None`` = BoTorch's default (512).
        discrete_search: how the acquisition search treats a typed space's integer and
            categorical columns: ``"held"`` (default) keeps them at the values of each
            restart's starting point and moves only the real columns; ``"local"``
            alternates discrete local steps (neighbouring integers, other choices) with
            the continuous search (:func:`isoline.mixed_search.maximize_mixed`), as
            Optuna's GPSampler does. Without a typed space both are the same; on a space
            with linear constraints the search is ``"held"`` (SLSQP under the constraints).
        start_at_best: start one more restart of the acquisition search (one point at a
            time) at the best observed point, as Optuna's GPSampler does, so the search
            always refines the incumbent's neighbourhood too.
        priors: the GP's hyperparameter priors, BoTorch's ``"botorch"`` (gp-ucb's and
            gp-ts's default) or Optuna GPSampler's ``"optuna"`` (gp-ei's default), see
            :func:`isoline.models.gp.fit_gp`.
        log_params: fit the lengthscales and noise in log space
            (:func:`isoline.models.gp.fit_gp`): the same priors and optimum, reached in
            fewer L-BFGS-B iterations; not the default, since whole runs ended slightly
            worse in the overhead benchmark. Only with ``priors="botorch"``.

    The defaults of these four are the thorough ones. ``preset="fast"`` (gp-ei) sets
    ``fit_ftol=1e-6, refit_growth=0.05, acq_maxiter=50, mc_samples=256``: on whole runs
    it costs a fraction of the suggestion CPU, at some cost in final values (the overhead
    benchmark measures both).
    """

    family = "GP BO"
    #: the space whose conditional parameters the GP's arc kernel compares (gp-ei's ``inactive``)
    _arc: Space | None = None
    #: whether the models see several objectives winsorized (gp-ei's ``winsorize``)
    winsorize = False

    def __init__(
        self,
        dim: int,
        *,
        kernel: str = "rbf",
        num_restarts: int = 10,
        raw_samples: int = 512,
        warm_start: bool = True,
        fit_ftol: float | None = None,
        refit_growth: float = 0.0,
        acq_maxiter: int | None = None,
        mc_samples: int | None = None,
        log_params: bool = False,
        discrete_search: str = "held",
        priors: str = "botorch",
        start_at_best: bool = False,
        **common: Any,
    ) -> None:
        super().__init__(dim, **common)
        self.kernel = check_choice(kernel, "kernel", KERNELS)
        self.num_restarts = check_int(num_restarts, "num_restarts", 1)
        self.raw_samples = check_int(raw_samples, "raw_samples", 1)
        self.warm_start = check_bool(warm_start, "warm_start")
        self.fit_ftol = None if fit_ftol is None else check_positive(fit_ftol, "fit_ftol")
        self.refit_growth = check_float(refit_growth, "refit_growth", 0.0)
        self.acq_maxiter = None if acq_maxiter is None else check_int(acq_maxiter, "acq_maxiter", 1)
        self.mc_samples = None if mc_samples is None else check_int(mc_samples, "mc_samples", 1)
        self.log_params = check_bool(log_params, "log_params")
        self.discrete_search = check_choice(discrete_search, "discrete_search", DISCRETE_SEARCHES)
        self.priors = check_choice(priors, "priors", PRIORS)
        self.start_at_best = check_bool(start_at_best, "start_at_best")
        if self.priors == "optuna" and self.log_params:
            raise ValueError(
                "log_params=True needs priors='botorch' (priors='optuna', gp-ei's default, "
                "fits in its own coordinates)"
            )
        self._gp_state: dict[str, np.ndarray] | None = None
        #: several outputs: the last fitted hyperparameters of their GPs
        self._outputs_state: dict[str, np.ndarray] | None = None
        self._fitted_at = 0

    def _fit(self, y: np.ndarray | None = None) -> tuple[GP, np.ndarray]:
        """GP of ``y`` (default: the objective, failures imputed) on all evaluated points;
        returns it and ``y``.

        Hyperparameters are fitted when :attr:`refit_growth` says so and never when no
        observation arrived since the last fit (only the pending points changed, e.g. a
        second ``ask`` before a ``tell``); kept ones that make the new data's covariance
        numerically singular are fitted again."""
        X, y = self.data() if y is None else (self.X, y)
        due = self._refit_due(len(y))
        gp, self._gp_state, fitted = self._fit_with(self._fit_gp, X, y, due, self._gp_state)
        if fitted:
            self._fitted_at = len(y)
        return gp, y

    def _fit_outputs(self) -> tuple[OutputGPs, np.ndarray]:
        """The GPs of the columns of :attr:`Y` (as :func:`model_outputs` gives them)
        on the evaluated points, fitted together (:func:`~isoline.models.outputs.fit_gps`)
        when :meth:`_fit` would fit one; returns them and that ``Y``."""
        X, Y = self.X, model_outputs(self.Y, self.n_objectives, self.winsorize)
        due = self._refit_due(len(X))
        gps, self._outputs_state, fitted = self._fit_with(
            self._fit_gps, X, Y, due, self._outputs_state
        )
        if fitted:
            self._fitted_at = len(X)
        return gps, Y

    def _refit_due(self, n: int) -> bool:
        return self._fitted_at == 0 or (
            n > self._fitted_at and n >= self._fitted_at * (1.0 + self.refit_growth)
        )

    def _fit_with(
        self,
        fitter: Callable[[np.ndarray, np.ndarray, bool, dict[str, np.ndarray] | None], M],
        X: np.ndarray,
        y: np.ndarray,
        due: bool,
        state: dict[str, np.ndarray] | None,
    ) -> tuple[M, dict[str, np.ndarray], bool]:
        """``fitter``'s model of ``y``, its state, and whether its hyperparameters were
        fitted: kept from ``state`` unless ``due``, or fitted again if the kept ones make
        the new data's covariance unusable."""
        if not due and state is not None:
            try:
                model = fitter(X, y, False, state)
                return model, model.state(), False
            except GPFitError:
                pass
        model = fitter(X, y, True, state if self.warm_start else None)
        return model, model.state(), True

    def _fit_gp(
        self, X: np.ndarray, y: np.ndarray, fit: bool, init: dict[str, np.ndarray] | None
    ) -> GP:
        return fit_gp(X, y, fit=fit, init=init, **self._model_options())

    def _model_options(self) -> dict[str, Any]:
        """The options :meth:`_fit_gp` and :meth:`_fit_gps` give the GP layer."""
        return {
            "kernel": self.kernel, "ftol": self.fit_ftol, "log_params": self.log_params,
            "input_transform": space_rounding(self.space), "priors": self.priors,
            "arc": self._arc,
        }  # fmt: skip

    def _fit_gps(
        self, X: np.ndarray, Y: np.ndarray, fit: bool, init: dict[str, np.ndarray] | None
    ) -> OutputGPs:
        return fit_gps(X, Y, fit=fit, init=init, **self._model_options())

    def _sampler(self) -> SobolQMCNormalSampler | None:
        """Base samples of the MC acquisitions (``None``: the acquisition's default)."""
        if self.mc_samples is None:
            return None
        return SobolQMCNormalSampler(sample_shape=torch.Size([self.mc_samples]))

    def _maximize(
        self,
        acqf: AcquisitionFunction,
        q: int,
        sequential: bool = False,
        avoid: np.ndarray | None = None,
    ) -> np.ndarray:
        """``(q, d)`` maximizer of ``acqf``, never a point of ``avoid`` (default: the
        evaluated points)."""
        X, _ = maximize(
            acqf,
            self.dim,
            q,
            num_restarts=self.num_restarts,
            raw_samples=self.raw_samples,
            sequential=sequential,
            options=None if self.acq_maxiter is None else {"maxiter": self.acq_maxiter},
            discrete=self._discrete(),
            avoid=self.X if avoid is None else avoid,
            extra_starts=self._best_start(q),
            constraints=self.input_constraints,
        )
        return X

    def _best_start(self, q: int) -> np.ndarray | None:
        """The best observed point as an extra start (``start_at_best``, ``q = 1``)."""
        if not self.start_at_best or q != 1 or isinstance(self._discrete(), DiscreteLayout):
            return None
        best = self.best
        return None if best is None else best[0][None, :]

    def _discrete(self) -> list[int] | DiscreteLayout | None:
        """What :func:`isoline.acquisition.maximize` is told of the discrete columns."""
        if self.space is None:
            return None
        if self.discrete_search == "local" and self.input_constraints is None:
            return self.space.discrete_layout()
        return self.space.discrete_columns


def fast_preset(dim: int) -> dict[str, Any]:
    """gp-ei's cheaper fit and search (see :class:`_GPMethod`); independent of ``dim``."""
    return {"fit_ftol": 1e-6, "refit_growth": 0.05, "acq_maxiter": 50, "mc_samples": 256}


@register
class GPEI(_GPMethod):
    """GP-EI: maximize the log expected improvement below the best observed value.

    Jones, Schonlau & Welch, "Efficient global optimization of expensive black-box
    functions", J. Global Optim. 1998; in the log form of Ament et al., "Unexpected
    improvements to expected improvement for Bayesian optimization", NeurIPS 2023.
    Monte-Carlo ``qLogExpectedImprovement`` for every ``q`` (joint over the batch), as in
    BoTorch's loop: for ``q = 1`` its smoothed form is also easier to maximize than the
    analytic ``LogExpectedImprovement`` on flat regions.
    Points still being evaluated (:meth:`~isoline.methods.base.Method.pending`: asked and
    not told, or evaluated by other workers) enter as ``X_pending``: the improvement is
    that of the batch joint with them, so asynchronous workers do not propose alike.

    Its GP has a Matern-5/2 kernel under the hyperparameter priors of Optuna's GPSampler
    (``kernel="matern52", priors="optuna"``); ``kernel="rbf", priors="botorch"`` give the
    NeuralBO paper's GP-EI baseline.

    With black-box constraints or several objectives each output gets such a GP and the
    acquisition is BoTorch's constrained ``qLogNoisyExpectedImprovement``,
    ``qLogNoisyExpectedHypervolumeImprovement`` or ``qLogNParEGO``
    (:mod:`isoline.methods.gp_outputs`, which states the papers and how failed outputs
    are imputed); with one objective and no constraint nothing changes.

    Options:
        mo_acquisition: with several objectives, ``"ehvi"`` (qLogNEHVI, batches chosen
            one point at a time), ``"parego"`` (qLogNParEGO, new random weights for each
            batch point), ``"parego-ei"`` (Knowles's ParEGO: one GP of the
            scalarization and the analytic log EI for one point with none pending and no
            constraints; otherwise as ``"parego"``), ``"ehvi-observed"`` (qLogEHVI over
            the observed front, cheaper, for noise-free objectives), ``"ehvi-analytic"`` (for one point with none
            pending and no constraints the analytic EHVI over the observed front, no
            Monte-Carlo samples; otherwise as ``"ehvi-observed"``) or ``"auto"``
            (:func:`isoline.methods.gp_outputs.mo_acquisition`: ParEGO beyond three
            objectives or a batch of more than four, else ``"ehvi"``).
        ei: ``"qlogei"`` (default) or ``"logei"``: one point asked with none pending takes
            BoTorch's analytic ``LogExpectedImprovement`` (Ament et al.), as Optuna's
            GPSampler does, or under constraints its analytic constrained form
            (:func:`~isoline.methods.gp_outputs.constrained_log_ei`): no Monte-Carlo
            samples. Batches, pending points and several objectives keep the MC forms.
        believer: with ``ei="logei"`` and one objective without constraints, batches and
            pending points by the Kriging believer (Ginsbourger, Le Riche and Carraro,
            "Kriging is well-suited to parallelize optimization", in Computational
            Intelligence in Expensive Optimization Problems, Springer 2010): each pending
            or already chosen point joins the GP at its posterior mean, hyperparameters
            unchanged, so the variance there shrinks, and the analytic log EI picks the
            next point, one at a time; Optuna's GPSampler treats running trials so.
            ``False`` (default): the MC forms above.
        winsorize: with several objectives, the models see each objective clipped at its
            upper Tukey fence (:func:`~isoline.methods.gp_outputs.winsorized`, as Ax's
            default transform); the stored and reported values are unchanged.
        inactive: on a space with conditions, how the GP treats inactive parameters:
            ``"impute"`` (default): the constant of their encoding (:mod:`isoline.conditions`);
            ``"arc"``: the arc kernel of Swersky et al. (:mod:`isoline.models.arc`), which
            compares only active parameters. Refused on a space without conditions.
    """

    name = "gp-ei"
    summary = "GP, log expected improvement"
    paper = "Jones et al., J. Glob. Optim. 1998; Ament et al., NeurIPS 2023 (LogEI)"
    presets = {"fast": fast_preset}
    max_objectives = 16
    supports_constraints = True
    supports_input_constraints = True

    def __init__(
        self,
        dim: int,
        *,
        kernel: str = "matern52",
        priors: str = "optuna",
        mo_acquisition: str = "auto",
        ei: str = "qlogei",
        believer: bool = False,
        inactive: str = "impute",
        winsorize: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(dim, kernel=kernel, priors=priors, **options)
        self.mo_acquisition = check_choice(mo_acquisition, "mo_acquisition", MO_ACQUISITIONS)
        self.ei = check_choice(ei, "ei", EI_FORMS)
        self.believer = check_bool(believer, "believer")
        if self.believer and self.ei != "logei":
            raise ValueError("believer=True picks points by the analytic log EI: set ei='logei'")
        self.inactive = check_choice(inactive, "inactive", INACTIVE)
        self.winsorize = check_bool(winsorize, "winsorize")
        if self.inactive == "arc":
            if self.space is None or not self.space.conditions:
                raise ValueError(
                    "inactive='arc' needs a space with conditions (Space(conditions=...))"
                )
            self._arc = self.space

    @classmethod
    def settled_options(
        cls, options: dict[str, Any], n_objectives: int, batch_size: int
    ) -> dict[str, Any]:
        out = super().settled_options(options, n_objectives, batch_size)
        choice, winsorize = out.pop("mo_acquisition"), out.pop("winsorize")
        if n_objectives > 1:
            out["mo_acquisition"] = settled_mo_acquisition(choice, n_objectives, batch_size)
            out["winsorize"] = winsorize
        return out

    def propose(self, q: int) -> np.ndarray:
        pending = self.pending()
        analytic = self.ei == "logei" and q == 1 and not len(pending)
        if self.Y.shape[1] > 1:
            return self._propose_outputs(q, pending, analytic)
        with self.torch_rng():
            gp, y = self._fit()
            unit = outside_range_unit(gp.y_scale)  # LogEI's smoothing widths are absolute
            acqf: AcquisitionFunction
            if analytic:
                acqf = RelativeFloorLogEI(gp.model, best_f=float(y.min()), maximize=False)
                return self._maximize(acqf, q)
            if self.believer:
                return kriging_believer(gp, float(y.min()), q, pending, self._maximize_apart)
            acqf = qLogExpectedImprovement(
                gp.model, best_f=-float(y.min()), posterior_transform=negated(),
                tau_max=TAU_MAX * unit, tau_relu=TAU_RELU * unit, sampler=self._sampler(),
                X_pending=torch.as_tensor(pending) if len(pending) else None,
            )  # fmt: skip
            return self._maximize(acqf, q)

    def _maximize_apart(self, acqf: AcquisitionFunction, believed: np.ndarray) -> np.ndarray:
        """One point maximizing ``acqf``, none within the dedup distance of an evaluated
        point or of ``believed``."""
        return self._maximize(acqf, 1, avoid=np.vstack([self.X, believed]))

    def _propose_outputs(self, q: int, pending: np.ndarray, analytic: bool) -> np.ndarray:
        """Constraints or several objectives (:mod:`isoline.methods.gp_outputs`)."""
        k, X = self.n_objectives, self.X
        alone = q == 1 and not len(pending) and self.Y.shape[1] == k
        form = mo_acquisition(self.mo_acquisition, k, q)
        with self.torch_rng(), handled_fallbacks():
            if k > 1 and alone and form == "parego-ei":
                gp, y = self._fit(parego_scalarized(model_outputs(self.Y, k, self.winsorize), k))
                ei = RelativeFloorLogEI(gp.model, best_f=float(y.min()), maximize=False)
                return self._maximize(ei, q)
            gps, Y = self._fit_outputs()
            if k == 1 and analytic:
                return self._maximize(constrained_log_ei(gps, self.y[self.feasible()]), q)
            if k == 1:
                return self._maximize(constrained_log_nei(gps, X, pending, self._sampler()), q)
            if form == "ehvi-analytic" and alone:
                return self._maximize(hypervolume_ei(gps, Y, k), q)
            if form not in ("parego", "parego-ei"):
                acqf = (
                    hypervolume_log_nei(gps, X, Y, k, pending, self._sampler())
                    if form == "ehvi"
                    else hypervolume_log_ei(gps, Y, k, pending, self._sampler())
                )
                return self._maximize(acqf, q, sequential=q > 1)
            batch: list[np.ndarray] = []  # ParEGO: new weights for every batch point
            for _ in range(q):
                done = np.vstack([pending, *batch]) if batch else pending
                acqf = parego_log_nei(gps, X, k, done, self._sampler())
                batch.append(self._maximize(acqf, 1))
            return np.vstack(batch)


@register
class GPUCB(UCBWeight, _GPMethod):
    """GP-UCB (Srinivas et al. 2010) for minimization: minimize ``mu(x) - sqrt(beta) sigma(x)``.

    ``q = 1`` uses analytic UCB (:class:`~isoline.acquisition.RelativeFloorUCB`); ``q > 1`` uses BoTorch's MC
    ``qUpperConfidenceBound`` (Wilson et al. 2017), optimized jointly.

    ``beta_t`` (:class:`~isoline.methods.ucb.UCBWeight`) takes ``t`` = evaluations so far + 1.

    One objective without constraints only (it refuses others): an optimistic bound has
    no standard combination with a probability of feasibility or with several objectives
    whose guarantees (Srinivas et al.'s regret bound) still hold, and gp-ei's constrained
    noisy log EI and hypervolume improvement are the principled choices BoTorch offers.
    """

    name = "gp-ucb"
    summary = "GP confidence bound"
    paper = "Srinivas et al., ICML 2010 (GP-UCB)"
    supports_input_constraints = True

    def current_beta(self) -> float:
        """The ``beta`` used for the next proposal."""
        return self.beta_at(len(self.y) + 1)

    def propose(self, q: int) -> np.ndarray:
        beta = self.current_beta()
        with self.torch_rng():
            gp, _ = self._fit()
            acqf: AcquisitionFunction
            if q == 1:
                acqf = RelativeFloorUCB(gp.model, beta=beta, maximize=False)
            else:
                acqf = qUpperConfidenceBound(
                    gp.model, beta=beta, posterior_transform=negated(), sampler=self._sampler()
                )
            return self._maximize(acqf, q)
