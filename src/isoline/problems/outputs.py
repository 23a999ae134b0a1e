"""Benchmark problems with several outputs: several objectives, or black-box constraints.

Each problem returns a mapping ``{name: value}`` per evaluation and carries the
:class:`~isoline.objective.Objective` that reads it (:attr:`OutputsProblem.objective`:
objective names and directions, constraint names), so a benchmark passes it to isoline
and to the peers unchanged. Every objective is minimized; a constraint is feasible when
its value is ``<= 0`` (BoTorch's slacks, feasible when ``>= 0``, are negated).

Multi-objective problems carry a reference point (:attr:`OutputsProblem.ref_point`, the
objectives' worst values of interest) and, where known, the hypervolume of the true
Pareto front against it (:attr:`OutputsProblem.max_hypervolume`). Constrained problems
with one objective carry the best known feasible value as :attr:`Problem.optimum` where
the source gives one.

Sources:

- BoTorch's test problems (``botorch.test_functions``), noise-free, with BoTorch's
  reference points and maximal hypervolumes: BraninCurrin (Belakaria et al., "Max-value
  entropy search for multi-objective Bayesian optimization", NeurIPS 2019), DTLZ2 (Deb et
  al., "Scalable test problems for evolutionary multiobjective optimization", 2005),
  ZDT1-ZDT3 (Zitzler, Deb and Thiele, "Comparison of multiobjective evolutionary
  algorithms: empirical results", Evolutionary Computation 2000), VehicleSafety (Tanabe
  and Ishibuchi, "An easy-to-use real-world multi-objective optimization problem suite",
  Applied Soft Computing 2020), and the constrained engineering designs PressureVessel,
  WeldedBeamSO, TensionCompressionString, SpeedReducer, Keane's bump function and the
  constrained Hartmann-6.
- Ackley on ``[-5, 10]^d`` with ``sum(x) <= 0`` and ``||x||_2 <= 5`` (Eriksson and
  Poloczek, "Scalable constrained Bayesian optimization", AISTATS 2021).
- COCO's ``bbob-biobj`` (Brockhoff et al., "Using well-understood single-objective
  functions in multiobjective black-box optimization test suites", Evolutionary
  Computation 2022) and ``bbob-constrained`` (Dufossé et al., "Benchmarking some
  numerical constrained optimization solvers with COCO", 2022) through ``cocoex``; the
  reference point of a bbob-biobj problem is its nadir (COCO's
  ``largest_fvalues_of_interest``); the instance index is ``seed + 1`` unless given (1..15).
"""

from __future__ import annotations

import importlib
from typing import Any, ClassVar

import numpy as np

from isoline.objective import Objective
from isoline.problems.base import Info, Problem
from isoline.problems.coco import CocoProblem, cocoex

__all__ = [
    "DTLZ2", "ZDT1", "ZDT2", "ZDT3", "AckleySCBO", "BBOBBiobj", "BBOBConstrained",
    "BoTorchProblem", "BraninCurrin", "ConstrainedHartmann",
    "KeaneBump", "OutputsProblem", "PressureVessel", "SpeedReducer",
    "TensionCompressionString", "VehicleSafety", "WeldedBeam",
]  # fmt: skip


class OutputsProblem(Problem):
    """A problem whose evaluation is a row of named outputs (objectives, then constraints).

    Subclasses call :meth:`_set_outputs` in ``__init__`` and implement :meth:`_outputs`.
    Observation noise is not offered (``noise_std`` must be 0).

    Attributes:
        objective: the :class:`~isoline.objective.Objective` of the outputs.
        ref_point: ``(n_objectives,)`` reference point for hypervolumes, or ``None``.
        max_hypervolume: hypervolume of the true Pareto front against ``ref_point``, or
            ``None`` when unknown.
    """

    takes_trial_number: ClassVar[bool] = False

    def _set_outputs(
        self,
        n_objectives: int,
        n_constraints: int,
        ref_point: Any = None,
        max_hypervolume: float | None = None,
    ) -> None:
        if self.noise_std != 0.0:
            raise ValueError(f"problem {self.name!r} is noise-free: noise_std must be 0")
        objs = ["f"] if n_objectives == 1 else [f"f{i}" for i in range(n_objectives)]
        cons = [f"c{i}" for i in range(n_constraints)]
        self.objective = Objective(["minimize"] * n_objectives, objs, cons)
        self.ref_point = None if ref_point is None else np.asarray(ref_point, dtype=float)
        self.max_hypervolume = None if max_hypervolume is None else float(max_hypervolume)

    def _outputs(self, x: np.ndarray) -> np.ndarray:
        """The ``(m,)`` outputs at one point: objectives, then constraints (``<= 0``)."""
        raise NotImplementedError

    def outputs(self, x: np.ndarray) -> np.ndarray:
        """The ``(m,)`` row of outputs at ``x`` ``(d,)``, in :attr:`objective` order."""
        return np.asarray(self._outputs(self._check_x(x)), dtype=float).reshape(-1)

    def evaluate(self, x: np.ndarray, number: int | None = None) -> tuple[float, Info]:
        raise TypeError(f"problem {self.name!r} has several outputs: call it or use outputs()")

    def __call__(self, x: np.ndarray, number: int | None = None) -> Any:
        """The mapping ``{name: value}`` of the outputs at ``x`` ``(d,)``."""
        return dict(zip(self.objective.names, self.outputs(x).tolist()))

    def noise_free(self, x: np.ndarray) -> float:
        """The first objective at ``x`` (the problems are noise-free)."""
        return float(self.outputs(x)[0])


