"""Repeated evaluations and final values of one contender in two stores, run by run.

    python benchmarks/field/repeats.py BEFORE.db AFTER.db --match '/isoline gp-ei/' \
        [--md OUT.md]

For every study whose name matches in both stores: how many evaluations hit a point
evaluated before in the same run, and the run's best value (both stores ran the same
problems and seeds, so raw values are compared). A paired one-sided Wilcoxon test over
the runs whose best changed asks whether AFTER's are lower.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np
from scipy import stats

from isoline.bench.report import git_commit
from isoline.bench.stats import to_markdown
from isoline.store import Store


def _runs(path: str, rx: re.Pattern[str]) -> dict[str, tuple[int, float, int]]:
    out = {}
    with Store(path, create=False, readonly=True) as store:
        for rec in store.studies():
            if not rx.search(rec.name) or not rec.finished:
                continue
            trials = [t for t in store.trials(rec) if t.status == "ok" and t.y is not None]
            seen: set[bytes] = set()
            repeats = 0
            for t in trials:
                key = np.asarray(t.u, dtype=float).tobytes()
                repeats += key in seen
                seen.add(key)
            out[rec.name] = (repeats, min(t.y for t in trials), len(trials))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--match", required=True, help="regular expression on study names")
    ap.add_argument("--md")
    args = ap.parse_args()
    rx = re.compile(args.match)
    a, b = _runs(args.before, rx), _runs(args.after, rx)
    names = sorted(set(a) & set(b))
    if not names:
        raise SystemExit("no finished study matches in both stores")
    rows = [{"study": n, "repeats before": a[n][0], "repeats after": b[n][0],
             "best before": a[n][1], "best after": b[n][1]} for n in names]  # fmt: skip
    fa = np.array([a[n][1] for n in names])
    fb = np.array([b[n][1] for n in names])
    changed = fa != fb
    p = (
        stats.wilcoxon(fb[changed], fa[changed], alternative="less").pvalue
        if changed.sum()
        else np.nan
    )
    text = "\n".join([
        f"# Repeated evaluations: `{args.match}`", "",
        f"`python benchmarks/field/repeats.py {args.before} {args.after} --match '{args.match}'` at {git_commit()}.", "",
        f"{len(names)} runs; repeats {sum(a[n][0] for n in names)} before, {sum(b[n][0] for n in names)} after; "
        f"runs whose final changed: {int(changed.sum())}, lower after in {int((fb < fa).sum())}; "
        f"paired one-sided Wilcoxon (after < before) over the changed runs p = {p:.3g}.", "",
        to_markdown(rows), "",
    ])  # fmt: skip
    print(text)
    if args.md:
        Path(args.md).write_text(text)


if __name__ == "__main__":
    main()
