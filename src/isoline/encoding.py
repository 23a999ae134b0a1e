"""The one encoding of typed parameters into unit-cube columns, shared by every method.

Each parameter of a :class:`~isoline.params.Space` owns a block of consecutive columns of
the encoded ``[0, 1]^dim`` cube:

* **Real** ``(low, high)``: one column ``u = (g(x) - g(low)) / (g(high) - g(low))`` with
  the warp ``g`` the identity, ``log`` (``log=True``) or ``logit(x) = log(x / (1 - x))``
  (``logit=True``). Decoding inverts the warp and clips into ``[low, high]``.
* **Integer** ``(low, high)``: one column, a continuous relaxation with equal-width cells
  in warped space. The cell of ``k`` is ``[g(k - 1/2), g(k + 1/2)]`` mapped linearly from
  ``[g(low - 1/2), g(high + 1/2)]`` onto ``[0, 1]``; a point decodes to the integer nearest
  to ``g^{-1}`` of its warped value, and ``k`` encodes to the centre of its cell. Without a
  warp this places ``k`` at ``(k - low + 1/2) / (high - low + 1)``, so every integer owns a
  cell of the same width ``1 / (high - low + 1)`` and a uniform point in the cube decodes
  to a uniform integer. With ``log=True`` the cells are equal in ``log`` space.
* **Categorical** with ``m`` choices: ``m`` one-hot columns; a point decodes to the
  choice with the largest column (the first on ties).

Rounding a point (:func:`round_blocks`) replaces each block by the encoding of the
configuration it decodes to. Fitting a surrogate to rounded inputs makes it model the
point that is actually evaluated, which is the transformation of Garrido-Merchan &
Hernandez-Lobato, "Dealing with categorical and integer-valued variables in Bayesian
optimization with Gaussian processes", Neurocomputing 380 (2020).

Every map here takes an array namespace ``xp`` (``numpy`` or ``torch``) so a NumPy path
and a differentiable torch path (for a rounding input transform inside a surrogate) can
be one piece of code.
Ties at an integer cell boundary resolve by round-half-to-even in both (``numpy.rint``
and ``torch.round``), so the two paths agree exactly on the same ``float64`` input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

__all__ = [
    "DiscreteLayout",
    "Scale",
    "argmax_one_hot",
    "int_from_unit",
    "int_to_unit",
    "real_from_unit",
    "real_to_unit",
    "unwarp",
    "warp",
]

Scale = Literal["linear", "log", "logit"]
Array = Any  # a numpy array or a torch tensor


def warp(x: Array, scale: Scale, xp: Any = np) -> Array:
    """The warp ``g`` of a scale: identity, ``log`` or ``logit``."""
    if scale == "linear":
        return x
    if scale == "log":
        return xp.log(x)
    return xp.log(x) - xp.log1p(-x)


def unwarp(t: Array, scale: Scale, xp: Any = np) -> Array:
    """The inverse warp ``g^{-1}``: identity, ``exp`` or the logistic sigmoid."""
    if scale == "linear":
        return t
    if scale == "log":
        return xp.exp(t)
    return 1.0 / (1.0 + xp.exp(-t))


def _real_ends(low: float, high: float, scale: Scale) -> tuple[float, float]:
    return float(warp(np.float64(low), scale)), float(warp(np.float64(high), scale))


def real_to_unit(x: np.ndarray, low: float, high: float, scale: Scale) -> np.ndarray:
    """Encode real values ``x`` (inside ``[low, high]``) into ``[0, 1]``."""
    a, b = _real_ends(low, high, scale)
    return np.clip((warp(np.asarray(x, dtype=float), scale) - a) / (b - a), 0.0, 1.0)


def real_from_unit(u: Array, low: float, high: float, scale: Scale, xp: Any = np) -> Array:
    """Decode unit values into ``[low, high]`` (``u`` outside ``[0, 1]`` is clipped)."""
    a, b = _real_ends(low, high, scale)
    return xp.clip(unwarp(a + xp.clip(u, 0.0, 1.0) * (b - a), scale, xp), low, high)


def _int_ends(low: int, high: int, scale: Scale) -> tuple[float, float]:
    return (
        float(warp(np.float64(low - 0.5), scale)),
        float(warp(np.float64(high + 0.5), scale)),
    )


def int_to_unit(k: Array, low: int, high: int, scale: Scale, xp: Any = np) -> Array:
    """Encode integers ``k`` (inside ``[low, high]``, any float dtype) at their cell centres."""
    a, b = _int_ends(low, high, scale)
    centre = 0.5 * (warp(k - 0.5, scale, xp) + warp(k + 0.5, scale, xp))
    return (centre - a) / (b - a)


def int_from_unit(
    u: Array,
    low: int,
    high: int,
    scale: Scale,
    xp: Any = np,
    rnd: Callable[[Array], Array] = np.rint,
) -> Array:
    """The integer (as a float array) whose cell holds ``u``; ``rnd`` rounds to nearest
    (``numpy.rint``, or BoTorch's straight-through ``RoundSTE.apply`` for gradients)."""
    a, b = _int_ends(low, high, scale)
    v = unwarp(a + xp.clip(u, 0.0, 1.0) * (b - a), scale, xp)
    return xp.clip(rnd(v), float(low), float(high))


def argmax_one_hot(block: np.ndarray) -> np.ndarray:
    """``(..., m)`` one-hot rows of the column-wise argmax (first index on ties)."""
    out = np.zeros_like(block, dtype=float)
    np.put_along_axis(out, np.argmax(block, axis=-1)[..., None], 1.0, axis=-1)
    return out


@dataclass(frozen=True)
class DiscreteLayout:
    """Where the discrete parameters of a typed space sit in its encoding.

    Attributes:
        ordinal: ``{column: values}`` for each Integer: the ascending encoded values
            (cell centres) its column takes.
        one_hot: ``(start, stop)`` column ranges of each Categorical's one-hot block.
    """

    ordinal: Mapping[int, tuple[float, ...]]
    one_hot: tuple[tuple[int, int], ...]

    @property
    def columns(self) -> list[int]:
        """Every discrete column, ascending."""
        cols = list(self.ordinal) + [c for a, b in self.one_hot for c in range(a, b)]
        return sorted(cols)
