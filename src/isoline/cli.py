"""The ``isoline`` command line: run, bench, report, merge, delete, unlock, methods, problems,
lattice."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from isoline.auto import AUTO

EPILOG = """examples:
  isoline methods [NAME]                            list the methods; NAME's options
  isoline problems                                  list the benchmark problems
  isoline run --problem ackley --dim 5 --method gp-ei --budget 40
  isoline run --problem levy --dim 6 --method cma-es --budget 200 --study my-run
  isoline run --problem hpo-sklearn -p model=RF -p dataset=digits --budget 40
  isoline run --problem vehicle-safety --method gp-ei --budget 30   (Pareto front, hypervolume)
                                                    (run it again to resume after Ctrl-C)
  isoline bench src/isoline/configs/demo.yaml --out report/
  isoline report src/isoline/configs/demo.yaml --out report/
  isoline report runs.db my-study --out report/     plots and summary of one study
  isoline merge all.db machine-a.db machine-b.db   copy finished studies into all.db
  isoline delete runs.db --match '/auto/' --dry-run  list the studies it would delete
  isoline unlock runs.db my-run                     clear the lease of a stopped or lost run
  isoline lattice --n 1000 --d 10 --method alg7 --out points.csv
"""


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _options(pairs: Sequence[str]) -> dict[str, Any]:
    bad = [p for p in pairs if "=" not in p]
    if bad:
        raise ValueError(f"an option must be KEY=VALUE, got {bad[0]!r}")
    return {k.strip(): _parse_value(v) for k, v in (p.split("=", 1) for p in pairs)}


def cmd_methods(args: argparse.Namespace) -> int:
    from isoline.listing import method_page, methods_table

    print(methods_table() if args.name is None else method_page(args.name))
    return 0


def cmd_problems(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from isoline import problems

    table = Table(title="isoline problems (choose with --problem NAME --dim D)")
    for col in ("name", "dimensions", "description"):
        table.add_column(col)
    for entry in problems.available():
        name, desc, dims = entry[0], entry[1], entry[2]
        table.add_row(str(name), str(dims), str(desc))
    Console().print(table)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    import isoline as iso
    from isoline.bench import problem_spec as spec
    from isoline.bench.runner import ProblemObjective
    from isoline.methods.registry import resolve_name
    from isoline.problems.base import is_noisy

    args.method = resolve_name(args.method)
    kwargs: dict[str, Any] = {"seed": args.seed}
    if args.dim is not None:
        kwargs["dim"] = args.dim
    if args.noise_std:
        kwargs["noise_std"] = args.noise_std
    problem = iso.problems.get(args.problem, **kwargs, **_options(args.problem_option))
    objective = spec.cli_objective(problem, args.direction, args.directions)
    ref, ref_source = spec.reference_for(problem, objective, args.ref_point)
    tag = "".join(f"-{k}={v}" for k, v in _options(args.problem_option).items())
    study = args.study or f"{args.problem}{tag}-{problem.dim}d/{args.method}/seed{args.seed}"
    options = _options(args.option)
    if args.method == AUTO:
        options.setdefault("noisy", is_noisy(problem))
    res = iso.optimize(
        ProblemObjective(problem),
        problem.space,
        direction=objective,
        method=args.method,
        budget=args.budget,
        seed=args.seed,
        batch_size=args.batch_size,
        executor=args.executor,
        storage=args.storage,
        study=study,
        progress=not args.quiet,
        timeout=args.timeout,
        max_time=args.max_time,
        **options,
    )
    if res.choice is not None:
        print(f"method 'auto' chose {res.method!r} (rule {res.choice.rule!r}: "
              f"{res.choice.when})")  # fmt: skip
    print(f"study {res.study!r} in {res.storage}: {res.n_evals} evaluations, {res.n_failed} failed")
    if res.stop_reason.startswith("max_time"):
        print(f"stopped: {res.stop_reason}")
    for line in spec.outcome_lines(res, problem, ref, ref_source):
        print(line)
    if ref is not None and args.storage is not None:
        spec.record_reference(args.storage, res.study, ref, ref_source)
    if objective.n_objectives == 1 and res.feasible_found:
        if isinstance(res.x, np.ndarray):
            print(f"best value {res.fun:.6g} at x = {np.array2string(res.x, precision=5)}")
        else:
            print(f"best value {res.fun:.6g} at {res.x}")
        opt = getattr(problem, "optimum", None)
        if opt is not None and res.direction == "minimize":
            print(f"known optimum {opt:.6g}; simple regret {res.fun - opt:.4g}")
    if args.plot:
        import matplotlib

        from isoline.visualization import plot_hypervolume_history

        matplotlib.use("Agg")
        several = objective.n_objectives > 1 and res.feasible_found
        ax = plot_hypervolume_history(res, ref=ref) if several else res.plot()
        ax.figure.savefig(args.plot, dpi=110)
        print(f"plot written to {args.plot}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from isoline.bench.config import load_config
    from isoline.bench.report import write_report
    from isoline.bench.runner import report_crashes, run_bench

    _check_out_dir(args.out)
    cfg = load_config(args.config)
    runs = cfg.runs()
    print(f"{cfg.name}: {len(cfg.methods)} methods x {len(cfg.problems)} problems x "
          f"{len(cfg.seeds)} seeds = {len(runs)} runs into {args.storage}")  # fmt: skip
    out = run_bench(cfg, args.storage, workers=args.workers, dask_address=args.dask,
                    progress=not args.quiet)  # fmt: skip
    path = write_report(cfg, args.storage, args.out, command=" ".join(["isoline", *sys.argv[1:]]))
    print(f"report written to {path} (plots beside it)")
    return report_crashes(out, prefix="isoline bench: error: ")


def _check_out_dir(out: str) -> None:
    """Refuse a report folder that cannot be made, before anything runs."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ValueError(f"--out {out} is a file; the report is a folder (report.md and plots)")
    parent = path.absolute()
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"--out {out}: {parent} is a file, so the folder cannot be made")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"--out {out}: no permission to write in {parent}")


