"""Fixtures shared by the method tests."""

from __future__ import annotations

import pytest

from isoline.methods.gp_bo import GPEI


@pytest.fixture
def used(monkeypatch: pytest.MonkeyPatch) -> list[type]:
    """The classes of the acquisition functions gp-ei maximizes, in order."""
    seen: list[type] = []
    real = GPEI._maximize

    def record(self, acqf, q, sequential=False):  # type: ignore[no-untyped-def]
        seen.append(type(acqf))
        return real(self, acqf, q, sequential)

    monkeypatch.setattr(GPEI, "_maximize", record)
    return seen
