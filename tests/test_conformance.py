"""The conformance suite (:mod:`isoline.testing`) on every registered method.

Like Optuna's sampler tests and scikit-learn's common estimator checks: a method is added
to the registry and this suite runs on it with no further code.
"""

from __future__ import annotations

from typing import Any

import pytest

import isoline as iso
from isoline.testing import MethodConformance

METHODS = [m.name for m in iso.methods()]

#: smaller settings for the checks of behaviour (determinism, resume, failures, types,
#: batches), as in tests/methods/test_neural_methods.py; the check of the default options
#: and the gain check run the defaults. The same-seed check's 9-evaluation run (3-D bowl,
#: 4 initial points, modules already imported) took 9.2 s of CPU with DNGO's defaults (a
#: 500-epoch retraining, 512 raw samples and 10 restarts per proposal), 2.4-3.3 s with
#: these; 2.5-3.0 s with NeuralBO's (50,000 Sobol candidates), 1.1 s with 4096.
FAST: dict[str, dict[str, Any]] = {
    "dngo": dict(epochs=100, raw_samples=256, num_restarts=4),
    "neuralbo": dict(n_candidates=4096),
}


class TestEveryMethod(MethodConformance):
    @pytest.fixture(params=METHODS)
    def method(self, request: pytest.FixtureRequest) -> str:
        return str(request.param)

    @pytest.fixture
    def options(self, method: str) -> dict[str, Any]:
        return FAST.get(method, {})
