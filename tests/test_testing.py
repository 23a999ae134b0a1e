"""isoline.testing runs on a method defined outside the package, and catches a broken one."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

EXTERNAL = '''
import numpy as np
import pytest

from isoline.methods.base import Method
from isoline.methods.registry import register
from isoline.testing import MethodConformance


@register
class ShrinkingSearch(Method):
    """Uniform points in a box around the best point that shrinks as data arrive."""

    name = "shrinking-search"
    needs_data = False

    def propose(self, q):
        best = self.best
        centre = np.full(self.dim, 0.5) if best is None else best[0]
        width = 0.5 ** (1 + len(self.y) / 10)
        X = centre + width * (2 * self.rng.random((q, self.dim)) - 1)
        return {POINTS}


class TestShrinkingSearch(MethodConformance):
    @pytest.fixture
    def method(self):
        return "shrinking-search"
'''


def _run(tmp_path: Path, points: str, *select: str) -> subprocess.CompletedProcess[str]:
    test = tmp_path / "test_external.py"
    test.write_text(textwrap.dedent(EXTERNAL.replace("{POINTS}", points)))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "-o", "addopts=", *select, str(test)],
        capture_output=True, text=True, cwd=tmp_path, timeout=600,
    )  # fmt: skip


@pytest.mark.slow
def test_external_method_passes(tmp_path: Path) -> None:
    out = _run(tmp_path, "np.clip(X, 0.0, 1.0)")
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    # every check the suite collects runs and passes: pytest's summary counts each collected
    # test under one outcome (and collection errors, deselections), so it names "passed" only
    assert set(outcomes(out.stdout)) <= {"passed", "warning", "warnings"}, out.stdout[-3000:]
    assert outcomes(out.stdout).get("passed", 0) >= 10


def outcomes(stdout: str) -> dict[str, int]:
    """The outcome counts of a pytest run's last summary line ("3 passed, 1 skipped in ...")."""
    last = stdout.strip().splitlines()[-1]
    return {kind: int(n) for n, kind in re.findall(r"(\d+) (\w+)", last.split(" in ")[0])}


def test_the_outcome_counts_are_read_from_the_summary() -> None:
    assert outcomes("..\n12 passed in 3.10s") == {"passed": 12}
    assert outcomes("s.\n1 passed, 1 skipped, 2 warnings in 0.5s") == {
        "passed": 1, "skipped": 1, "warnings": 2}  # fmt: skip
    assert outcomes("E\n1 error in 0.1s") == {"error": 1}
    assert outcomes("..\n2 passed, 3 deselected in 1.0s") == {"passed": 2, "deselected": 3}


def test_broken_method_fails_the_checks(tmp_path: Path) -> None:
    # every point of a batch is the same: the batch check must fail
    out = _run(tmp_path, "np.repeat(np.clip(X[:1], 0.0, 1.0), q, axis=0)", "-k", "batches")
    assert out.returncode == 1
    assert "test_batches" in out.stdout and "a batch repeats a point" in out.stdout