def _torch_row(fn: Any, x: np.ndarray) -> np.ndarray:
    import torch

    with torch.no_grad():
        out = fn(torch.as_tensor(x, dtype=torch.float64).reshape(1, -1))
    return np.asarray(out.reshape(-1).numpy(), dtype=float)


class BoTorchProblem(OutputsProblem):
    """A test problem of ``botorch.test_functions``, noise-free: its objectives minimized
    with BoTorch's reference point and maximal hypervolume when there are several, and
    its constraint slacks negated (``<= 0`` feasible) when it has constraints. The optimum
    is BoTorch's known optimal value for one objective in a fixed dimension.

    Subclasses name the BoTorch class (:attr:`source`, ``"module.Class"`` in
    ``botorch.test_functions``) and whether it takes ``dim`` (:attr:`takes_dim`).
    """

    source: ClassVar[str] = ""
    takes_dim: ClassVar[bool] = False

    def __init__(self, dim: int, *, noise_std: float | str = 0.0, seed: int = 0) -> None:
        self._build(dim, noise_std, seed, {"dim": dim} if self.takes_dim else {})

    def _build(self, dim: int, noise_std: float | str, seed: int, kw: dict[str, Any]) -> None:
        from botorch.test_functions.base import ConstrainedBaseTestProblem

        module, _, cls = self.source.rpartition(".")
        self._f = getattr(importlib.import_module(f"botorch.test_functions.{module}"), cls)(**kw)
        lo, hi = self._f.bounds.numpy()
        self._constrained = isinstance(self._f, ConstrainedBaseTestProblem)
        n_objectives = int(self._f.num_objectives)
        optimum = None
        if n_objectives == 1 and not self.takes_dim:
            optimum = getattr(self._f, "_optimal_value", None)
        super().__init__(dim, lo, hi, noise_std=noise_std, seed=seed, optimum=optimum)
        ref_point = self._f.ref_point.numpy() if n_objectives > 1 else None
        n_constraints = int(self._f.num_constraints) if self._constrained else 0
        self._set_outputs(n_objectives, n_constraints, ref_point,
                          getattr(self._f, "_max_hv", None))  # fmt: skip

    def _outputs(self, x: np.ndarray) -> np.ndarray:
        f = _torch_row(self._f.evaluate_true, x)
        if not self._constrained:
            return f
        return np.concatenate([f, -_torch_row(self._f.evaluate_slack_true, x)])


class BraninCurrin(BoTorchProblem):
    """BraninCurrin: 2 objectives on ``[0, 1]^2``."""

    name = "branin-currin"
    source = "multi_objective.BraninCurrin"


class DTLZ2(BoTorchProblem):
    """DTLZ2 with ``objectives`` objectives (``2 <= objectives < dim``) on ``[0, 1]^d``."""

    name = "dtlz2"
    source, takes_dim = "multi_objective.DTLZ2", True

    def __init__(
        self, dim: int, *, noise_std: float | str = 0.0, seed: int = 0, objectives: int = 2
    ) -> None:
        if isinstance(objectives, bool) or not isinstance(objectives, int):
            raise TypeError(f"objectives must be an integer, got {objectives!r}")
        if not 2 <= objectives < dim:
            raise ValueError(f"dtlz2 needs 2 <= objectives < dim, got {objectives} and {dim}")
        self._build(dim, noise_std, seed, {"dim": dim, "num_objectives": objectives})


class ZDT1(BoTorchProblem):
    """ZDT1: 2 objectives on ``[0, 1]^d``, convex front."""

    name = "zdt1"
    source, takes_dim = "multi_objective.ZDT1", True


class ZDT2(BoTorchProblem):
    """ZDT2: 2 objectives on ``[0, 1]^d``, concave front."""

    name = "zdt2"
    source, takes_dim = "multi_objective.ZDT2", True


class ZDT3(BoTorchProblem):
    """ZDT3: 2 objectives on ``[0, 1]^d``, disconnected front."""

    name = "zdt3"
    source, takes_dim = "multi_objective.ZDT3", True


class VehicleSafety(BoTorchProblem):
    """VehicleSafety: 3 objectives on ``[1, 3]^5``."""

    name = "vehicle-safety"
    source = "multi_objective.VehicleSafety"


class PressureVessel(BoTorchProblem):
    """Pressure vessel design: 4 variables, 4 constraints."""

    name = "pressure-vessel"
    source = "synthetic.PressureVessel"


