"""What every problem of COCO's suites shares, through ``cocoex`` (Hansen, Auger, Ros,
Mersmann, Tušar and Brockhoff, "COCO: a platform for comparing continuous optimizers in a
black-box setting", Optimization Methods and Software 2021).

A COCO problem is named by its suite, function, dimension and instance. The instance is
``seed + 1`` unless given, so repetitions with different seeds run on different instances,
as COCO prescribes. :class:`CocoProblem` checks the function and instance, opens cocoex's
problem on first use and again after unpickling (cocoex objects do not pickle); the
classes of :mod:`isoline.problems.bbob` and :mod:`isoline.problems.outputs` build on it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, ClassVar

from isoline.problems.base import optional_import

__all__ = ["CocoProblem", "check_function", "cocoex", "instance_of", "suite_problem"]

_INSTALL = 'the BBOB problems need COCO: pip install "isoline[bbob]" (coco-experiment)'


def cocoex() -> Any:
    """The ``cocoex`` module, or an ImportError saying which extra provides it."""
    return optional_import("cocoex", _INSTALL)


def check_function(function: object, allowed: Collection[int], what: str) -> int:
    """``function`` if it is an integer among ``allowed`` (``what`` names them)."""
    if isinstance(function, bool) or not isinstance(function, int):
        raise TypeError(f"function must be an integer, one of {what}, got {function!r}")
    if function not in allowed:
        raise ValueError(f"function must be one of {what}, got {function!r}")
    return function


def instance_of(instance: object, seed: object) -> int:
    """The COCO instance: ``instance`` (an integer >= 1), or ``seed + 1`` when ``None``."""
    if instance is None:
        return int(seed) + 1 if isinstance(seed, int) and not isinstance(seed, bool) else 1
    if isinstance(instance, bool) or not isinstance(instance, int) or instance < 1:
        raise ValueError(f"instance must be an integer >= 1, got {instance!r}")
    return instance


def suite_problem(suite: str, function: int, dim: int, instance: int) -> tuple[Any, Any]:
    """``(suite, problem)`` of a cocoex suite, by function and instance number (the suite
    is returned with its problem: it owns it and must outlive it)."""
    s = cocoex().Suite(suite, f"instances: {instance}", f"dimensions: {dim}")
    return s, s.get_problem_by_function_dimension_instance(function, dim, instance)


class CocoProblem:
    """One problem of the COCO suite :attr:`suite` (a base next to the problem's own).

    Subclasses call :meth:`_set_coco` in ``__init__`` and read cocoex's problem with
    :meth:`_coco`; they override :meth:`_open` where the problem is not taken from the
    suite by instance number.

    Attributes:
        function, instance: COCO's function and instance numbers.
    """

    suite: ClassVar[str] = ""
    dim: int
    function: int
    instance: int

    def _set_coco(
        self,
        dim: int,
        function: object,
        allowed: Collection[int],
        what: str,
        instance: object,
        seed: object,
    ) -> None:
        """Check and keep the function (one of ``allowed``, named ``what``) and instance."""
        self.function = check_function(function, allowed, what)
        self.instance = instance_of(instance, seed)
        self.dim = dim
        self._opened: tuple[Any, Any] | None = None

    def _open(self) -> tuple[Any, Any]:
        """``(owner, problem)``: cocoex's problem and the object that must outlive it."""
        return suite_problem(self.suite, self.function, self.dim, self.instance)

    def _coco(self) -> Any:
        """cocoex's problem, opened on first use."""
        if self._opened is None:
            self._opened = self._open()
        return self._opened[1]

    @property
    def coco_id(self) -> str:
        """COCO's identifier, e.g. ``bbob_f007_i01_d03``."""
        return str(self._coco().id)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_opened"] = None  # cocoex's objects are opened again where they are used
        return state
