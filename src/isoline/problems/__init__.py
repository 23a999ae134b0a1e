"""Benchmark problems, by lower-case dashed name.

>>> import isoline as iso
>>> p = iso.problems.get("ackley", dim=20, noise_std=0.0, seed=0)
>>> p.space, p.optimum          # Box in the problem's units, known minimum value
>>> y = p(p.space.lower)        # a float, or (float, info) for problems with info

Every problem minimizes (maximization benchmarks are negated). Problems needing optional
packages (gymnasium/mujoco, Box2D, cocoex) import them only when built, and raise an
ImportError saying which ``pip install "isoline[...]"`` provides them.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Any, NamedTuple

from isoline.problems.base import Info, Problem

__all__ = [
    "Info", "Problem", "ProblemInfo", "available", "check_name_and_dim", "get", "register",
]  # fmt: skip


class ProblemInfo(NamedTuple):
    """One row of :func:`available`: name, description and allowed dimensions (text)."""

    name: str
    description: str
    dims: str


@dataclass(frozen=True)
class _Entry:
    target: str  # "module:Class"
    dims: tuple[int, ...] | int  # allowed dims, or the minimum dim when any d works
    default_dim: int
    description: str

    def dims_text(self) -> str:
        if isinstance(self.dims, int):
            return f"any d >= {self.dims}"
        return ", ".join(str(d) for d in self.dims)

    def allows(self, dim: int) -> bool:
        return dim >= self.dims if isinstance(self.dims, int) else dim in self.dims


_REGISTRY: dict[str, _Entry] = {}


def register(
    name: str,
    target: str | type[Problem],
    dims: tuple[int, ...] | int,
    default_dim: int,
    description: str,
) -> None:
    """Add a problem class under ``name``.

    Args:
        name: lower-case dashed name.
        target: the :class:`Problem` subclass, or ``"module:Class"`` imported on first use.
        dims: the allowed dimensions, or an int ``m`` meaning "any ``d >= m``".
        default_dim: dimension used when :func:`get` receives ``dim=None``.
        description: one line shown by :func:`available`.
    """
    if not name or name != name.lower() or " " in name:
        raise ValueError(f"problem name must be lower-case with dashes, got {name!r}")
    if not isinstance(target, str):
        target = f"{target.__module__}:{target.__qualname__}"
    entry = _Entry(target, dims if isinstance(dims, int) else tuple(dims), default_dim, description)
    if not entry.allows(default_dim):
        raise ValueError(
            f"default_dim {default_dim} is not among the allowed dims {entry.dims_text()}"
        )
    _REGISTRY[name] = entry


def available() -> list[ProblemInfo]:
    """Every registered problem: ``(name, description, dims)``, sorted by name."""
    return [ProblemInfo(n, e.description, e.dims_text()) for n, e in sorted(_REGISTRY.items())]


def check_name_and_dim(name: object, dim: object = None) -> int:
    """The dimension :func:`get` would build problem ``name`` with (``dim``, or the
    problem's default for ``None``), without importing or building the problem.

    Raises:
        ValueError: unknown name or dimension not allowed (the message lists the choices).
        TypeError: ``dim`` is not an integer.
    """
    if not isinstance(name, str) or name not in _REGISTRY:
        raise ValueError(f"unknown problem {name!r}; choose one of {sorted(_REGISTRY)}")
    entry = _REGISTRY[name]
    if dim is None:
        dim = entry.default_dim
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"dim must be an integer ({entry.dims_text()}) for {name!r}, got {dim!r}")
    if not entry.allows(dim):
        raise ValueError(f"dim={dim} is not allowed for {name!r}; allowed: {entry.dims_text()}")
    return dim


def get(
    name: str,
    dim: int | None = None,
    noise_std: float | str | None = None,
    seed: int = 0,
    **kw: Any,
) -> Problem:
    """Build problem ``name``.

    Args:
        name: a name from :func:`available`.
        dim: number of variables; ``None`` takes the problem's default dimension.
        noise_std: observation-noise standard deviation, or ``"<p>%range"`` (noise variance
            ``p`` percent of the function range); ``None`` takes the problem's default
            (0 for most problems, 0.1 for ``gp-sample`` as in GIBO/MinUCB).
        seed: seed of the problem instance and of its noise.
        **kw: problem-specific options (see the problem class).

    Raises:
        ValueError: unknown name or dimension not allowed (the message lists the choices).
        TypeError: unknown option for this problem.
    """
    dim = check_name_and_dim(name, dim)
    module, _, cls_name = _REGISTRY[name].target.partition(":")
    cls = getattr(importlib.import_module(module), cls_name)
    options = _options(cls)
    unknown = sorted(set(kw) - set(options))
    if unknown:
        raise TypeError(
            f"unknown option(s) {unknown} for problem {name!r}; "
            f"its options are {sorted(options) or 'none'}"
        )
    noise = cls.default_noise_std if noise_std is None else noise_std
    problem = cls(dim, noise_std=noise, seed=seed, **kw)
    problem.spec = {"name": name, "dim": dim, "noise_std": noise, "seed": seed, **kw}
    return problem


def _options(cls: type[Problem]) -> dict[str, Any]:
    sig = inspect.signature(cls.__init__)
    return {
        p.name: p.default
        for p in sig.parameters.values()
        if p.kind is p.KEYWORD_ONLY and p.name not in ("noise_std", "seed")
    }


#: the dimensions of COCO's bbob, bbob-noisy, bbob-biobj and bbob-constrained suites
_COCO_DIMS = (2, 3, 5, 10, 20, 40)
# name, "module:Class" in isoline.problems, dims (tuple, or the minimum d), default dim,
# description
# fmt: off
_BUILTIN: list[tuple[str, str, tuple[int, ...] | int, int, str]] = [
    ("ackley", "synthetic:Ackley", 1, 6, "Ackley on [-2,2]^d (BKOP Table 4); min 0"),
    ("levy", "synthetic:Levy", 1, 6, "Levy on [-10,10]^d (BKOP Table 4); min 0"),
    ("rosenbrock", "synthetic:Rosenbrock", 2, 6, "Rosenbrock on [-2,2]^d (BKOP Table 4); min 0"),
    ("nesterov", "synthetic:Nesterov", 1, 6, "Nesterov on [-2,2]^d (BKOP Table 4); min 0"),
    ("different-powers", "synthetic:DifferentPowers", 2, 6, "Different-Powers on [-2,2]^d (BKOP Table 4); min 0"),
    ("dixon-price", "synthetic:DixonPrice", 1, 6, "Dixon-Price on [-2,2]^d (BKOP Table 4); min 0"),
    ("michalewicz", "synthetic:Michalewicz", 1, 10, "Michalewicz (m=10) on [0,pi]^d (NeuralBO); min computed"),
    ("gp-sample", "gp_sample:GPSample", 1, 25, "posterior mean of a GP sample on [0,1]^d (GIBO §4.1, MinUCB §8.1); noise 0.1"),
    ("cartpole", "rl:CartPole", (4, 5), 4, "CartPole-v1 linear policy, -reward (4 params; 5 with bias) [rl]"),
    ("swimmer", "rl:Swimmer", (16, 18), 16, "Swimmer-v5 linear policy, -reward (16 params; 18 with biases) [rl]"),
    ("hopper", "rl:Hopper", (33, 36), 33, "Hopper-v5 linear policy, -reward (33 params; 36 with biases) [rl]"),
    ("push4", "push:Push4", (4,), 4, "robot pushing 4-D, distance to a seeded goal (BKOP) [push]"),
    ("push14", "push:Push14", (14,), 14, "robot pushing 14-D, two hands, total distance to goals (NeuralBO) [push]"),
    ("hpo-sklearn", "sklearn_hpo:SklearnHPO", 0, 0, "scikit-learn model tuning by 5-fold CV, bayesmark's nine spaces and HGB (dim: 0 = the model's)"),
    ("hpo-sklearn-cost", "sklearn_cost:SklearnCostHPO", 0, 0, "HGB tuning for 5-fold CV error and log10 leaves grown (a deterministic fit-time stand-in), 2 objectives (dim: 0)"),
    ("hpo-cash", "conditional:CashHPO", 0, 0, "CASH over 5 scikit-learn models, conditional subspaces; 3-fold CV error or log loss (metric=) (dim: 0)"),
    ("hpo-svm-kernel", "conditional:SvmKernelHPO", 0, 0, "SVM with kernel-specific (conditional) parameters; 3-fold CV error or log loss (metric=) (dim: 0)"),
    ("hpo-mlp-solver", "conditional:MlpSolverHPO", 0, 0, "MLP whose solver has its own (conditional) parameters; 3-fold CV error or log loss (metric=) (dim: 0)"),
    ("hpo-digits", "hpo:DigitsCNN", (7,), 7, "CNN hyperparameters (integer/continuous/choice) on sklearn digits; validation error"),
    ("bbob", "bbob:BBOB", _COCO_DIMS, 2, "COCO bbob f1..f24 (function=, instance=); 51 targets (NeuralBO) [bbob]"),
    ("bbob-noisy", "bbob:BBOBNoisy", _COCO_DIMS, 5, "COCO bbob-noisy, Gaussian noise (function=101..128, instance=); noise-free known [bbob]"),
    ("bbob-mixint", "bbob:BBOBMixint", (5, 10, 20, 40, 80, 160), 5, "COCO bbob-mixint f1..f24, integer and real variables (function=, instance=) [bbob]"),
    ("sensitive-samples", "sensitive:SensitiveSamples", (64, 16), 64, "sensitive samples (8x8 or 4x4 input) detecting a tampered digits classifier (NeuralBO)"),
    ("branin-currin", "outputs:BraninCurrin", (2,), 2, "BraninCurrin, 2 objectives (BoTorch)"),
    ("dtlz2", "outputs:DTLZ2", 3, 6, "DTLZ2, objectives=2.. objectives (BoTorch)"),
    ("zdt1", "outputs:ZDT1", 2, 6, "ZDT1, 2 objectives, convex front (BoTorch)"),
    ("zdt2", "outputs:ZDT2", 2, 6, "ZDT2, 2 objectives, concave front (BoTorch)"),
    ("zdt3", "outputs:ZDT3", 2, 6, "ZDT3, 2 objectives, disconnected front (BoTorch)"),
    ("vehicle-safety", "outputs:VehicleSafety", (5,), 5, "VehicleSafety, 3 objectives (BoTorch)"),
    ("pressure-vessel", "outputs:PressureVessel", (4,), 4, "pressure vessel, 4 constraints (BoTorch)"),
    ("welded-beam", "outputs:WeldedBeam", (4,), 4, "welded beam, 6 constraints (BoTorch WeldedBeamSO)"),
    ("tension-compression-string", "outputs:TensionCompressionString", (3,), 3, "tension/compression spring, 4 constraints (BoTorch)"),
    ("speed-reducer", "outputs:SpeedReducer", (7,), 7, "speed reducer, 11 constraints (BoTorch)"),
    ("keane-bump", "outputs:KeaneBump", 2, 10, "Keane bump on [0,10]^d, 2 constraints (BoTorch)"),
    ("constrained-hartmann", "outputs:ConstrainedHartmann", (6,), 6, "Hartmann-6 with ||x|| <= 1 (BoTorch ConstrainedHartmann)"),
    ("ackley-constrained", "outputs:AckleySCBO", 2, 10, "Ackley on [-5,10]^d, sum(x) <= 0 and ||x|| <= 5 (SCBO); min 0"),
    ("bbob-biobj", "outputs:BBOBBiobj", _COCO_DIMS, 2, "COCO bbob-biobj f1..f55 (function=, instance=), 2 objectives [bbob]"),
    ("bbob-constrained", "outputs:BBOBConstrained", _COCO_DIMS, 2, "COCO bbob-constrained f1..f54 (function=, instance=) [bbob]"),
]
# fmt: on
for _name, _target, _dims, _default, _desc in _BUILTIN:
    register(_name, f"isoline.problems.{_target}", _dims, _default, _desc)