def cmd_report(args: argparse.Namespace) -> int:
    from isoline.bench.config import load_config
    from isoline.bench.report import write_report

    _check_out_dir(args.out)
    if args.study is not None or _is_sqlite(args.target):
        return _study_report(args)
    if Path(args.target).suffix.lower() not in (".yaml", ".yml", ".toml"):
        raise ValueError(f"{args.target}: no SQLite store there, nor a .yaml/.yml/.toml config")
    if args.ref_point is not None:
        raise ValueError("--ref-point applies to the report of one study (STORE STUDY)")
    cfg = load_config(args.target).subset(seeds=args.seeds, problems=args.problems)
    path = write_report(cfg, args.storage, args.out, command=" ".join(["isoline", *sys.argv[1:]]))
    print(f"report written to {path}")
    return 0


def _is_sqlite(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def _study_report(args: argparse.Namespace) -> int:
    """``isoline report STORE STUDY``: the plots and summary of one study."""
    import matplotlib

    from isoline.bench.problem_spec import stored_reference
    from isoline.results import load
    from isoline.store import Store
    from isoline.visualization import write_study_report

    if args.study is None:
        with Store(args.target, create=False, readonly=True) as store:
            names = [s.name for s in store.studies()]
        if len(names) != 1:
            shown = ", ".join(map(repr, names[:5])) + (" ..." if len(names) > 5 else "")
            raise ValueError(f"{args.target} holds {len(names)} studies: name the study to "
                             f"report, isoline report {args.target} STUDY ({shown or 'none'})")  # fmt: skip
        args.study = names[0]
    if args.seeds is not None or args.problems is not None:
        raise ValueError("--seeds and --problems select the runs of a benchmark config, "
                         "not of one study")  # fmt: skip
    matplotlib.use("Agg")
    result = load(args.target, args.study)
    ref, source = stored_reference(args.target, args.study, result.objective, args.ref_point)
    path = write_study_report(result, args.out, command=" ".join(["isoline", *sys.argv[1:]]),
                              ref=ref, ref_source=source)  # fmt: skip
    print(f"report of study {args.study!r} written to {path} (plots beside it)")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from contextlib import ExitStack

    from isoline.store import Store

    refused = 0
    with ExitStack() as stack:
        # every source opens (or the command fails) before anything is copied
        sources = [
            (path, stack.enter_context(Store(path, create=False, readonly=True)))
            for path in args.sources
        ]
        target = stack.enter_context(Store(args.target))
        for path, source in sources:
            out = target.copy_studies(source, unfinished=args.unfinished, prefix=args.prefix)
            print(
                f"{path}: copied {len(out.copied)} studies into {args.target}"
                + (f"; {len(out.skipped)} already there, left as they are" if out.skipped else "")
                + (f"; refused {len(out.refused)}" if out.refused else "")
            )
            for name in out.copied:
                print(f"  copied {_shown(name)}")
            for name in out.skipped:  # the target's study of that name is kept, even if other
                print(f"  left {_shown(name)}: {args.target} has a study of that name")
            for name, reason in out.refused:
                print(f"  refused {_shown(name)}: {_shown(reason)}")
            refused += len(out.refused)
    if refused:
        print(
            f"isoline merge: error: {refused} studies refused (malformed; nothing of them "
            "was copied), the others copied",
            file=sys.stderr,
        )
        return 1
    return 0


def _shown(text: str) -> str:
    """``text`` printable on any terminal (a stored name may hold invalid UTF-8 bytes,
    read as surrogate escapes: they are shown as ``\\xNN``)."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def cmd_delete(args: argparse.Namespace) -> int:
    import re

    from isoline.store import Store, StoreError

    if not args.names and args.match is None:
        raise ValueError("name the studies to delete, or give --match REGEX")
    try:
        pattern = re.compile(args.match) if args.match is not None else None
    except re.error as err:
        raise ValueError(f"--match {args.match!r} is not a regular expression: {err}") from err
    with Store(args.store, create=False, readonly=args.dry_run) as store:
        names = list(args.names)
        if pattern is not None:
            names += [n for n in store.study_names() if pattern.search(n)]
        if not names:
            print(f"no study of {args.store} matches {args.match!r}")
            return 0
        if args.dry_run:
            missing = [n for n in names if store.study_id(n) is None]
            if missing:
                raise StoreError(f"no study {_shown(missing[0])!r} in {args.store}")
        else:
            store.delete_studies(names)
    verb = "would delete" if args.dry_run else "deleted"
    print(f"{verb} {len(names)} studies of {args.store}:")
    for name in names:
        print(f"  {_shown(name)}")
    return 0


def cmd_unlock(args: argparse.Namespace) -> int:
    from isoline.store import Store

    with Store(args.store, create=False) as store:
        was = store.unlock(args.study, force=args.force)
    if was:
        print(f"removed the lease of study {args.study!r} held by {was}")
    else:
        print(f"study {args.study!r} of {args.store} has no lease; nothing to remove")
    return 0


def cmd_lattice(args: argparse.Namespace) -> int:
    from isoline.designs.lattice import rank1_lattice

    if args.out and Path(args.out).suffix not in (".csv", ".npy"):  # before the search
        raise ValueError(f"--out must end in .csv or .npy, got {Path(args.out).name}")
    lat = rank1_lattice(args.n, args.d, method=args.method, seed=args.seed)
    print(f"generator: {' '.join(str(int(g)) for g in lat.generator)}")
    print(f"min distance (toroidal): {lat.min_distance:.6f}")
    if args.out:
        out = Path(args.out)
        if out.suffix == ".npy":
            np.save(out, lat.points)
        elif out.suffix == ".csv":
            np.savetxt(out, lat.points, delimiter=",", fmt="%.17g")
        else:
            raise ValueError(f"--out must end in .csv or .npy, got {out.name}")
        print(f"{lat.points.shape[0]} points written to {out}")
    return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("isoline")
    except PackageNotFoundError:  # a source tree on sys.path, not installed
        from isoline import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="isoline",
        description="Minimize expensive black-box functions in few evaluations, and "
        "benchmark optimizers. isoline minimizes; runs are stored in SQLite and resume.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"isoline {_version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("methods", help="list the methods, or one method's options")
    s.add_argument("name", nargs="?", help="a method (its options and defaults), or 'auto' "
                   "(its rules)")  # fmt: skip
    s.set_defaults(func=cmd_methods)
    s = sub.add_parser("problems", help="list benchmark problems")
    s.set_defaults(func=cmd_problems)

    s = sub.add_parser("run", help="minimize one benchmark problem with one method")
    s.add_argument("--problem", required=True, help="problem name (see `isoline problems`)")
    s.add_argument("--dim", type=int, help="problem dimension (if the problem has a choice)")
    s.add_argument("--noise-std", type=float, default=0.0, help="Gaussian observation noise")
    s.add_argument("--method", default=AUTO,
                   help="method name, or 'auto' (default; see `isoline methods`)")  # fmt: skip
    s.add_argument("--budget", type=int, default=50, help="number of evaluations")
    s.add_argument("--direction", default=None,
                   help="minimize (default) or maximize the problem's value")  # fmt: skip
    s.add_argument("--directions", metavar="D1,D2,...",
                   help="one direction per objective of a problem with several, e.g. "
                        "minimize,maximize (default: the problem's own, all minimize)")  # fmt: skip
    s.add_argument("--ref-point", metavar="R1,R2,...",
                   help="hypervolume reference point, one number per objective (default: "
                        "the problem's own, else inferred from the Pareto front)")  # fmt: skip
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--batch-size", type=int, default=1)
    s.add_argument("--executor", choices=["process", "thread"], default=None,
                   help="evaluate each batch in parallel in a process or thread pool")  # fmt: skip
    s.add_argument("--storage", default="isoline.db", help="SQLite file (default isoline.db)")
    s.add_argument("--study", help="run name in the store; an existing name resumes it")
    s.add_argument(
        "--problem-option",
        "-p",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="problem option, e.g. -p model=RF -p dataset=digits (repeatable)",
    )
    s.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                   help="method option, value parsed as JSON (repeatable), e.g. -o beta=2")  # fmt: skip
    s.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="an evaluation running longer fails (it runs in a worker process)")  # fmt: skip
    s.add_argument("--max-time", type=float, metavar="SECONDS",
                   help="stop the run cleanly after this time (run again to resume)")  # fmt: skip
    s.add_argument("--plot", help="write a convergence plot PNG here")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_run)

    s = sub.add_parser(
        "bench", help="run a benchmark config (methods x problems x seeds) and report"
    )
    s.add_argument("config", help="YAML or TOML config file")
    s.add_argument("--storage", default="isoline.db", help="SQLite file (default isoline.db)")
    s.add_argument("--out", default="report", help="report folder (default ./report)")
    s.add_argument("--workers", type=int, default=2, help="parallel worker processes")
    s.add_argument("--dask", metavar="ADDRESS", help="Dask scheduler address instead of processes")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_bench)

    s = sub.add_parser(
        "report",
        help="write the report of one study (STORE STUDY: its plots and a summary) or of a "
        "benchmark config (CONFIG, from --storage)",
    )
    s.add_argument("target", metavar="STORE|CONFIG",
                   help="a store, followed by STUDY; or a benchmark YAML or TOML config")  # fmt: skip
    s.add_argument("study", nargs="?", metavar="STUDY",
                   help="the study of STORE to report (may be left out if STORE holds one)")  # fmt: skip
    s.add_argument("--storage", default="isoline.db", help="a config's store (default isoline.db)")
    s.add_argument("--out", default="report", help="report folder (default ./report)")
    s.add_argument("--seeds", help="report only these seeds, e.g. 0-5 or 0,2,7 (finished seeds "
                   "of a bench that is still running or was stopped)")  # fmt: skip
    s.add_argument("--problems", metavar="REGEX",
                   help="report only the problems whose label matches, e.g. 'D=(10|20)$'")  # fmt: skip
    s.add_argument("--ref-point", metavar="R1,R2,...",
                   help="a study's hypervolume reference point, one number per objective "
                        "(default: the one its `isoline run` used, else inferred from the "
                        "Pareto front)")  # fmt: skip
    s.set_defaults(func=cmd_report)

    s = sub.add_parser("merge", help="copy the studies of other stores into one store")
    s.add_argument("target", help="SQLite store to copy into (created if missing)")
    s.add_argument("sources", nargs="+", help="stores to copy from (read only)")
    s.add_argument("--prefix", default="", help="copy only studies whose name starts with this")
    s.add_argument("--unfinished", action="store_true",
                   help="also copy unfinished studies (they resume in the target)")  # fmt: skip
    s.set_defaults(func=cmd_merge)

    s = sub.add_parser("delete", help="delete studies from a store, to run them again")
    s.add_argument("store", help="SQLite store")
    s.add_argument("names", nargs="*", help="names of the studies to delete")
    s.add_argument("--match", metavar="REGEX",
                   help="also delete every study whose name matches, e.g. '/isoline auto/'")  # fmt: skip
    s.add_argument("--dry-run", action="store_true",
                   help="list the studies that would be deleted; delete nothing")  # fmt: skip
    s.set_defaults(func=cmd_delete)

    s = sub.add_parser(
        "unlock", help="remove the lease of a study whose run is stopped, gone or stuck"
    )
    s.add_argument("store", help="SQLite store")
    s.add_argument("study", help="name of the study")
    s.add_argument("--force", action="store_true",
                   help="remove it even from a run that is alive and heartbeating (that run "
                   "then stops at its next write)")  # fmt: skip
    s.set_defaults(func=cmd_unlock)

    s = sub.add_parser("lattice", help="build a rank-1 lattice of maximal separation")
    s.add_argument("--n", type=int, required=True, help="number of points")
    s.add_argument("--d", type=int, required=True, help="dimension")
    s.add_argument("--method", default="best", help="korobov, alg6, scs, alg7 or best")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--out", help="write the points to this .csv or .npy file")
    s.set_defaults(func=cmd_lattice)
    return p


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if threading.current_thread() is threading.main_thread():
        # SIGTERM (kill, a batch scheduler) ends a run like Ctrl-C: workers are stopped
        previous = signal.signal(signal.SIGTERM, _interrupt)
    else:
        previous = None
    from isoline.runs import ObjectiveError
    from isoline.store import StoreError

    try:
        return int(args.func(args))
    except (ValueError, TypeError, OSError, ImportError, StoreError, ObjectiveError) as e:
        print(f"isoline {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; every finished evaluation is stored; run the same command to resume",
              file=sys.stderr)  # fmt: skip
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
