"""One contender on two presentations of the same problems, paired by seed.

    python benchmarks/field/presentations.py benchmarks/field/hpo_logit.yaml --storage S \
        --suffix ' linear' --contender 'isoline gp-ei' --reference 'Optuna GP'

A config lists each problem twice: as ``P`` and as ``P`` + ``suffix`` (e.g. the same
hpo-sklearn problem with ``logit: false``). For every seed where the contender finished
both, the pair (final on ``P`` + suffix, final on ``P``) counts; the cells where the
suffixed presentation is lower and higher, per problem and pooled, with the paired
one-sided Wilcoxon test that it is lower. ``--reference``: each presentation's
contender against the reference's run on ``P``, paired the same way.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from field import _final  # noqa: E402
from pooled_pairs import _print, _print_problems  # noqa: E402

from isoline.bench.config import BenchConfig, load_config  # noqa: E402
from isoline.bench.report import collect  # noqa: E402


def finals(cfg: BenchConfig, storage: str) -> dict[tuple[str, int, str], float]:
    """``(problem label, seed, contender label) -> final value`` of every complete run."""
    budgets = {p.label: p.budget or cfg.budget for p in cfg.problems}
    return {
        (r.spec.problem.label, r.spec.seed, r.spec.method.label): _final(r)
        for r in collect(cfg, storage)
        if len(r.values) >= budgets[r.spec.problem.label]
    }


def paired(
    final: dict[tuple[str, int, str], float],
    bases: list[str],
    first: tuple[str, str],
    second: tuple[str, str],
) -> tuple[list[str], np.ndarray]:
    """Cells ``problem/seedN`` and ``(cells, 2)`` finals of ``first`` and ``second``, each
    ``(label suffix, contender)``, over the base problems and seeds where both finished."""
    seeds = sorted({seed for _, seed, _ in final})
    cells, rows = [], []
    for base in bases:
        for seed in seeds:
            a = final.get((base + first[0], seed, first[1]))
            b = final.get((base + second[0], seed, second[1]))
            if a is not None and b is not None:
                cells.append(f"{base}/seed{seed}")
                rows.append((a, b))
    return cells, np.array(rows, dtype=float).reshape(-1, 2)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("--storage", required=True)
    ap.add_argument("--suffix", required=True, help="label suffix of the second presentation")
    ap.add_argument("--contender", required=True)
    ap.add_argument("--reference", help="a contender run on the unsuffixed problems")
    args = ap.parse_args(argv)
    if not args.suffix:
        ap.error("--suffix must not be empty")
    cfg = load_config(args.config)
    final = finals(cfg, args.storage)
    labels = [p.label for p in cfg.problems]
    bases = [lab for lab in labels if lab + args.suffix in labels]
    if not bases:
        ap.error(f"no problem of {args.config} has a twin labelled with {args.suffix!r}")
    comparisons = [
        (f"{args.contender}, '{args.suffix.strip()}' against as given",
         (args.suffix, args.contender), ("", args.contender)),
    ]  # fmt: skip
    if args.reference:
        for suffix, name in (("", "as given"), (args.suffix, args.suffix.strip())):
            comparisons.append(
                (
                    f"{args.contender} {name} against {args.reference}",
                    (suffix, args.contender),
                    ("", args.reference),
                )
            )
    for title, first, second in comparisons:
        cells, pairs = paired(final, bases, first, second)
        if not cells:
            print(f"{title}: no seed has both runs complete")
            continue
        _print(title, pairs, "the first")
        _print_problems(cells, pairs, "the first")


if __name__ == "__main__":
    main()
