"""isoline: sample-efficient minimization of expensive black-box functions."""

from isoline.space import Box
from isoline.registry import methods

__all__ = ["Box", "methods"]
__version__ = "0.1.0"
