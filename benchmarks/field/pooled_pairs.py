"""One contender against another, paired over the complete cells of several suites.

    python benchmarks/field/pooled_pairs.py --pair 'isoline gp-ei' 'isoline bkop' \
        --suite benchmarks/field/hpo_batch_rule.yaml S1 5-9 \
        --suite benchmarks/field/hpo_batch8.yaml S2 0-4 --rename 'isoline auto=isoline bkop'
    python benchmarks/field/pooled_pairs.py --pair 'isoline gp-ei' 'isoline bkop' \
        --finals benchmarks/results/field/hpo_batch_rule/finals.npz \
        --suite benchmarks/field/hpo_batch8.yaml S2 0-4

For each suite (config, store, seeds) the cells where both contenders finished (only the
two and random need to be complete), or a summary's committed ``finals.npz`` (``--finals``:
final values per cell, written by ``field.py summary``; for a suite with several outputs
its paired tests' value, e.g. the log hypervolume difference); per suite and pooled: cells where the first is lower
and higher, and the paired one-sided Wilcoxon test that the first is lower. ``--rename``
maps a suite's label to the pair's (e.g. auto, when it ran one of them). ``--by-problem``
also prints the counts of each problem (a cell is named ``problem/seedN``); with
``--scores`` (``--finals`` only) each problem's mean bayesmark score of the two as well
(0 = the best value of any contender in the file's cell, 1 = random search's median on the
problem; cells where random's median is the best value and a contender missed it are
left out), which says how far apart they are where the counts say only which is lower.
``--problems RE`` keeps only the cells whose problem label matches the regular expression.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

from field import _cells, _contenders, _random_median  # noqa: E402

from isoline.bench.config import load_config  # noqa: E402
from isoline.bench.ranks import normalized_scores  # noqa: E402
from isoline.bench.report import collect  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pair", nargs=2, required=True, metavar=("FIRST", "SECOND"))
    ap.add_argument("--suite", nargs=3, action="append", default=[],
                    metavar=("CONFIG", "STORE", "SEEDS"))  # fmt: skip
    ap.add_argument("--finals", action="append", default=[], metavar="NPZ")
    ap.add_argument("--rename", action="append", default=[], help="LABEL=PAIR_LABEL")
    ap.add_argument("--by-problem", action="store_true", help="counts per problem too")
    ap.add_argument("--scores", action="store_true", help="with --by-problem: mean scores")
    ap.add_argument("--problems", default=None, metavar="RE",
                    help="only the cells whose problem label matches RE")  # fmt: skip
    args = ap.parse_args(argv)
    if args.scores and (args.suite or not args.by_problem):
        ap.error("--scores needs --by-problem and --finals only (no --suite)")
    rename = dict(r.split("=", 1) for r in args.rename)
    first, second = args.pair
    if not args.suite and not args.finals:
        ap.error("give at least one --suite or --finals")
    pooled: list[np.ndarray] = []
    for path in args.finals:
        with np.load(path) as f:
            labels, cells = [str(x) for x in f["labels"]], [str(c) for c in f["cells"]]
            F = f["F"] if "F" in f.files else f["stat"]  # outputs_summary.py: the tests' value
        kept = _matching([c.rsplit("/", 1)[0] for c in cells], args.problems)
        cells, F = [cells[i] for i in kept], F[kept]
        col = {rename.get(lab, lab): j for j, lab in enumerate(labels)}
        missing = [x for x in args.pair if x not in col]
        if missing:
            ap.error(f"{path} has no contender {missing} (it has {labels})")
        pairs = F[:, [col[first], col[second]]]
        pooled.append(pairs)
        _print(path, pairs, first)
        scores = None
        if args.scores:
            if "random" not in labels:
                ap.error(f"{path} has no random contender to score against")
            table = normalized_scores(F, _random_median(_problem_seeds(cells), F, labels))
            scores = table[:, [col[first], col[second]]]
        if args.by_problem:
            _print_problems(cells, pairs, first, scores)
    for config, store, seeds in args.suite:
        cfg = load_config(config).subset(seeds=seeds)
        wanted = {
            lab for lab in (m.label for m in cfg.methods) if rename.get(lab, lab) in args.pair
        }
        pattern = "^(" + "|".join(re.escape(x) for x in sorted(wanted | {"random"})) + ")$"
        cfg = _contenders(cfg, pattern)
        labels, cells, F, _ = _cells(cfg, collect(cfg, store))
        kept = _matching([p for p, _ in cells], args.problems)
        cells, F = [cells[i] for i in kept], F[kept]
        col = {rename.get(lab, lab): j for j, lab in enumerate(labels)}
        pairs = F[:, [col[first], col[second]]]
        pooled.append(pairs)
        _print(f"{config} seeds {seeds}", pairs, first)
        if args.by_problem:
            _print_problems([f"{p}/seed{s}" for p, s in cells], pairs, first)
    _print("pooled", np.vstack(pooled), first)


def _matching(problems: list[str], pattern: str | None) -> list[int]:
    """Indices of the ``problems`` that match ``pattern`` (all of them when ``None``)."""
    return [i for i, p in enumerate(problems) if pattern is None or re.search(pattern, p)]


def _print(name: str, pairs: np.ndarray, first: str) -> None:
    a, b = pairs[:, 0], pairs[:, 1]
    p = stats.wilcoxon(a, b, alternative="less").pvalue if np.any(a != b) else float("nan")
    print(
        f"{name}: {len(a)} cells, {first} lower in {int((a < b).sum())}, "
        f"higher in {int((a > b).sum())}, one-sided Wilcoxon p = {p:.3g}"
    )


def _problem_seeds(cells: list[str]) -> list[tuple[str, int]]:
    """``problem/seedN`` cell names as ``(problem, N)``."""
    out = []
    for c in cells:
        problem, seed = c.rsplit("/", 1)
        out.append((problem, int(seed.removeprefix("seed"))))
    return out


def _print_problems(
    cells: list[str], pairs: np.ndarray, first: str, scores: np.ndarray | None = None
) -> None:
    problems = sorted({c.rsplit("/", 1)[0] for c in cells})
    for problem in problems:
        rows = [i for i, c in enumerate(cells) if c.rsplit("/", 1)[0] == problem]
        a, b = pairs[rows, 0], pairs[rows, 1]
        line = (f"  {problem}: {first} lower in {int((a < b).sum())}, "
                f"higher in {int((a > b).sum())} of {len(rows)}")  # fmt: skip
        if scores is not None:
            s = scores[rows]
            kept = ~np.isnan(s).any(axis=1)
            line += (f"; mean score {s[kept, 0].mean():.3g} against {s[kept, 1].mean():.3g}"
                     f" ({int(kept.sum())} cells scored)" if kept.any() else "; no cell scored")  # fmt: skip
        print(line)


if __name__ == "__main__":
    main()
