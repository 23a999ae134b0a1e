"""Hyperparameter tuning of a small CNN on scikit-learn's digits (stand-in for BKOP §10).

The BKOP paper tunes a CIFAR-100 network of three building blocks (each block: its
``depth`` repeats of convolution, batch normalization and ReLU) over seven
hyperparameters. CIFAR cannot be downloaded here, so the same search space drives the
same kind of network on the bundled 8x8 digits (1797 images, 10 classes):

==============  ====================  ======================  ========================
variable        box (problem units)   decoded value           kind
==============  ====================  ======================  ========================
depth           [0.5, 3.5]            round -> {1, 2, 3}      integer
log10_lr        [-4, -1]              SGD learning rate       continuous (log scale)
momentum        [0.1, 0.95]           SGD momentum            continuous
log10_l2        [-10, -2]             weight decay            continuous (log scale)
filter1..3      [0, 3)                index into {2, 3, 4}    choice (kernel k x k)
==============  ====================  ======================  ========================

The objective is the validation error (fraction misclassified, to minimize) after
``epochs`` of SGD on a stratified train/validation split. The split, the weight
initialization and the mini-batch order are fixed by the problem's seed, so the objective
is a deterministic function of the hyperparameters; each evaluation runs on one thread.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch
from torch import nn

from isoline.problems.base import Info, Problem
from isoline.threads import limit_threads

__all__ = ["DigitsCNN", "digits_split", "seeded_single_thread"]

FILTER_SIZES = (2, 3, 4)


@contextlib.contextmanager
def seeded_single_thread(seed: int) -> Iterator[None]:
    """Run torch code on one thread with the global RNG seeded, restoring both afterwards
    (small networks are faster on one thread, and results do not depend on the machine's
    thread count)."""
    with limit_threads(1), torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def digits_split(
    seed: int, val_fraction: float = 1 / 3
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Stratified split of scikit-learn's digits, pixels scaled to ``[0, 1]``.

    Returns ``(X_train (n, 8, 8), y_train (n,), X_val (m, 8, 8), y_val (m,))``.
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    data = load_digits()
    X = (data.images / 16.0).astype(np.float32)
    Xtr, Xva, ytr, yva = train_test_split(
        X, data.target, test_size=val_fraction, stratify=data.target, random_state=seed
    )
    return Xtr, ytr, Xva, yva


class _BlockCNN(nn.Module):
    """Three blocks of ``depth`` x (conv k x k 'same', batch norm, ReLU); 2x2 max pooling
    after the first two blocks; global average pooling and a linear classifier."""

    def __init__(self, depth: int, filters: tuple[int, int, int], channels: int = 16) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        c_in = 1
        for b, k in enumerate(filters):
            for _ in range(depth):
                lo, hi = (k - 1) // 2, k // 2  # 'same' padding, also for even k
                layers += [
                    nn.ZeroPad2d((lo, hi, lo, hi)),
                    nn.Conv2d(c_in, channels, k),
                    nn.BatchNorm2d(channels),
                    nn.ReLU(),
                ]
                c_in = channels
            if b < 2:
                layers.append(nn.MaxPool2d(2))
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(channels, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x).mean(dim=(2, 3)))


class DigitsCNN(Problem):
    """Validation error of a 3-block CNN on digits as a function of 7 hyperparameters.

    Args:
        dim: 7.
        noise_std: observation noise (default 0).
        seed: fixes the data split, the initialization and the batch order.
        epochs: training epochs per evaluation.
        batch_size: SGD mini-batch size.
    """

    name = "hpo-digits"
    description = "CNN hyperparameters on sklearn digits (BKOP §10 stand-in); validation error"

    def __init__(
        self,
        dim: int = 7,
        *,
        noise_std: float | str = 0.0,
        seed: int = 0,
        epochs: int = 8,
        batch_size: int = 64,
    ) -> None:
        if dim != 7:
            raise ValueError(f"dim of 'hpo-digits' must be 7, got {dim}")
        for v, n in ((epochs, "epochs"), (batch_size, "batch_size")):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{n} must be an integer >= 1, got {v!r}")
        super().__init__(
            7,
            [0.5, -4.0, 0.1, -10.0, 0.0, 0.0, 0.0],
            [3.5, -1.0, 0.95, -2.0, 3.0, 3.0, 3.0],
            noise_std=noise_std,
            seed=seed,
            lower_bound=0.0,
            names=["depth", "log10_lr", "momentum", "log10_l2", "filter1", "filter2", "filter3"],
        )
        self.epochs, self.batch_size = epochs, batch_size
        self._data: tuple[np.ndarray, ...] | None = None

    @staticmethod
    def decode(x: np.ndarray) -> dict[str, Any]:
        """The hyperparameters encoded by a point ``x (7,)`` of the box."""
        idx = [min(int(math.floor(v)), len(FILTER_SIZES) - 1) for v in x[4:7]]
        return {
            "depth": int(np.clip(np.round(x[0]), 1, 3)),
            "lr": float(10.0 ** x[1]),
            "momentum": float(x[2]),
            "weight_decay": float(10.0 ** x[3]),
            "filters": tuple(FILTER_SIZES[i] for i in idx),
        }

    def _evaluate(self, x: np.ndarray) -> tuple[float, Info]:
        hp = self.decode(x)
        if self._data is None:
            self._data = digits_split(self.seed)
        Xtr, ytr, Xva, yva = (torch.as_tensor(a) for a in self._data)
        Xtr, Xva = Xtr[:, None], Xva[:, None]
        with seeded_single_thread(self.seed):
            net = _BlockCNN(hp["depth"], hp["filters"])
            opt = torch.optim.SGD(
                net.parameters(),
                lr=hp["lr"],
                momentum=hp["momentum"],
                weight_decay=hp["weight_decay"],
            )
            gen = torch.Generator().manual_seed(self.seed)
            loss_fn = nn.CrossEntropyLoss()
            net.train()
            for _ in range(self.epochs):
                for batch in torch.randperm(len(ytr), generator=gen).split(self.batch_size):
                    opt.zero_grad()
                    loss = loss_fn(net(Xtr[batch]), ytr[batch])
                    loss.backward()
                    opt.step()
            net.eval()
            with torch.no_grad():
                logits = net(Xva)
        if not torch.isfinite(logits).all():
            error = 1.0  # diverged training (e.g. a very large learning rate) classifies nothing
        else:
            error = float((logits.argmax(1) != yva).float().mean())
        info = {k: (list(v) if isinstance(v, tuple) else v) for k, v in hp.items()}
        return error, {**info, "final_loss": float(loss.detach())}

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_data"] = None  # reloaded from scikit-learn in the receiving process
        return state
