"""Malformed-store benchmark: random malformed values written into every column of a real
store, then resume, report, merge and delete, which must end cleanly.

A short real run (random search, 3 evaluations, d = 2) makes the store. Each Hypothesis
example copies it, writes one malformed value (wrong types, huge or non-finite numbers,
deeply nested or non-JSON text, BLOBs, invalid UTF-8 text, a status outside the allowed
set) into one column of one row of ``meta``, ``studies`` or ``trials`` (CHECK
constraints off, as an editor could), and runs the four operations:

- resume: ``isoline.optimize`` on the study, one evaluation more;
- report: the study read back as a ``Result`` (``Store.get_study``, ``Store.trials``);
- merge: ``isoline merge TARGET STORE``;
- delete: ``isoline delete STORE --match .``.

Each API operation must succeed or raise ``StoreError``; each CLI command must exit 0,
or 1 or 2 with an ``isoline X: error:`` line. Any other exception is a failure (the
first one stops the run with its example, recorded in the result file). The counts by
outcome are printed as JSON.

With ``--constrained`` the study has one objective and one black-box constraint, so every
trial holds a row of outputs (the ``outputs`` column) for the values to land in.

The crafted stores live in /dev/shm (memory) when it is there: the same SQLite code runs,
without waiting for the disk to sync. A run can be split into chunks, each with its own
Hypothesis seed (different seeds draw different examples; the first, simplest draws of
each can coincide, which the count of distinct examples shows) and its own result
file, then summed:

    nice -n 10 .venv/bin/python benchmarks/reliability/store_fuzz.py --examples 1000 \
        --seed 1 --out fuzz_1.json
    .venv/bin/python benchmarks/reliability/store_fuzz.py --summarize fuzz_*.json
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import functools
import hashlib
import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Any

import hypothesis
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import isoline as iso
from isoline import cli as cli_module
from isoline.optimizer import Result
from isoline.store import Store, StoreError

cli = cli_module.main

BOX = iso.Box([-1.0, -1.0], [1.0, 1.0])
#: every column a malformed value is written into (table, column, row selector)
COLUMNS = [
    *(("meta", "value", f"key = '{k}'") for k in ("format", "version")),
    *(
        ("studies", c, "name = 's'")
        for c in ("name", "method", "seed", "batch_size", "options", "space", "budget",
                  "attrs", "created", "state_batch", "finished", "resume_format")
    ),
    *(
        ("trials", c, "number = 1")
        for c in ("number", "batch", "x", "u", "y", "status", "error", "info", "started",
                  "finished", "attempts", "outputs")
    ),
]  # fmt: skip
#: crafted values a random one rarely hits: deep nesting, wrong shapes, statuses, huge text
SPECIAL = [
    "[" * 100 + "]" * 100,
    "[" * 100_000 + "]" * 100_000,
    '{"a": ' * 100 + "1" + "}" * 100,
    "{}", "[]", "[1]", "[0.5, 0.5, 0.5]", '{"lower": [0], "upper": [1]}', '{"params": 1}',
    '"text"', "NaN", "1e999", "-1", "pending", "ok", "failed", "evil", "replay-2",
    "isoline-store", "99", "x" * 17_000_000,
]  # fmt: skip
VALUES = st.one_of(
    st.none(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.binary(max_size=30),
    st.sampled_from(SPECIAL),
)


def sphere(x: np.ndarray) -> float:
    return float(np.sum(np.asarray(x) ** 2))


def sphere_under_plane(x: np.ndarray) -> dict[str, float]:
    """``sphere`` as objective ``f`` under the constraint ``c = x_0 - 0.5 <= 0``."""
    return {"f": sphere(x), "c": float(x[0]) - 0.5}


def resume(path: str, budget: int, constrained: bool) -> None:
    """Run study ``s`` of ``path`` (random search, seed 1) to ``budget`` evaluations."""
    if constrained:
        iso.optimize(sphere_under_plane, BOX, method="random", budget=budget, seed=1,
                     storage=path, study="s", progress=False, objectives=["f"],
                     constraints=["c"])  # fmt: skip
    else:
        iso.optimize(sphere, BOX, method="random", budget=budget, seed=1, storage=path,
                     study="s", progress=False)  # fmt: skip


def make_store(folder: str, constrained: bool = False) -> str:
    """A real store: study ``s`` of 3 random-search evaluations."""
    path = os.path.join(folder, "pristine.db")
    resume(path, 3, constrained)
    return path


def craft(
    pristine: str, folder: str, where: tuple[str, str, str], value: Any, as_text: bool
) -> str | None:
    """A copy of ``pristine`` with ``value`` written into one column (a BLOB cast to TEXT
    with ``as_text``: text of invalid UTF-8), or None if SQLite refuses the value."""
    path = os.path.join(folder, "crafted.db")
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(path + suffix)
    shutil.copyfile(pristine, path)
    table, column, row = where
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA ignore_check_constraints = ON")
        slot = "CAST(? AS TEXT)" if as_text and isinstance(value, bytes) else "?"
        conn.execute(f"UPDATE {table} SET {column} = {slot} WHERE {row}", (value,))
    except (sqlite3.DatabaseError, OverflowError, UnicodeEncodeError):
        return None
    finally:
        conn.close()
    return path


def _api(op: str, fn: Any) -> str:
    try:
        fn()
    except StoreError:
        return f"{op}: StoreError"
    return f"{op}: ok"


def _cli(op: str, argv: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli(argv)
    if code != 0:
        assert code in (1, 2), f"isoline {op} exited {code}"
        assert f"isoline {op}: error:" in err.getvalue(), err.getvalue()
    return f"{op}: exit {code}"


def operations(path: str, folder: str, constrained: bool = False) -> list[str]:
    """Resume, report, merge and delete on ``path``; the outcome of each. A raw
    exception propagates (the benchmark's failure)."""

    def report() -> None:
        with Store(path, create=False, readonly=True) as store:
            rec = store.get_study("s")
            if rec is not None:
                Result.from_trials(rec, store.trials(rec), store.path)

    target = os.path.join(folder, "target.db")
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(target + suffix)
    return [
        _api("report", report),
        _cli("merge", ["merge", target, path]),
        _api("resume", lambda: resume(path, 4, constrained)),
        _cli("delete", ["delete", path, "--match", "."]),
    ]  # fmt: skip


def digest(where: tuple[str, str, str], value: Any, as_text: bool) -> str:
    """A short hash naming one example (to count distinct examples over chunks)."""
    text = repr((where, value, as_text)).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(text, digest_size=6).hexdigest()


def run(
    examples: int,
    counts: collections.Counter[str],
    folder: str,
    seed: int | None = None,
    every: Any = None,
    digests: set[str] | None = None,
    constrained: bool = False,
) -> None:
    """Run ``examples`` Hypothesis examples, counting outcomes into ``counts`` (and
    calling ``every()`` after each 100th example). With ``seed`` the draws are those of
    that seed (the same seed repeats them); without, Hypothesis picks a random seed."""
    pristine = make_store(folder, constrained)

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(where=st.sampled_from(COLUMNS), value=VALUES, as_text=st.booleans())
    def prop(where: tuple[str, str, str], value: Any, as_text: bool) -> None:
        counts["examples"] += 1
        if digests is not None:
            digests.add(digest(where, value, as_text))
        path = craft(pristine, folder, where, value, as_text)
        if path is None:
            counts["value refused by SQLite"] += 1
        else:
            counts["stores crafted"] += 1
            for outcome in operations(path, folder, constrained):
                counts[outcome] += 1
        if every is not None and counts["examples"] % 100 == 0:
            every()

    (prop if seed is None else hypothesis.seed(seed)(prop))()


def summarize(files: list[str]) -> dict[str, Any]:
    """The chunks' result files summed: examples and outcomes added up, distinct
    examples counted over the chunks that list their digests."""
    counts: collections.Counter[str] = collections.Counter()
    digests: set[str] = set()
    chunks, seconds, raw, listed = [], 0, 0, 0
    for name in files:
        with open(name) as fh:
            chunk = json.load(fh)
        counts.update(chunk["outcomes"])
        seconds += chunk["seconds"]
        raw += chunk["raw exceptions"]
        if "digests" in chunk:
            digests.update(chunk["digests"])
            listed += chunk["outcomes"].get("examples", 0)
        chunks.append({"file": os.path.basename(name), "seed": chunk.get("seed"),
                       "commit": chunk["commit"], "examples": chunk["outcomes"]["examples"],
                       "finished": chunk["finished"]})  # fmt: skip
    return {
        "chunks": chunks,
        "examples": counts["examples"],
        "raw exceptions": raw,
        "distinct examples": {"of examples with digests": listed, "distinct": len(digests)},
        "outcomes": dict(sorted(counts.items())),
        "seconds": seconds,
        "seconds per example": round(seconds / max(counts["examples"], 1), 3),
    }


def _commit() -> str:
    """The checkout's short commit, ``+dirty`` if the script or the library differ."""
    here = os.path.dirname(os.path.abspath(__file__))
    git = ["git", "-C", here]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=False).stdout.strip()  # fmt: skip
    dirty = subprocess.run([*git, "status", "--porcelain", "--", "../../src", "."],
                           capture_output=True, text=True, check=False).stdout.strip()  # fmt: skip
    return head + ("+dirty" if dirty else "")


