"""Test-session hooks shared by every test module."""

from __future__ import annotations

import os
import sys

import pytest

# One OpenMP/BLAS thread per test process (and the subprocesses tests start), as every
# proposal already runs (isoline.threads.single_threaded). make test runs two xdist workers
# on two cores: torch's default of one thread per core gave each worker two threads that
# mostly busy-wait for each other, and the direct model and acquisition calls of the tests
# (outside Method.ask) then took about 3x the CPU time (the mixed-space greedy-batch test:
# 70 s of CPU with the default, 24 s with one thread). Set before torch or numpy is loaded.
os.environ.setdefault("OMP_NUM_THREADS", "1")
if "torch" in sys.modules:  # a plugin loaded it first: the variable is read at start-up
    sys.modules["torch"].set_num_threads(1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests marked ``slow`` first (in their collected order).

    ``make test-slow`` (and a bare ``pytest``, which runs every test) spreads them over
    two xdist workers; a long test that starts last leaves one worker idle while the other
    finishes it, and longest-first keeps that tail short. ``make test`` leaves them out.
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
