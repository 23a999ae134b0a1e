"""Fixtures of the benchmark-script tests."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import pytest


@pytest.fixture
def script(request: pytest.FixtureRequest) -> ModuleType:
    """The benchmark script at the test module's ``SCRIPT`` path, loaded as a module."""
    path = request.module.SCRIPT
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
