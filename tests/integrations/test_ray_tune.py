"""The Ray Tune example runs isoline through OptunaSearch, with one metric and with two."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

#: runs the example's command line twice in one process, so that Ray starts once
_BOTH = """
import runpy, sys
example, storage, method = sys.argv[1:4]
for extra, sub in (([], "one"), (["--two-metrics"], "two")):
    sys.argv = [example, "--method", method, "--samples", "6", "--storage", storage + sub, *extra]
    runpy.run_path(example, run_name="__main__")
"""


@pytest.mark.slow
def test_ray_tune_example_with_one_and_two_metrics(tmp_path) -> None:
    pytest.importorskip("ray", reason='needs the ray extra: pip install "isoline[ray]"')
    from isoline.methods.registry import get_method

    assert get_method("gp-ei").max_objectives > 1
    example = Path(__file__).resolve().parents[2] / "examples" / "ray_tune_isoline.py"
    out = subprocess.run(
        [sys.executable, "-c", _BOTH, str(example), str(tmp_path / "ray"), "gp-ei"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    assert "6 trials; best loss" in out.stdout and "'layers':" in out.stdout
    assert "6 trials; Pareto front of" in out.stdout
