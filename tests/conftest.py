"""Test-session hooks shared by every test module."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the tests marked ``slow`` first (in their collected order).

    ``make test`` spreads the tests over two xdist workers; a long test that starts last
    leaves one worker idle while the other finishes it, and longest-first keeps that tail
    short.
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
