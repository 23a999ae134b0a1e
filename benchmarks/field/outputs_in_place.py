"""A several-objective contender ranked in another's place on a suite's committed finals.

For the multi-objective suites, whose summaries (``field.py summary``) commit each run's
hypervolume (``shown`` in ``finals.npz``): the hypervolumes of ``--variant`` from a second
summary's ``finals.npz`` (the same cells, run later) replace those of ``--base`` in the
suite's, and every contender is ranked by hypervolume in each cell (rank 1 = largest; the
rank the suite's log hypervolume difference gives, ties at the floor kept). Prints the mean
rank of each contender with a 95% bootstrap interval over cells, and the variant's paired
counts and one-sided Wilcoxon tests against the base and the first of the others. The
random-search columns of both files are checked to be equal on every cell (the same
seeded runs), so that the cells are known to match::

    python benchmarks/field/outputs_in_place.py \
        --suite benchmarks/results/field/multiobjective/finals.npz \
        --later benchmarks/results/field/multiobjective/auto_now/botorch/finals.npz \
        --base 'isoline auto' --variant 'auto now'

``--problems RE`` keeps only the cells whose problem label matches RE. For a constrained
suite, ``--smaller`` ranks by the best feasible value (``shown``; rank 1 =
the smallest, a run with no feasible point last), for minimized objectives.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from isoline.bench.ranks import cell_ranks, mean_interval  # noqa: E402


def _load(path: str) -> tuple[list[str], list[str], np.ndarray]:
    with np.load(path) as f:
        return [str(x) for x in f["labels"]], [str(c) for c in f["cells"]], np.array(f["shown"])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--suite", required=True, help="the suite's finals.npz (the base in it)")
    ap.add_argument("--later", required=True, help="finals.npz holding the variant")
    ap.add_argument("--base", required=True)
    ap.add_argument("--variant", required=True)
    ap.add_argument("--problems", default=None, metavar="RE",
                    help="only the cells whose problem label matches RE")  # fmt: skip
    ap.add_argument("--smaller", action="store_true",
                    help="rank 1 = the smallest value (best feasible values, minimized)")  # fmt: skip
    args = ap.parse_args(argv)
    labels, cells, H = _load(args.suite)
    later_labels, later_cells, G = _load(args.later)
    row = {c: i for i, c in enumerate(later_cells)}
    if set(cells) - set(row):
        raise SystemExit(f"{args.later} lacks cells {sorted(set(cells) - set(row))[:5]}")
    G = G[[row[c] for c in cells]]
    if args.problems is not None:
        kept = [i for i, c in enumerate(cells) if re.search(args.problems, c.rsplit("/", 1)[0])]
        cells, H, G = [cells[i] for i in kept], H[kept], G[kept]
    r_old, r_new = labels.index("random"), later_labels.index("random")
    if not np.array_equal(H[:, r_old], G[:, r_new]):
        raise SystemExit("the random-search runs differ: the cells are not the same")
    b = labels.index(args.base)
    H = H.copy()
    old, H[:, b] = H[:, b].copy(), G[:, later_labels.index(args.variant)]
    sign = 1.0 if args.smaller else -1.0  # ranks of sign * H: rank 1 = the best value
    ranks = cell_ranks(sign * H)
    mean, lo, hi = mean_interval(ranks)
    what = "smallest value" if args.smaller else "largest hypervolume"
    print(f"{len(cells)} cells; {args.variant!r} in {args.base!r}'s place; rank 1 = {what}")
    print("| contender | mean rank [95% CI] |\n|---|---|")
    for j in np.argsort(mean):
        name = args.variant if j == b else labels[j]
        print(f"| {name} | {mean[j]:.2f} [{lo[j]:.2f}, {hi[j]:.2f}] |")
    first = min((j for j in range(len(labels)) if j != b), key=lambda j: mean[j])
    better, worse = ("smaller", "larger") if args.smaller else ("larger", "smaller")
    for other, name in ((old, f"{args.base} (the earlier runs)"), (H[:, first], labels[first])):
        x, y = sign * H[:, b], sign * other  # lower is better
        if args.smaller:  # no feasible point (inf) stays worse than any value, paired too
            x, y = _finite_last(x, y)
        up, down = int((x < y).sum()), int((x > y).sum())
        p = stats.wilcoxon(x, y, alternative="less").pvalue if up + down else np.nan
        print(f"{args.variant} against {name}: {better} in {up}, {worse} in {down}; "
              f"one-sided Wilcoxon ({better}) p = {p:.3g}")  # fmt: skip


def _finite_last(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``x``, ``y`` with each ``inf`` replaced by a value above every finite one of both,
    so that the Wilcoxon test ranks a cell without a feasible point as the worst."""
    both = np.concatenate([x, y])
    finite = both[np.isfinite(both)]
    top = (finite.max() + abs(finite.max()) + 1.0) if finite.size else 1.0
    return np.where(np.isfinite(x), x, top), np.where(np.isfinite(y), y, top)


if __name__ == "__main__":
    main()
