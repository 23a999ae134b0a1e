"""One contender against another, paired over the complete cells of several suites.

    python benchmarks/field/pooled_pairs.py --pair 'isoline gp-ei' 'isoline bkop' \
        --suite benchmarks/field/hpo_batch_rule.yaml S1 5-9 \
        --suite benchmarks/field/hpo_batch8.yaml S2 0-4 --rename 'isoline auto=isoline bkop'
    python benchmarks/field/pooled_pairs.py --pair 'isoline gp-ei' 'isoline bkop' \
        --finals benchmarks/results/field/hpo_batch_rule/finals.npz \
        --suite benchmarks/field/hpo_batch8.yaml S2 0-4

For each suite (config, store, seeds) the cells where both contenders finished (only the
two and random need to be complete), or a summary's committed ``finals.npz`` (``--finals``:
final values per cell, written by ``field.py summary``); per suite and pooled: cells where the first is lower
and higher, and the paired one-sided Wilcoxon test that the first is lower. ``--rename``
maps a suite's label to the pair's (e.g. auto, when it ran one of them). ``--by-problem``
also prints the counts of each problem (a cell is named ``problem/seedN``).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

from field import _cells, _contenders  # noqa: E402

from isoline.bench.config import load_config  # noqa: E402
from isoline.bench.report import collect  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pair", nargs=2, required=True, metavar=("FIRST", "SECOND"))
    ap.add_argument("--suite", nargs=3, action="append", default=[],
                    metavar=("CONFIG", "STORE", "SEEDS"))  # fmt: skip
    ap.add_argument("--finals", action="append", default=[], metavar="NPZ")
    ap.add_argument("--rename", action="append", default=[], help="LABEL=PAIR_LABEL")
    ap.add_argument("--by-problem", action="store_true", help="counts per problem too")
    args = ap.parse_args(argv)
    rename = dict(r.split("=", 1) for r in args.rename)
    first, second = args.pair
    if not args.suite and not args.finals:
        ap.error("give at least one --suite or --finals")
    pooled: list[np.ndarray] = []
    for path in args.finals:
        with np.load(path) as f:
            labels, F, cells = [str(x) for x in f["labels"]], f["F"], [str(c) for c in f["cells"]]
        col = {rename.get(lab, lab): j for j, lab in enumerate(labels)}
        missing = [x for x in args.pair if x not in col]
        if missing:
            ap.error(f"{path} has no contender {missing} (it has {labels})")
        pairs = F[:, [col[first], col[second]]]
        pooled.append(pairs)
        _print(path, pairs, first)
        if args.by_problem:
            _print_problems(cells, pairs, first)
    for config, store, seeds in args.suite:
        cfg = load_config(config).subset(seeds=seeds)
        wanted = {
            lab for lab in (m.label for m in cfg.methods) if rename.get(lab, lab) in args.pair
        }
        pattern = "^(" + "|".join(re.escape(x) for x in sorted(wanted | {"random"})) + ")$"
        cfg = _contenders(cfg, pattern)
        labels, cells, F, _ = _cells(cfg, collect(cfg, store))
        col = {rename.get(lab, lab): j for j, lab in enumerate(labels)}
        pairs = F[:, [col[first], col[second]]]
        pooled.append(pairs)
        _print(f"{config} seeds {seeds}", pairs, first)
        if args.by_problem:
            _print_problems([f"{p}/seed{s}" for p, s in cells], pairs, first)
    _print("pooled", np.vstack(pooled), first)


def _print(name: str, pairs: np.ndarray, first: str) -> None:
    a, b = pairs[:, 0], pairs[:, 1]
    p = stats.wilcoxon(a, b, alternative="less").pvalue if np.any(a != b) else float("nan")
    print(
        f"{name}: {len(a)} cells, {first} lower in {int((a < b).sum())}, "
        f"higher in {int((a > b).sum())}, one-sided Wilcoxon p = {p:.3g}"
    )


def _print_problems(cells: list[str], pairs: np.ndarray, first: str) -> None:
    problems = sorted({c.rsplit("/", 1)[0] for c in cells})
    for problem in problems:
        rows = [i for i, c in enumerate(cells) if c.rsplit("/", 1)[0] == problem]
        a, b = pairs[rows, 0], pairs[rows, 1]
        print(f"  {problem}: {first} lower in {int((a < b).sum())}, higher in {int((a > b).sum())}"
              f" of {len(rows)}")  # fmt: skip


if __name__ == "__main__":
    main()