class WeldedBeam(BoTorchProblem):
    """Welded beam design (one objective): 4 variables, 6 constraints."""

    name = "welded-beam"
    source = "synthetic.WeldedBeamSO"


class TensionCompressionString(BoTorchProblem):
    """Tension/compression spring design: 3 variables, 4 constraints."""

    name = "tension-compression-string"
    source = "synthetic.TensionCompressionString"


class SpeedReducer(BoTorchProblem):
    """Speed reducer design: 7 variables, 11 constraints."""

    name = "speed-reducer"
    source = "synthetic.SpeedReducer"


class KeaneBump(BoTorchProblem):
    """Keane's bump function (minus, so minimized) on ``[0, 10]^d``, 2 constraints; no
    known optimum is used (it depends on ``d``)."""

    name = "keane-bump"
    source, takes_dim = "synthetic.KeaneBumpFunction", True


class ConstrainedHartmann(BoTorchProblem):
    """Hartmann-6 with ``||x||_2 <= 1`` (BoTorch's ConstrainedHartmann), on ``[0, 1]^6``."""

    name = "constrained-hartmann"
    source = "synthetic.ConstrainedHartmann"


class AckleySCBO(OutputsProblem):
    """Ackley on ``[-5, 10]^d`` subject to ``sum(x) <= 0`` and ``||x||_2 - 5 <= 0``, as in
    the SCBO paper's Ackley experiment (minimum 0 at the origin, which is feasible)."""

    name = "ackley-constrained"
    description = "Ackley on [-5,10]^d with sum(x) <= 0 and ||x|| <= 5 (SCBO)"

    def __init__(self, dim: int, *, noise_std: float | str = 0.0, seed: int = 0) -> None:
        from botorch.test_functions import Ackley

        self._f = Ackley(dim=dim)
        super().__init__(dim, [-5.0] * dim, [10.0] * dim, noise_std=noise_std, seed=seed,
                         optimum=0.0, optimum_x=np.zeros(dim))  # fmt: skip
        self._set_outputs(1, 2)

    def _outputs(self, x: np.ndarray) -> np.ndarray:
        f = _torch_row(self._f.evaluate_true, x)
        return np.concatenate([f, [float(np.sum(x)), float(np.linalg.norm(x)) - 5.0]])


class _Coco(CocoProblem, OutputsProblem):
    """A problem of a COCO suite whose instances are taken by index (1..15)."""

    functions: ClassVar[int] = 1

    def __init__(
        self,
        dim: int,
        *,
        noise_std: float | str = 0.0,
        seed: int = 0,
        function: int = 1,
        instance: int | None = None,
    ) -> None:
        self._set_coco(dim, function, range(1, self.functions + 1), f"1..{self.functions}",
                       instance, seed)  # fmt: skip
        p = self._coco()
        super().__init__(dim, p.lower_bounds, p.upper_bounds, noise_std=noise_std, seed=seed)
        self._declare(p)

    def _open(self) -> tuple[Any, Any]:
        f, d, i = self.function, self.dim, self.instance
        options = f"dimensions:{d} function_indices:{f} instance_indices:{i}"
        try:
            suite = cocoex().Suite(self.suite, "", options)
        except Exception as e:  # noqa: BLE001 - cocoex raises plain errors on bad options
            raise ValueError(f"{self.suite} has no function {f} in d={d}: {e}") from e
        if len(suite) != 1:
            raise ValueError(
                f"{self.suite} has no function {f}, instance index {i}, d={d} "
                "(COCO's suites have instance indices 1..15)"
            )
        return suite, suite[0]

    def _declare(self, p: Any) -> None:
        """Declare the outputs of cocoex's problem ``p``."""
        raise NotImplementedError


class BBOBBiobj(_Coco):
    """COCO ``bbob-biobj`` function ``function`` (1..55), two objectives; the reference
    point is the problem's nadir (``largest_fvalues_of_interest``)."""

    name = "bbob-biobj"
    description = "COCO bbob-biobj f1..f55 (cocoex)"
    suite = "bbob-biobj"
    functions = 55

    def _declare(self, p: Any) -> None:
        self._set_outputs(2, 0, np.asarray(p.largest_fvalues_of_interest, dtype=float))

    def _outputs(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(self._coco()(x), dtype=float)


class BBOBConstrained(_Coco):
    """COCO ``bbob-constrained`` function ``function`` (1..54): one objective, the
    function's linear constraints (``<= 0`` feasible, COCO's convention)."""

    name = "bbob-constrained"
    description = "COCO bbob-constrained f1..f54 (cocoex)"
    suite = "bbob-constrained"
    functions = 54

    def _declare(self, p: Any) -> None:
        self._set_outputs(1, int(p.number_of_constraints))

    def _outputs(self, x: np.ndarray) -> np.ndarray:
        p = self._coco()
        return np.concatenate([[float(p(x))], np.asarray(p.constraint(x), float)])
