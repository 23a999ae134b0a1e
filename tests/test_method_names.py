"""Method names: one resolution (case-insensitive, "did you mean") behind every entry point,
and the registry's table of method modules."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import isoline as iso
from isoline.bench.config import parse_config
from isoline.cli import main
from isoline.methods import registry
from isoline.methods.registry import MODULES, get_method, resolve_name


def sphere(x) -> float:
    return float((x**2).sum())


def test_names_are_matched_case_insensitively() -> None:
    assert resolve_name("GP-EI") == "gp-ei"
    assert resolve_name("Auto") == "auto"
    assert get_method("TuRBO") is get_method("turbo")
    assert get_method("Optuna-TPE").name == "optuna-tpe"
    opt = iso.Optimizer(iso.Box([0, 0], [1, 1]), "CMA-ES", seed=0)
    assert opt.method_name == "cma-es"
    res = iso.minimize(sphere, iso.Box([0], [1]), method="Random", budget=3)
    assert res.method == "random"


@pytest.mark.parametrize(
    "typo,suggestion", [("gp_ei", "gp-ei"), ("turbbo", "turbo"), ("cmaes", "cma-es")]
)
def test_an_unknown_name_suggests_the_closest(typo: str, suggestion: str) -> None:
    with pytest.raises(ValueError, match=f"unknown method '{typo}'; did you mean '{suggestion}'"):
        iso.minimize(sphere, iso.Box([0], [1]), method=typo, budget=3)
    with pytest.raises(ValueError, match=f"did you mean '{suggestion}'"):
        iso.Optimizer(iso.Box([0], [1]), typo)


def test_the_error_does_not_list_every_name() -> None:
    with pytest.raises(ValueError) as err:
        resolve_name("zzz")
    assert "did you mean" not in str(err.value) and "gp-ucb-pe" not in str(err.value)
    with pytest.raises(TypeError, match="method must be a name"):
        resolve_name(3)
    with pytest.raises(ValueError, match="no class"):
        get_method("auto")


def test_cli_and_bench_configs_resolve_names(tmp_path, capsys) -> None:
    db = str(tmp_path / "r.db")
    args = ["run", "--problem", "ackley", "--dim", "2", "--method", "Random", "--budget", "3",
            "--storage", db, "--quiet"]  # fmt: skip
    assert main(args) == 0
    assert "/random/seed0" in capsys.readouterr().out
    cfg = parse_config({"budget": 3, "methods": ["SOBOL"], "problems": ["ackley"]})
    assert cfg.methods[0].name == "sobol"
    with pytest.raises(ValueError, match="did you mean 'sobol'"):
        parse_config({"budget": 3, "methods": ["sobl"], "problems": ["ackley"]})


def test_the_module_table_names_every_registered_method() -> None:
    package = importlib.import_module("isoline.methods")
    for mod in pkgutil.walk_packages(package.__path__, "isoline.methods."):
        importlib.import_module(mod.name)
    from isoline.methods.peers import PEERS

    own = {
        n: c.__module__
        for n, c in registry._REGISTRY.items()
        if c.__module__.startswith("isoline.")
    }
    peers = {n: c.__module__ for n, c in PEERS.items()}
    assert {**own, **peers} == MODULES
