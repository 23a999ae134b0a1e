"""A benchmark config is checked completely before any run starts, every error at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from isoline.bench.config import ConfigError, load_config, parse_config
from isoline.bench.runner import run_bench

BAD = {
    "name": "t",
    "budget": 10**20,
    "seeds": [0, -1],
    "methods": [
        "random",
        "gp-eii",
        {"name": "cma-es", "options": {"sigma0": -1.0}},
        {"name": "gp-ei", "options": {"kernl": "rbf"}},
    ],
    "problems": [
        {"name": "ackley", "dim": 2},
        "nope",
        {"name": "levy", "dim": 0},
        {"name": "rosenbrock", "dim": 2, "bogus": 3},
    ],
}


def test_every_error_of_a_config_is_listed_at_once_naming_its_entry() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(BAD)
    errors = info.value.errors
    expected = [
        "budget: budget must be an integer in [1, 9223372036854775807]",
        "seeds: each seed must be an integer in [0, ",
        "methods[1] 'gp-eii': unknown method 'gp-eii'",
        "problems[1] 'nope': unknown problem 'nope'",
        "problems[2] 'levy': dim=0 is not allowed",
        "problems[3] 'rosenbrock-d2-bogus=3': unknown option(s) ['bogus']",
        "methods[2] 'cma-es' on ackley-d2: sigma0 must be",
        "methods[3] 'gp-ei' on ackley-d2: unknown option(s) ['kernl']",
    ]
    assert len(errors) == len(expected)
    for start, line in zip(expected, errors):
        assert line.startswith(start), line
    text = str(info.value)
    assert text.startswith("config has 8 errors:") and text.count("\n") == 8


def test_run_bench_builds_every_problem_and_method_before_the_first_run(tmp_path) -> None:
    cfg = parse_config(
        {
            "name": "t",
            "budget": 4,
            "methods": ["random", {"name": "cobyqa", "batch_size": 2},
                        {"name": "minucb", "options": {"lengthscale": "from-problem"}}],
            "problems": [{"name": "ackley", "dim": 2}, {"name": "rosenbrock", "dim": 2,
                                                         "bounds": "wide"}],
        }
    )  # fmt: skip
    db = tmp_path / "b.db"
    with pytest.raises(ConfigError) as info:
        run_bench(cfg, str(db), workers=1, progress=False)
    errors = info.value.errors
    assert errors[0].startswith("problems[1] 'rosenbrock-d2-bounds=wide': ")
    assert errors[1].startswith(
        "methods[1] 'cobyqa' on ackley-d2: method 'cobyqa' does not support"
    )
    assert errors[2].startswith("methods[2] 'minucb' on ackley-d2: option lengthscale")
    assert len(errors) == 3
    assert not db.exists()  # nothing ran, not even the store was made


@pytest.mark.parametrize(
    "text, where",
    [
        ("name: t\nbudget: 3\nmethods: [random\nproblems: x: y\n", "line 4, column 9"),
        ("name: t\nbudget: 3\nmethods:\n  - random\n - x\n", "line 5, column 2"),
    ],
)
def test_bad_yaml_names_the_line_column_and_text(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    (line,) = info.value.errors
    bad = text.splitlines()[int(where.split()[1].rstrip(",")) - 1].strip()
    assert where in line and repr(bad) in line and not line.rstrip().endswith("^")
    assert str(info.value).count("\n") == 1


def test_an_error_every_problem_gives_a_method_is_listed_once() -> None:
    cfg = parse_config(
        {"name": "t", "budget": 4, "methods": [{"name": "cma-es", "options": {"sigma0": -1.0}}],
         "problems": [{"name": "ackley", "dim": 2}, {"name": "levy", "dim": 3}]}
    )  # fmt: skip
    from isoline.bench.preflight import run_errors

    (line,) = run_errors(cfg)
    assert line.startswith("methods[0] 'cma-es': sigma0 must be")


def test_run_of_takes_a_problem_of_the_config_with_any_seed() -> None:
    cfg = parse_config({
        "name": "c", "budget": 9, "seeds": [0, 1], "methods": ["random", "sobol"],
        "problems": [{"name": "levy", "dim": 2, "label": "s2"},
                     {"name": "levy", "dim": 3, "budget": 12, "label": "s3"}],
    })  # fmt: skip
    spec = cfg.run_of("s3", 40)  # a seed the config does not list
    assert (spec.problem.label, spec.seed, spec.budget, spec.method.name) == (
        "s3",
        40,
        12,
        "random",
    )
    with pytest.raises(ValueError, match="no problem 's4'"):
        cfg.run_of("s4", 0)
