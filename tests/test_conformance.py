"""The conformance suite (:mod:`isoline.testing`) on every registered method.

Like Optuna's sampler tests and scikit-learn's common estimator checks: a method is added
to the registry and this suite runs on it with no further code.
"""

from __future__ import annotations

import pytest

import isoline as iso
from isoline.testing import MethodConformance

METHODS = [m.name for m in iso.methods()]


class TestEveryMethod(MethodConformance):
    @pytest.fixture(params=METHODS)
    def method(self, request: pytest.FixtureRequest) -> str:
        return str(request.param)