def _temp_root(asked: str | None) -> str | None:
    """Where the crafted stores live: ``asked``, else /dev/shm (memory: no disk syncs)
    when it is there, else the system's temp folder."""
    if asked is not None:
        return asked
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, help="Hypothesis seed (a chunk; default random)")
    parser.add_argument("--out", help="write the result JSON here too")
    parser.add_argument("--tmp", help="folder for the crafted stores (default /dev/shm)")
    parser.add_argument(
        "--constrained",
        action="store_true",
        help="a study with an objective and a constraint (rows of outputs)",
    )
    parser.add_argument("--summarize", nargs="+", metavar="FILE",
                        help="sum the result files of several chunks and stop")  # fmt: skip
    args = parser.parse_args()
    if args.summarize:
        text = json.dumps(summarize(args.summarize), indent=1)
        print(text)
        if args.out:
            with open(args.out, "w") as fh:
                fh.write(text + "\n")
        return
    # The CLI builds its argparse parser (and reads the package version) on every call:
    # half of an example's time. One parser serves every call here (not on import: tests
    # load this module): parse_args makes a fresh namespace each time, so the commands see
    # exactly the arguments a fresh parser gives.
    cli_module.build_parser = functools.cache(cli_module.build_parser)
    counts: collections.Counter[str] = collections.Counter()
    digests: set[str] = set()
    failure: list[str] = []
    start, cpu_start = time.time(), time.process_time()
    commit = _commit()
    root = _temp_root(args.tmp)

    def write(done: bool = False) -> None:
        seconds = time.time() - start
        cpu = time.process_time() - cpu_start
        result = {
            "command": " ".join(["python", *sys.argv]),
            "commit": commit,
            "isoline": os.path.dirname(iso.__file__),
            "seed": args.seed,
            "constrained": args.constrained,
            "temp folder": root or tempfile.gettempdir(),
            "examples asked": args.examples,
            "finished": done,
            "raw exceptions": len(failure),
            **({"failure": failure[0]} if failure else {}),
            "outcomes": dict(sorted(counts.items())),
            "seconds": round(seconds),
            "seconds per example": round(seconds / max(counts["examples"], 1), 3),
            "cpu seconds per example": round(cpu / max(counts["examples"], 1), 3),
            "distinct examples": len(digests),
            "digests": sorted(digests),
        }
        if done:
            print(json.dumps({k: v for k, v in result.items() if k != "digests"}, indent=1))
        if args.out:
            with open(args.out, "w") as fh:
                fh.write(json.dumps(result, indent=1) + "\n")

    with tempfile.TemporaryDirectory(prefix="isoline-fuzz-", dir=root) as folder:
        try:
            run(
                args.examples,
                counts,
                folder,
                seed=args.seed,
                every=write,
                digests=digests,
                constrained=args.constrained,
            )
        except Exception:
            # a raw exception (Hypothesis has shrunk it): recorded, then the run stops
            failure.append(traceback.format_exc()[-6000:])
            write()
            raise
    write(done=True)


if __name__ == "__main__":
    main()
