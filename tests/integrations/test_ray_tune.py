"""The Ray Tune example runs isoline through OptunaSearch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_ray_tune_example_runs_isoline(tmp_path) -> None:
    pytest.importorskip("ray", reason='needs the ray extra: pip install "isoline[ray]"')
    example = Path(__file__).resolve().parents[2] / "examples" / "ray_tune_isoline.py"
    out = subprocess.run(
        [sys.executable, str(example), "--method", "gp-ei", "--samples", "6",
         "--storage", str(tmp_path / "ray")],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    assert "6 trials; best loss" in out.stdout and "'layers':" in out.stdout


@pytest.mark.slow
def test_ray_tune_example_with_two_metrics(tmp_path) -> None:
    pytest.importorskip("ray", reason='needs the ray extra: pip install "isoline[ray]"')
    from isoline.methods.registry import get_method

    method = "gp-ei" if get_method("gp-ei").max_objectives > 1 else "random"
    example = Path(__file__).resolve().parents[2] / "examples" / "ray_tune_isoline.py"
    out = subprocess.run(
        [sys.executable, str(example), "--two-metrics", "--method", method, "--samples", "6",
         "--storage", str(tmp_path / "ray")],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    assert "6 trials; Pareto front of" in out.stdout and "'layers':" in out.stdout
