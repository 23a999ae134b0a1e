"""Models and acquisitions of several outputs for gp-ei: black-box constraints and
several objectives, through BoTorch.

Each output (objectives minimized, then constraints, feasible when ``<= 0``; the columns
of :attr:`isoline.methods.base.Method.Y`) gets its own GP, with the kernel and priors of
one objective, fitted together as one batched BoTorch model
(:func:`isoline.models.outputs.fit_gps`), which every acquisition below reads. The
acquisitions:

* constraints, one objective: constrained noisy log expected improvement,
  ``qLogNoisyExpectedImprovement`` with BoTorch's ``constraints=`` callables, which
  weight the improvement by a smoothed probability of feasibility per posterior sample
  (Gardner et al., "Bayesian optimization with inequality constraints", ICML 2014;
  Gelbart, Snoek & Adams, "Bayesian optimization with unknown constraints", UAI 2014;
  log form of Ament et al., "Unexpected improvements to expected improvement for
  Bayesian optimization", NeurIPS 2023). Before any feasible point the incumbent of
  every sample is infeasible and the criterion steers toward feasibility.
* constraints, one objective, one point asked with none pending (gp-ei's
  ``ei="logei"``): the analytic form of the same criterion,
  ``LogConstrainedExpectedImprovement`` on the joined model, the log EI of the
  objective below the best feasible value plus the log probability that every
  independent constraint output is ``<= 0`` (Gardner et al.; Gelbart et al.). It reads
  the posterior at the candidate only, where the noisy form integrates over joint
  samples with every evaluated point, so each call costs far less. Before any feasible
  point there is no incumbent to improve on, and the criterion is BoTorch's
  ``LogProbabilityOfFeasibility``: the point most likely feasible is asked first, the
  rule of both papers for that case.
* several objectives: ``qLogNoisyExpectedHypervolumeImprovement`` (Daulton, Balandat &
  Bakshy, "Differentiable expected hypervolume improvement for parallel multi-objective
  Bayesian optimization", NeurIPS 2020; "Parallel Bayesian optimization of multiple
  noisy objectives with expected hypervolume improvement", NeurIPS 2021; log form of
  Ament et al. 2023), with constraints as above. Its box decompositions grow
  exponentially with the number of objectives, and the batch's inclusion-exclusion
  with ``q``, so with more than :data:`EHVI_MAX_OBJECTIVES` objectives or a batch
  larger than :data:`EHVI_MAX_BATCH` the ``"auto"`` choice is ``qLogNParEGO``: noisy
  log EI of a random augmented Chebyshev scalarization, one weight vector per batch
  point (Knowles, "ParEGO: a hybrid algorithm with on-line landscape approximation for
  expensive multiobjective optimization problems", IEEE TEVC 2006).
* several objectives, no constraints, one point asked with none pending,
  ``mo_acquisition="parego-ei"``: ParEGO as Knowles published it. The objectives are
  scaled to ``[0, 1]`` over the observed values and scalarized by the augmented
  Chebyshev function under new random weights (BoTorch's
  ``get_chebyshev_scalarization``); one GP of that scalar, fitted as gp-ei fits one
  objective, and the analytic log EI below its best value pick the point. One GP and no
  Monte-Carlo samples per step where ``qLogNParEGO`` fits a GP per objective and
  integrates the scalarization over joint samples. Batches, pending points and
  constraints take ``"parego"``.
* several objectives, ``mo_acquisition="ehvi-observed"``: ``qLogExpectedHypervolumeImprovement``
  over the box decomposition of the front of the observed (feasible) values (Daulton et
  al. 2020, log form of Ament et al. 2023), as Optuna's GPSampler does. It samples the
  posterior at the candidates only, where the noisy form also samples the front at every
  evaluated point, so each call costs less; it takes the observed values as exact, so
  it suits noise-free objectives.
* several objectives, no constraints, one point asked with none pending,
  ``mo_acquisition="ehvi-analytic"``: BoTorch's analytic ``ExpectedHypervolumeImprovement``
  over the same observed front, the closed form of the expected improvement of the
  dominated hypervolume for independent Gaussian outputs, summed over the cells of the
  box decomposition (Emmerich, Giannakoglou & Naujoks, "Single- and multiobjective
  evolutionary optimization assisted by Gaussian random field metamodels", IEEE TEVC
  2006; Yang, Emmerich, Deutz & Bäck, "Efficient computation of expected hypervolume
  improvement using box decomposition algorithms", J. Glob. Optim. 2019). No
  Monte-Carlo samples: each call reads the posterior mean and variance at the candidate
  only. It is not in log space: far from the front the improvement underflows and its
  gradient vanishes (the reason for Ament et al.'s log forms), so the search relies on
  its starts, the raw samples of highest value, lying near the front. Batches, pending
  points and constraints take the ``"ehvi-observed"`` form.

Failed evaluations: an objective's missing value is the worst finite value of its
column (as for one objective); a constraint's missing value counts as infeasible: the
worst finite value of its column if that is infeasible, raised by the column's spread
(at least 1) above zero otherwise, so the constraint model learns that failures are
not feasible.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
import torch
from botorch.acquisition import AcquisitionFunction, qLogNoisyExpectedImprovement
from botorch.acquisition.analytic import (
    LogConstrainedExpectedImprovement,
    LogProbabilityOfFeasibility,
)
from botorch.acquisition.logei import TAU_MAX, TAU_RELU
from botorch.acquisition.multi_objective.analytic import ExpectedHypervolumeImprovement
from botorch.acquisition.multi_objective.logei import (
    qLogExpectedHypervolumeImprovement,
    qLogNoisyExpectedHypervolumeImprovement,
)
from botorch.acquisition.multi_objective.objective import WeightedMCMultiOutputObjective
from botorch.acquisition.multi_objective.parego import qLogNParEGO
from botorch.acquisition.objective import GenericMCObjective, PosteriorTransform
from botorch.posteriors import GPyTorchPosterior
from botorch.sampling import SobolQMCNormalSampler
from botorch.utils.multi_objective.box_decompositions.non_dominated import (
    NondominatedPartitioning,
)
from botorch.utils.multi_objective.hypervolume import infer_reference_point
from botorch.utils.multi_objective.pareto import is_non_dominated
from botorch.utils.multi_objective.scalarization import get_chebyshev_scalarization
from botorch.utils.sampling import sample_simplex
from gpytorch.distributions import MultitaskMultivariateNormal

from isoline.acquisition import outside_range_unit
from isoline.models.outputs import OutputGPs

__all__ = [
    "EHVI_MAX_BATCH",
    "EHVI_MAX_OBJECTIVES",
    "MO_ACQUISITIONS",
    "constrained_log_ei",
    "constrained_log_nei",
    "hypervolume_ei",
    "hypervolume_log_ei",
    "hypervolume_log_nei",
    "impute_outputs",
    "keep_pytorch_ehvi",
    "mo_acquisition",
    "model_outputs",
    "settled_mo_acquisition",
    "parego_log_nei",
    "parego_scalarized",
    "reference_point",
    "winsorized",
]

DTYPE = torch.float64
#: values of gp-ei's ``mo_acquisition`` option
MO_ACQUISITIONS = ("auto", "ehvi", "ehvi-observed", "ehvi-analytic", "parego", "parego-ei")
#: most objectives for which ``mo_acquisition="auto"`` takes qLogNEHVI
EHVI_MAX_OBJECTIVES = 3
#: largest batch for which ``mo_acquisition="auto"`` takes qLogNEHVI
EHVI_MAX_BATCH = 4
#: BoTorch's default temperature of the smoothed feasibility indicator
_ETA = 1e-3


def impute_outputs(Y: np.ndarray, n_objectives: int) -> np.ndarray:
    """``Y (n, m)`` with every non-finite entry filled (see the module docstring):
    objective columns with their worst finite value, constraint columns with an
    infeasible one. A column without a finite value gets 0 (objective) or 1."""
    Y = np.array(Y, dtype=float)
    for j in range(Y.shape[1]):
        col = Y[:, j]
        ok = np.isfinite(col)
        if ok.all():
            continue
        finite = col[ok]
        if j < n_objectives:
            fill = float(finite.max()) if finite.size else 0.0
        else:
            worst = float(finite.max()) if finite.size else 0.0
            spread = float(np.ptp(finite)) if finite.size > 1 else 0.0
            fill = worst if worst > 0.0 else max(spread, 1.0)
        Y[~ok, j] = fill
    return Y


def winsorized(Y: np.ndarray, n_objectives: int) -> np.ndarray:
    """``Y (n, m)`` with each objective column (minimized) clipped at its upper Tukey fence,
    ``q3 + 1.5 (q3 - q1)`` of its values (Tukey, "Exploratory data analysis",
    Addison-Wesley 1977), as Ax's default ``Winsorize`` outcome transform does for an
    objective without a threshold: values far worse than the bulk stop dominating the
    models' scale. Constraint columns are returned unchanged. ``Y`` must be finite
    (:func:`impute_outputs` first)."""
    Y = np.array(Y, dtype=float)
    for j in range(n_objectives):
        q1 = np.percentile(Y[:, j], 25, method="lower")
        q3 = np.percentile(Y[:, j], 75, method="higher")
        Y[:, j] = np.minimum(Y[:, j], q3 + 1.5 * (q3 - q1))
    return Y


def model_outputs(Y: np.ndarray, n_objectives: int, winsorize: bool = False) -> np.ndarray:
    """``Y (n, m)`` as the models see it: :func:`impute_outputs`, then, with several
    objectives and ``winsorize``, :func:`winsorized`."""
    Y = impute_outputs(Y, n_objectives)
    return winsorized(Y, n_objectives) if winsorize and n_objectives > 1 else Y


def _constraints(n_objectives: int, n_constraints: int) -> list[Callable[..., torch.Tensor]]:
    """BoTorch constraint callables (feasible when ``< 0``) reading the constraint
    columns of the posterior samples, which are ``<= 0`` when feasible in isoline."""
    return [(lambda Z, j=n_objectives + i: Z[..., j]) for i in range(n_constraints)]


def _eta(gps: OutputGPs, n_objectives: int) -> torch.Tensor | float:
    """The feasibility indicator's temperature per constraint, in each one's units."""
    units = [outside_range_unit(float(s)) for s in gps.y_scales[n_objectives:]]
    if all(u == 1.0 for u in units):
        return _ETA
    return torch.tensor([_ETA * u for u in units], dtype=DTYPE)


def _negated_first(Z: torch.Tensor, X: torch.Tensor | None = None) -> torch.Tensor:
    """The first output of posterior samples ``Z (..., m)``, negated (maximized)."""
    return -Z[..., 0]


def _pending(pending: np.ndarray) -> torch.Tensor | None:
    return torch.as_tensor(pending, dtype=DTYPE) if len(pending) else None


def constrained_log_nei(
    gps: OutputGPs,
    X: np.ndarray,
    pending: np.ndarray,
    sampler: SobolQMCNormalSampler | None,
) -> AcquisitionFunction:
    """Constrained ``qLogNoisyExpectedImprovement`` of one minimized objective (output 0)
    under the constraints of outputs ``1..``; ``X (n, d)`` the evaluated points."""
    unit = outside_range_unit(float(gps.y_scales[0]))  # LogEI's smoothing widths are absolute
    return qLogNoisyExpectedImprovement(
        gps.model,
        X_baseline=torch.as_tensor(X, dtype=DTYPE),
        sampler=sampler,
        objective=GenericMCObjective(_negated_first),
        constraints=_constraints(1, gps.num_outputs - 1),
        eta=_eta(gps, 1),
        X_pending=_pending(pending),
        tau_max=TAU_MAX * unit,
        tau_relu=TAU_RELU * unit,
    )


class _OutputFloors:
    """Mixin for BoTorch's analytic acquisitions of several outputs: their variance
    floor (1e-12 in the units of each output) scaled per output by the square of
    :func:`~isoline.acquisition.outside_range_unit` of its ``y`` scale (buffer
    ``floors``), as :class:`~isoline.acquisition.RelativeFloorLogEI` scales it for one
    output; identical to BoTorch's for outputs of ordinary scale."""

    floors: torch.Tensor

    def _mean_and_sigma(
        self, X: torch.Tensor, compute_sigma: bool = True, min_var: float = 1e-12
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        floor = cast(float, min_var * self.floors)  # one per output; clamp_min broadcasts
        return super()._mean_and_sigma(X, compute_sigma=compute_sigma, min_var=floor)  # type: ignore[misc]


class _LogCEI(_OutputFloors, LogConstrainedExpectedImprovement):
    """BoTorch's ``LogConstrainedExpectedImprovement`` with per-output variance floors."""


class _LogPoF(_OutputFloors, LogProbabilityOfFeasibility):
    """BoTorch's ``LogProbabilityOfFeasibility`` with per-output variance floors."""


def constrained_log_ei(gps: OutputGPs, y_feasible: np.ndarray) -> AcquisitionFunction:
    """Analytic constrained log EI of one minimized objective (output 0) under the
    constraints of outputs ``1..`` (``<= 0`` feasible), below the best of ``y_feasible``,
    the objective's values at the feasible evaluations; with none, the log probability
    of feasibility (see the module docstring). For one point with none pending."""
    model = gps.model
    bounds: dict[int, tuple[float | None, float | None]] = {
        j: (None, 0.0) for j in range(1, gps.num_outputs)
    }
    acqf: _LogCEI | _LogPoF
    if len(y_feasible):
        best = torch.tensor(float(np.min(y_feasible)), dtype=DTYPE)  # not torch's float32
        acqf = _LogCEI(model, best, 0, bounds, maximize=False)
    else:
        acqf = _LogPoF(model, bounds)
    units = [outside_range_unit(float(s)) ** 2 for s in gps.y_scales]
    acqf.register_buffer("floors", torch.tensor(units, dtype=DTYPE))
    return acqf


def objective_units(gps: OutputGPs, n_objectives: int) -> np.ndarray:
    """``(k,)`` unit of each objective for the log hypervolume and ParEGO criteria:
    :func:`~isoline.acquisition.outside_range_unit` of its ``y`` scale. Their smoothing
    widths (BoTorch's ``tau_relu``, ``tau_max``) are absolute, made for values of order
    one; on objectives of scale 1e8 or more the smoothed maxima overflow and the
    criterion is NaN everywhere. Dividing by a power of two leaves the hypervolume's
    ordering of candidates as it was and changes no value of ordinary scale."""
    return np.array([outside_range_unit(float(s)) for s in gps.y_scales[:n_objectives]])


def _negated_objectives(units: np.ndarray) -> WeightedMCMultiOutputObjective:
    """The minimized objective columns in ``units`` (:func:`objective_units`), negated
    for BoTorch's maximizing acquisitions."""
    return WeightedMCMultiOutputObjective(
        weights=-1.0 / torch.as_tensor(units, dtype=DTYPE), outcomes=list(range(len(units)))
    )


def _multi_objective_args(
    gps: OutputGPs,
    X: np.ndarray,
    units: np.ndarray,
    pending: np.ndarray,
    sampler: SobolQMCNormalSampler | None,
) -> dict[str, Any]:
    """The arguments qLogNEHVI and qLogNParEGO share: the evaluated ``X (n, d)`` as the
    baseline (pruned), the negated objectives in ``units`` (:func:`objective_units`, one
    per objective), the constraints after them, pending points."""
    k = len(units)
    return {
        "X_baseline": torch.as_tensor(X, dtype=DTYPE),
        "sampler": sampler,
        "objective": _negated_objectives(units),
        "constraints": _constraints(k, gps.num_outputs - k) or None,
        "eta": _eta(gps, k),
        "X_pending": _pending(pending),
        "prune_baseline": True,
    }


def reference_point(F: np.ndarray, feasible: np.ndarray | None = None) -> np.ndarray:
    """Reference point of minimized objectives ``F (n, k)``: the nadir of the
    non-dominated rows (the feasible ones, when any is) moved by a tenth of their range
    beyond it, BoTorch's ``infer_reference_point`` (Ishibuchi et al. 2011's factor)."""
    F = np.asarray(F, dtype=float)
    rows = F if feasible is None or not np.any(feasible) else F[np.asarray(feasible, bool)]
    G = -torch.as_tensor(rows, dtype=DTYPE)  # maximized
    front = G[is_non_dominated(G)]
    return -infer_reference_point(front).numpy()


def keep_pytorch_ehvi() -> None:
    """Keep BoTorch's log hypervolume improvement on its PyTorch path.

    BoTorch (0.18) compiles a fused C++ kernel for it, with ``-march=native``, the first
    time one is made in a process where a C++ compiler is found. The compilation stalls the
    first proposal for a minute or more, and the kernel's values differ from the PyTorch
    path's in the last digits, so one seed would give different trajectories on machines
    with and without a compiler, or with other CPUs. isoline marks the kernel as tried
    before BoTorch would compile it; a kernel some other code in the process already
    loaded is left in place."""
    from botorch.acquisition.multi_objective import logei

    logei._load_attempted = True


def _feasible_and_reference(
    Y: np.ndarray, n_objectives: int, units: np.ndarray | None = None
) -> tuple[np.ndarray, torch.Tensor]:
    """The feasible rows of the imputed values ``Y (n, m)`` and the reference point of
    their objectives (:func:`reference_point`) in ``units`` (default 1), negated for
    BoTorch's maximization."""
    feasible = np.all(Y[:, n_objectives:] <= 0.0, axis=1)
    ref = reference_point(Y[:, :n_objectives], feasible)
    scale = np.ones(n_objectives) if units is None else units
    return feasible, -torch.as_tensor(ref / scale, dtype=DTYPE)


def hypervolume_log_nei(
    gps: OutputGPs,
    X: np.ndarray,
    Y: np.ndarray,
    n_objectives: int,
    pending: np.ndarray,
    sampler: SobolQMCNormalSampler | None,
) -> AcquisitionFunction:
    """``qLogNoisyExpectedHypervolumeImprovement`` of the ``n_objectives`` minimized
    outputs under the constraint outputs after them; ``Y (n, m)`` imputed values at the
    evaluated ``X (n, d)`` set the reference point (:func:`reference_point`)."""
    units = objective_units(gps, n_objectives)
    _, ref = _feasible_and_reference(Y, n_objectives, units)
    keep_pytorch_ehvi()
    return qLogNoisyExpectedHypervolumeImprovement(
        gps.model, ref_point=ref.tolist(), **_multi_objective_args(gps, X, units, pending, sampler)
    )


def hypervolume_log_ei(
    gps: OutputGPs,
    Y: np.ndarray,
    n_objectives: int,
    pending: np.ndarray,
    sampler: SobolQMCNormalSampler | None,
) -> AcquisitionFunction:
    """``qLogExpectedHypervolumeImprovement`` of the ``n_objectives`` minimized outputs
    under the constraint outputs after them, over the hypervolume dominated by the
    feasible rows of the imputed values ``Y (n, m)`` (none feasible: the whole region
    beyond the reference point, :func:`reference_point`, counts as improvement)."""
    k, units = n_objectives, objective_units(gps, n_objectives)
    feasible, ref = _feasible_and_reference(Y, k, units)
    front = -torch.as_tensor(Y[feasible, :k] / units, dtype=DTYPE).reshape(-1, k)  # maximized
    keep_pytorch_ehvi()
    return qLogExpectedHypervolumeImprovement(
        gps.model,
        ref_point=ref.tolist(),
        partitioning=NondominatedPartitioning(ref_point=ref, Y=front),
        sampler=sampler,
        objective=_negated_objectives(units),
        constraints=_constraints(k, gps.num_outputs - k) or None,
        eta=_eta(gps, k),
        X_pending=_pending(pending),
    )


class _NegatedOutputs(PosteriorTransform):
    """Posterior of ``-f`` for every output of a multi-output model's posterior of ``f``:
    mean negated, covariance kept. BoTorch's multi-objective analytic acquisitions
    maximize; isoline's objectives are minimized (:mod:`isoline.methods.base`)."""

    scalarize = False

    def evaluate(self, Y: torch.Tensor, X: torch.Tensor | None = None) -> torch.Tensor:
        return -Y

    def forward(self, posterior: Any, X: torch.Tensor | None = None) -> GPyTorchPosterior:
        mvn = posterior.distribution
        return GPyTorchPosterior(
            MultitaskMultivariateNormal(
                -mvn.mean, mvn.lazy_covariance_matrix, interleaved=mvn._interleaved
            )
        )


def hypervolume_ei(gps: OutputGPs, Y: np.ndarray, n_objectives: int) -> AcquisitionFunction:
    """Analytic ``ExpectedHypervolumeImprovement`` (Yang et al. 2019) of the
    ``n_objectives`` minimized outputs of ``gps`` (no constraint outputs) over the
    hypervolume dominated by the front of the values ``Y (n, k)``, against
    :func:`reference_point`; for one candidate point (``X`` of shape ``(b, 1, d)``)."""
    k = n_objectives
    if gps.num_outputs != k:
        raise ValueError("the analytic hypervolume improvement takes no constraint outputs")
    _, ref = _feasible_and_reference(Y, k)
    front = -torch.as_tensor(Y[:, :k], dtype=DTYPE)  # maximized
    return ExpectedHypervolumeImprovement(
        gps.model,
        ref_point=ref.tolist(),
        partitioning=NondominatedPartitioning(ref_point=ref, Y=front),
        posterior_transform=_NegatedOutputs(),
    )


def parego_log_nei(
    gps: OutputGPs,
    X: np.ndarray,
    n_objectives: int,
    pending: np.ndarray,
    sampler: SobolQMCNormalSampler | None,
) -> AcquisitionFunction:
    """``qLogNParEGO`` of the minimized objectives under the constraints: noisy log EI of
    an augmented Chebyshev scalarization whose weights BoTorch draws uniformly from the
    simplex (torch's generator: call inside :meth:`Method.torch_rng`)."""
    units = objective_units(gps, n_objectives)
    return qLogNParEGO(gps.model, **_multi_objective_args(gps, X, units, pending, sampler))


def parego_scalarized(Y: np.ndarray, n_objectives: int) -> np.ndarray:
    """ParEGO's scalar ``(n,)``, minimized, of the ``n_objectives`` objective columns of
    the imputed values ``Y (n, m)``: their augmented Chebyshev scalarization (weight of
    the sum 0.05) after scaling each to ``[0, 1]`` over its observed values, under
    weights drawn uniformly from the simplex (torch's generator: call inside
    :meth:`Method.torch_rng`). Knowles, IEEE TEVC 2006."""
    k = n_objectives
    weights = sample_simplex(k, dtype=DTYPE).reshape(k)
    maximized = -torch.as_tensor(Y[:, :k], dtype=DTYPE)
    return -get_chebyshev_scalarization(weights, maximized)(maximized, None).numpy()


def mo_acquisition(choice: str, n_objectives: int, q: int) -> str:
    """The form of gp-ei's ``mo_acquisition`` option ``choice`` (one of
    :data:`MO_ACQUISITIONS` but ``"auto"``): ``"auto"`` takes ParEGO beyond
    :data:`EHVI_MAX_OBJECTIVES` objectives or a batch larger than :data:`EHVI_MAX_BATCH`,
    where hypervolume improvement gets costly."""
    if choice != "auto":
        return choice
    return "parego" if n_objectives > EHVI_MAX_OBJECTIVES or q > EHVI_MAX_BATCH else "ehvi"


def settled_mo_acquisition(choice: str, n_objectives: int, batch_size: int) -> str:
    """What :func:`mo_acquisition` takes for ``choice`` on every batch of up to
    ``batch_size`` points, or ``choice`` itself when that depends on the batch."""
    forms = {mo_acquisition(choice, n_objectives, q) for q in range(1, batch_size + 1)}
    return forms.pop() if len(forms) == 1 else choice
