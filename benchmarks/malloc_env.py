"""What glibc's malloc settings cost a run: system time and page faults, with and without
``MALLOC_MMAP_THRESHOLD_`` / ``MALLOC_TRIM_THRESHOLD_`` (as ``make test`` and ``make demo``
set them).

    python benchmarks/malloc_env.py --methods neuralbo dngo gp-ei bkop --repeats 2 \
        --out benchmarks/results/malloc.md

Each run is ``minimize`` on the 6-D bowl of :mod:`isoline.testing` with 40 evaluations and
seed 0 (the size of the conformance suite's gain check), in a fresh process; the table gives
its user and system CPU seconds, wall seconds and minor page faults (``getrusage`` of the
child), and whether its points equal those of the run without the settings.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SETTINGS = {"MALLOC_MMAP_THRESHOLD_": "1073741824", "MALLOC_TRIM_THRESHOLD_": "1073741824"}
CHILD = """
import json, sys
import numpy as np
import isoline as iso
from isoline.testing import _box, bowl
res = iso.minimize(bowl, _box(6), sys.argv[1], budget=40, seed=0)
json.dump(np.asarray(res.x_iters).tolist(), open(sys.argv[2], "w"))
"""


def run(method: str, tuned: bool) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    if tuned:
        env.update(SETTINGS)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "x.json"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", CHILD, method, str(out)], env=env, check=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        points = json.loads(out.read_text())
    return {
        "user": after.ru_utime - before.ru_utime,
        "sys": after.ru_stime - before.ru_stime,
        "wall": wall,
        "faults": after.ru_minflt - before.ru_minflt,
        "points": points,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--methods", nargs="+", default=["neuralbo", "dngo", "gp-ei", "bkop"])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--note", default="", help="what else ran on the machine, for the report")
    args = ap.parse_args(argv)
    rows = ["| method | malloc settings | user s | system s | wall s | minor faults | same points |",
            "|---|---|---|---|---|---|---|"]  # fmt: skip
    for method in args.methods:
        for _ in range(args.repeats):
            plain, tuned = run(method, False), run(method, True)
            for name, r in (("glibc defaults", plain), ("make's", tuned)):
                same = "yes" if r["points"] == plain["points"] else "no"
                rows.append(
                    f"| {method} | {name} | {r['user']:.1f} | {r['sys']:.1f} | {r['wall']:.1f} |"
                    f" {r['faults']:,} | {same} |"
                )
                print(rows[-1], flush=True)
    if args.out:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()  # fmt: skip
        command = shlex.join(["python", "benchmarks/malloc_env.py", *(argv or sys.argv[1:])])
        args.out.write_text(
            "# glibc malloc settings and a run's cost\n\n"
            f"`{command}` at {commit}, {time.strftime('%Y-%m-%d %H:%M')}. {args.note}\n\n"
            + (__doc__ or "").split("\n\n", 2)[2].strip()
            + "\n\n"
            + "\n".join(rows)
            + "\n"
        )


if __name__ == "__main__":
    main()
