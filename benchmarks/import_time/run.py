"""Import time of ``import isoline`` against ``import optuna``, in fresh interpreters.

Each repeat starts one new Python process per module (the order alternates between
repeats, so a busy machine slows both alike) and times the ``import`` statement inside
it with ``time.perf_counter`` (interpreter start-up, the same for both, is left out; the
whole process's wall time is reported beside it). After the repeats, one more process per
module runs with ``-X importtime`` and the report lists the imports that took longest.

    python benchmarks/import_time/run.py --repeats 20 \
        --out benchmarks/results/import_time/report.md
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

_PROBE = "import time; t = time.perf_counter(); import {m}; print(time.perf_counter() - t)"


def time_import(module: str) -> tuple[float, float]:
    """``(import seconds, process wall seconds)`` of ``import module`` in a new interpreter."""
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(m=module)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    wall = time.perf_counter() - start
    return float(out.stdout.strip()), wall


def importtime_top(module: str, n: int = 10) -> list[tuple[str, float, float]]:
    """``(name, self ms, cumulative ms)`` of the ``n`` slowest imports below ``module``,
    from one ``-X importtime`` run (children of the top import and their children)."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    block: list[tuple[str, float, float]] = []
    rows: list[tuple[str, float, float]] = []
    for line in out.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)", line)
        if m is None:
            continue
        depth = len(m.group(3)) // 2
        if depth == 0:  # a top-level import: the lines before it since the last one are its own
            if m.group(4) == module:
                rows = block
            block = []
        elif depth <= 2:
            name = "  " * (depth - 1) + m.group(4)
            block.append((name, int(m.group(1)) / 1e3, int(m.group(2)) / 1e3))
    return sorted(rows, key=lambda r: -r[2])[:n]


def _quantiles(xs: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], statistics.median(xs), q[2]


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--modules", nargs="+", default=["isoline", "optuna"])
    ap.add_argument("--out", type=Path, help="write the markdown report here")
    args = ap.parse_args()
    if args.repeats < 2:
        ap.error("--repeats must be at least 2 (quartiles)")

    times: dict[str, list[float]] = {m: [] for m in args.modules}
    walls: dict[str, list[float]] = {m: [] for m in args.modules}
    load_before = os.getloadavg()
    for r in range(args.repeats):
        order = args.modules if r % 2 == 0 else args.modules[::-1]
        for m in order:
            t, w = time_import(m)
            times[m].append(t)
            walls[m].append(w)
    load_after = os.getloadavg()

    commit = _git("rev-parse", "--short", "HEAD")
    dirty = " (with uncommitted changes)" if _git("status", "--porcelain", "src") else ""
    lines = [
        "# Import time: `import isoline` against `import optuna`",
        "",
        f"Command: `python benchmarks/import_time/run.py --repeats {args.repeats}"
        + (f" --out {args.out}`" if args.out else "`"),
        "",
        f"Commit {commit}{dirty}; Python {platform.python_version()}, {os.cpu_count()} cores, "
        f"load average {load_before[0]:.1f} before and {load_after[0]:.1f} after the repeats "
        "(the machine is shared).",
        "",
        f"{args.repeats} fresh interpreters per module, alternating. *import* is the `import` "
        "statement alone (perf_counter inside the process); *process* is the whole process's "
        "wall time, start-up included. Milliseconds: median, and quartiles [25%, 75%].",
        "",
        "| module | version | import median | import [25%, 75%] | min | max | process median |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for m in args.modules:
        lo, med, hi = _quantiles(times[m])
        version = metadata.version(m)
        lines.append(
            f"| `{m}` | {version} | {med * 1e3:.0f} | [{lo * 1e3:.0f}, {hi * 1e3:.0f}] | "
            f"{min(times[m]) * 1e3:.0f} | {max(times[m]) * 1e3:.0f} | "
            f"{statistics.median(walls[m]) * 1e3:.0f} |"
        )
    if len(args.modules) == 2:
        a, b = args.modules
        ratio = statistics.median(times[a]) / statistics.median(times[b])
        lines += ["", f"Median ratio `{a}` / `{b}`: {ratio:.2f}."]
    for m in args.modules:
        lines += [
            "",
            f"## Slowest imports under `import {m}` (one `-X importtime` run)",
            "",
            "| import | self ms | cumulative ms |",
            "|---|---:|---:|",
        ]
        for name, self_ms, cum_ms in importtime_top(m):
            lines.append(f"| `{name}` | {self_ms:.1f} | {cum_ms:.1f} |")
    text = "\n".join(lines) + "\n"
    if args.out is None:
        print(text)
    else:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
        print(text)


if __name__ == "__main__":
    main()
