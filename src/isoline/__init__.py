"""isoline: sample-efficient minimization of expensive black-box functions.

>>> import isoline as iso
>>> res = iso.optimize(lambda x: -float((x ** 2).sum()), iso.Box([-1, -1], [1, 1]),
...                    direction="maximize", method="gp-ei", budget=20, seed=0)

``import isoline`` is fast: each public name is imported from its module on first use
(PEP 562), and a method's module (with torch, BoTorch or scikit-learn behind it) only when
that method is asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# This imports the package isoline.methods first (binding it here as ``methods``), then
# rebinds ``methods`` to the function: a package binds on its parent once, when first loaded.
from isoline.methods.registry import MethodInfo, methods

if TYPE_CHECKING:
    from isoline import designs, problems
    from isoline.input_constraints import Linear
    from isoline.objective import Objective
    from isoline.optimizer import Optimizer, Result
    from isoline.params import Categorical, Integer, Real, Space
    from isoline.progress import get_verbosity, set_verbosity
    from isoline.results import load
    from isoline.runs import ObjectiveError, minimize, optimize
    from isoline.space import Box, SearchSpace
    from isoline.store import Store, StoreError

#: public name -> the module it is imported from on first use
_LAZY = {
    "Box": "isoline.space",
    "Categorical": "isoline.params",
    "Integer": "isoline.params",
    "Linear": "isoline.input_constraints",
    "Objective": "isoline.objective",
    "ObjectiveError": "isoline.runs",
    "Optimizer": "isoline.optimizer",
    "Real": "isoline.params",
    "Result": "isoline.optimizer",
    "SearchSpace": "isoline.space",
    "Space": "isoline.params",
    "Store": "isoline.store",
    "StoreError": "isoline.store",
    "get_verbosity": "isoline.progress",
    "load": "isoline.results",
    "minimize": "isoline.runs",
    "optimize": "isoline.runs",
    "set_verbosity": "isoline.progress",
}
_SUBMODULES = ("designs", "problems")

__all__ = [
    "Box",
    "Categorical",
    "Integer",
    "Linear",
    "MethodInfo",
    "Objective",
    "ObjectiveError",
    "Optimizer",
    "Real",
    "Result",
    "SearchSpace",
    "Space",
    "Store",
    "StoreError",
    "designs",
    "get_verbosity",
    "load",
    "methods",
    "minimize",
    "optimize",
    "problems",
    "set_verbosity",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
