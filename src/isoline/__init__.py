"""isoline: sample-efficient minimization of expensive black-box functions.

>>> import isoline as iso
>>> res = iso.minimize(lambda x: float((x ** 2).sum()), iso.Box([-1, -1], [1, 1]),
...                    method="gp-ei", budget=20, seed=0)
"""

from isoline import designs, problems
from isoline.methods.registry import MethodInfo, methods
from isoline.optimizer import Optimizer, Result
from isoline.params import Categorical, Integer, Real, Space
from isoline.results import load
from isoline.runs import ObjectiveError, minimize
from isoline.space import Box
from isoline.store import Store, StoreError

__all__ = [
    "Box",
    "Categorical",
    "Integer",
    "MethodInfo",
    "ObjectiveError",
    "Optimizer",
    "Real",
    "Result",
    "Space",
    "Store",
    "StoreError",
    "designs",
    "load",
    "methods",
    "minimize",
    "problems",
]
__version__ = "0.1.0"
