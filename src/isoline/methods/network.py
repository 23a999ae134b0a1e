"""Shared machinery of the network methods NeuralBO and NeuralGreedy.

Both fit the same wide ReLU network ``h(x; theta) = sqrt(m) W_L relu(... W_1 x)`` of
:mod:`isoline.models.neural` to the standardized observations, warm-started from the
previous fit and pulled towards its initial weights ``theta_0``, and search its
optimum over scrambled Sobol candidates polished by L-BFGS-B. :class:`NetworkMethod`
declares these options once and holds the network's weights.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import torch

from isoline.methods.base import Method
from isoline.models.neural import init_weights
from isoline.validation import check_bool, check_int, check_positive

__all__ = ["NetworkMethod", "standardize", "torch_generator"]


def standardize(y: np.ndarray) -> np.ndarray:
    """``(y - mean) / std``; a constant ``y`` is only centred."""
    std = float(np.std(y))
    return (y - np.mean(y)) / (std if std > 0 else 1.0)


def torch_generator(rng: np.random.Generator) -> torch.Generator:
    """A torch generator seeded from the method's NumPy generator."""
    return torch.Generator().manual_seed(int(rng.integers(2**62)))


class NetworkMethod(Method):
    """Base of the network methods: network options, initial and current weights.

    Options (shared):
        width: hidden width ``m`` (500).
        depth: number of weight layers ``L`` (2: ``h = sqrt(m) W_2 relu(W_1 x)``).
        lr: step size of the optimizer (1e-3).
        epochs: training epochs per fit.
        train_batch_size: minibatch size (50).
        lam: pull ``m lam/2 ||theta - theta_0||^2`` towards the initial weights (0.01).
        n_candidates: Sobol candidates scanned for the optimum of each sample.
        n_refine: best candidates polished by L-BFGS-B (5; 0 turns refinement off).
        bias: give every layer after the first a bias (the first has the constant input
            coordinate); the paper's network has none, the authors' code has them.
    """

    family = "neural"
    #: stream of the initial weights, ``default_rng([seed, weight_stream])``: each method
    #: draws its own ``theta_0`` from the run's seed
    weight_stream: ClassVar[int] = 0

    def __init__(
        self,
        dim: int,
        *,
        width: int = 500,
        depth: int = 2,
        lr: float = 1e-3,
        epochs: int = 50,
        train_batch_size: int = 50,
        lam: float = 0.01,
        n_candidates: int = 50_000,
        n_refine: int = 5,
        bias: bool = False,
        **common: Any,
    ) -> None:
        self.width = check_int(width, "width", 1)
        self.depth = check_int(depth, "depth", 1)
        self.lr = check_positive(lr, "lr")
        self.epochs = check_int(epochs, "epochs", 1)
        self.train_batch_size = check_int(train_batch_size, "train_batch_size", 1)
        self.lam = check_positive(lam, "lam")
        self.n_candidates = check_int(n_candidates, "n_candidates", 1)
        self.n_refine = check_int(n_refine, "n_refine", 0)
        self.bias = check_bool(bias, "bias")
        super().__init__(dim, **common)
        gen = torch_generator(np.random.default_rng([self.seed, self.weight_stream]))
        self._weights0 = init_weights(self.dim + 1, self.width, self.depth, gen, bias=self.bias)
        self._weights = [w.clone() for w in self._weights0]
        #: current step size; divided by 10 after each divergence
        self.current_lr = self.lr
        #: number of diverged training runs so far (each one undone)
        self.n_divergences = 0
