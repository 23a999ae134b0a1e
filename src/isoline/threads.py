"""Thread limits for the small tensor and matrix work of a proposal.

A method's :meth:`~isoline.methods.base.Method.ask` and
:meth:`~isoline.methods.base.Method.tell` run under :func:`single_threaded`, once, around
the whole proposal: GP fits, acquisition optimization and network training issue many
small operations, for which thread start-up and busy-waiting cost more than they gain
(Optuna's GPSampler limits its threads for the same reason), and results then do not
depend on the machine's thread count (a different count changes the order of
floating-point sums, which a model-based search can amplify into different points).

Torch's setting is touched only once torch is imported: a method that uses torch imports
it with its module, before any of its proposals, and one that does not (random search,
CMA-ES) runs without loading it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

from threadpoolctl import threadpool_limits

__all__ = ["limit_threads", "single_threaded"]


@contextlib.contextmanager
def limit_threads(n: int = 1) -> Iterator[None]:
    """Run the enclosed torch work on ``n`` intra-op threads, then restore the setting.

    Nothing to limit (and torch is not imported) while no module has imported torch.
    """
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    old = torch.get_num_threads()
    if old != n:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        if old != n:
            torch.set_num_threads(old)


@contextlib.contextmanager
def single_threaded() -> Iterator[None]:
    """Run the enclosed block on one torch and one BLAS thread, then restore the settings."""
    with limit_threads(1), threadpool_limits(limits=1):
        yield
