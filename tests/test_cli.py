from pathlib import Path

import pytest

from isoline.cli import main
from isoline.store import Store


def _bench(cfg: Path, db: str, out: Path) -> int:
    """``isoline bench CFG`` in this process, quietly."""
    return main(
        ["bench", str(cfg), "--storage", db, "--out", str(out), "--workers", "1", "--quiet"]
    )


def test_methods_and_problems_listings(capsys) -> None:
    assert main(["methods"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split()[0] for line in lines[1:] if line and line.split()[0] in _names()]
    assert rows == _names()  # one line per method, in order
    assert max(len(line) for line in lines) <= 80
    assert main(["problems"]) == 0
    assert "ackley" in capsys.readouterr().out


def _names() -> list[str]:
    import isoline as iso

    return [m.name for m in iso.methods()]


def test_methods_name_shows_options_with_defaults(capsys) -> None:
    assert main(["methods", "CMA-ES"]) == 0
    out = capsys.readouterr().out
    assert "sigma0 = 0.16666" in out and "initial step size" in out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert main(["methods", "cmaes"]) == 2
    assert "did you mean 'cma-es'" in capsys.readouterr().err


def test_run_stores_and_resumes(tmp_path, capsys) -> None:
    db = str(tmp_path / "r.db")
    args = ["run", "--problem", "rosenbrock", "--dim", "2", "--method", "cma-es", "--budget", "8",
            "--storage", db, "--study", "s", "--quiet", "-o", "sigma0=0.2"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "8 evaluations" in out and "simple regret" in out
    args[args.index("8")] = "12"
    assert main(args) == 0
    with Store(db) as store:
        assert len(store.trials(store.get_study("s"))) == 12


def test_run_a_typed_problem_prints_its_configuration(tmp_path, capsys) -> None:
    db = str(tmp_path / "t.db")
    args = ["run", "--problem", "hpo-sklearn", "-p", "model=kNN", "-p", "dataset=iris",
            "--method", "random", "--budget", "3", "--storage", db, "--quiet"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "'n_neighbors':" in out and "'p':" in out
    with Store(db) as store:
        assert store.get_study("hpo-sklearn-model=kNN-dataset=iris-2d/random/seed0") is not None


def test_run_bad_input_is_a_clear_error(tmp_path, capsys) -> None:
    assert main(["run", "--problem", "nope", "--storage", str(tmp_path / "r.db")]) == 2
    assert "unknown problem 'nope'" in capsys.readouterr().err
    code = main(["run", "--problem", "ackley", "--method", "random", "--budget", "0",
                 "--storage", str(tmp_path / "r.db"), "--quiet"])  # fmt: skip
    assert code == 2 and "budget" in capsys.readouterr().err


def test_help_is_available(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    assert "examples:" in capsys.readouterr().out


def test_report_of_chosen_seeds(tmp_path, capsys) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "name: t\nbudget: 4\nseeds: 3\nmethods: [random]\nproblems: [{name: rosenbrock, dim: 2}]\n"
    )
    db = str(tmp_path / "b.db")
    assert _bench(cfg, db, tmp_path / "all") == 0
    assert (
        main(["report", str(cfg), "--storage", db, "--out", str(tmp_path / "r"), "--seeds", "0,2"])
        == 0
    )
    text = (tmp_path / "r" / "report.md").read_text()
    assert "seeds [0, 2]," in text and "| random | 2 | 4 |" in text
    capsys.readouterr()
    for bad, says in (("0-4", "[3, 4] not among"), ("x", "'x' is not a seed")):
        assert (
            main(
                ["report", str(cfg), "--storage", db, "--out", str(tmp_path / "r"), "--seeds", bad]
            )
            == 2
        )
        assert says in capsys.readouterr().err


def test_report_of_chosen_problems(tmp_path, capsys) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("name: t\nbudget: 3\nseeds: 1\nmethods: [random]\nproblems:\n"
                   "  - {name: rosenbrock, dim: 2, label: Rosen D=2}\n"
                   "  - {name: levy, dim: 3, label: Levy D=3}\n")  # fmt: skip
    db = str(tmp_path / "b.db")
    assert _bench(cfg, db, tmp_path / "all") == 0
    out = tmp_path / "r"
    assert main(["report", str(cfg), "--storage", db, "--out", str(out), "--problems", "D=3$"]) == 0
    text = (out / "report.md").read_text()
    assert "## Levy D=3" in text and "Rosen" not in text
    capsys.readouterr()
    for bad, says in (
        ("D=4", "matches none of the config's problems"),
        ("(", "not a regular expression"),
    ):
        assert (
            main(["report", str(cfg), "--storage", db, "--out", str(out), "--problems", bad]) == 2
        )
        assert says in capsys.readouterr().err


def test_run_defaults_to_auto_and_says_what_it_chose(tmp_path, capsys) -> None:
    db = str(tmp_path / "a.db")
    args = ["run", "--problem", "rosenbrock", "--dim", "2", "--budget", "8",
            "--storage", db, "--study", "s", "--quiet"]  # fmt: skip
    assert main(args) == 0
    assert "method 'auto' chose 'cobyqa' (rule 'low-dim-local'" in capsys.readouterr().out
    noisy = ["run", "--problem", "rosenbrock", "--dim", "8", "--budget", "18", "--noise-std",
             "0.1", "--storage", db, "--study", "n", "--quiet"]  # fmt: skip
    assert main(noisy) == 0
    assert "chose 'turbo' (rule 'low-dim'" in capsys.readouterr().out


def test_bench_refuses_a_file_as_report_folder_before_running(tmp_path, capsys) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("budget: 2\nmethods: [random]\nproblems: [{name: ackley, dim: 2}]\n")
    out = tmp_path / "report.md"
    out.write_text("an existing file")
    db = tmp_path / "b.db"
    assert _bench(cfg, str(db), out) == 2
    assert "isoline bench: error: --out" in capsys.readouterr().err
    assert not db.exists()  # nothing ran


def test_report_of_a_missing_or_foreign_file_says_it_is_no_store(tmp_path, capsys) -> None:
    """A STORE that is missing or not SQLite is not taken for a config file."""
    (tmp_path / "junk.db").write_text("not a database")
    for name in ("missing.db", "junk.db"):
        assert main(["report", str(tmp_path / name), "--out", str(tmp_path / "r")]) == 2
        assert "no SQLite store there" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "missing.yaml"), "--out", str(tmp_path / "r")]) == 2
    assert f"config file {tmp_path / 'missing.yaml'} does not exist" in capsys.readouterr().err


def test_a_bad_config_lists_every_error_after_the_prefix(tmp_path, capsys) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("budget: 0\nmethods: [nope]\nproblems: [{name: ackley, dim: 2}]\n")
    assert _bench(cfg, str(tmp_path / "b.db"), tmp_path / "rep") == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"isoline bench: error: {cfg} has 2 errors:"
    assert err[1].startswith("  budget: ") and err[2].startswith("  methods[0] 'nope': ")


def test_every_error_exits_2_with_the_command_prefix(tmp_path, capsys) -> None:
    args = ["run", "--problem", "ackley", "-o", "beta", "--storage", str(tmp_path / "r.db")]
    assert main(args) == 2
    assert "isoline run: error: an option must be KEY=VALUE, got 'beta'" in capsys.readouterr().err
    assert main(["lattice", "--n", "8", "--d", "2", "--out", str(tmp_path / "p.txt")]) == 2
    assert "isoline lattice: error: --out must end in .csv or .npy" in capsys.readouterr().err


def test_version(capsys) -> None:
    import isoline

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.strip() == f"isoline {isoline.__version__}"
