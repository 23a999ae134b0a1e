"""``import isoline`` loads no heavy dependency; a method loads only what it needs.

Each check runs in a fresh interpreter (the test process has imported everything already).
Import speed itself is measured in ``benchmarks/import_time``, not asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

HEAVY = ("torch", "botorch", "gpytorch", "sklearn", "pandas", "matplotlib", "scipy", "optuna")


def _loaded_after(code: str) -> set[str]:
    """The modules of :data:`HEAVY` a fresh interpreter has imported after running ``code``."""
    probe = textwrap.dedent(code) + textwrap.dedent(f"""
        import json, sys
        print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))
        """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_isoline_loads_no_heavy_dependency() -> None:
    assert _loaded_after("import isoline; isoline.Box; isoline.Space; isoline.Store") == set()


def test_a_random_search_runs_without_torch() -> None:
    loaded = _loaded_after("""
        import isoline as iso
        res = iso.minimize(lambda x: float((x ** 2).sum()), iso.Box([-1, -1], [1, 1]),
                           method="random", budget=5, seed=0)
        assert res.n_evals == 5
        """)
    assert not loaded & {"torch", "botorch", "gpytorch", "sklearn", "pandas", "matplotlib"}


def test_a_gp_method_loads_torch_when_asked_for() -> None:
    assert {"torch", "botorch"} <= _loaded_after(
        "from isoline.methods.registry import get_method; get_method('gp-ei')"
    )
