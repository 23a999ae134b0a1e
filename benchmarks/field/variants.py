"""Variants of one contender on a field suite, each judged in that contender's place.

    python benchmarks/field/variants.py benchmarks/field/hpo_ingredients.yaml --storage S \
        --base 'isoline gp-ei' --variants '^gp-ei ' --out benchmarks/results/field/hpo_ingredients

For every contender whose label matches ``--variants`` (options of the ``--base``
contender), on the cells every contender finished: its mean rank among the suite's other
contenders when it replaces the base (auto and the other variants left out; 95% bootstrap
interval over cells), its mean normalized score, and the paired comparison with the base
(cells better and worse, one-sided Wilcoxon signed-rank test that it is lower,
Benjamini-Hochberg over the variants); then the mean rank per problem among the base, the
variants and the reference contender. The commit and command are written beside the tables.

With ``--finals NPZ`` (a summary's committed ``finals.npz``) the base and the other
contenders come from that file, whose store need not be at hand, and the store holds only
the variants; the cells are those both have::

    python benchmarks/field/variants.py benchmarks/field/bbob_seed.yaml --storage S \
        --finals benchmarks/results/field/bbob/finals.npz --seeds 0-2 \
        --base 'isoline cobyqa' --variants '^cobyqa ' --out benchmarks/results/field/bbob_seed
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

from field import (  # noqa: E402
    TIME_REFERENCE,
    _cells,
    _contenders,
    _direction_note,
    _random_median,
)

from isoline.bench.config import load_config  # noqa: E402
from isoline.bench.ranks import (  # noqa: E402
    cell_ranks,
    mean_interval,
    normalized_scores,
)
from isoline.bench.report import collect, git_commit  # noqa: E402
from isoline.bench.stats import benjamini_hochberg, to_markdown  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("--storage", required=True)
    ap.add_argument("--base", required=True, help="label of the contender the variants modify")
    ap.add_argument("--variants", required=True, help="regular expression on variant labels")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seeds", help="only these seeds, e.g. 5-9")
    ap.add_argument("--problems", help="regular expression on problem labels: only these")
    ap.add_argument("--methods", help="regular expression on contender labels: only these")
    ap.add_argument("--name", default="variants.md", help="file written in --out")
    ap.add_argument("--finals", help="finals.npz holding the base and the other contenders")
    args = ap.parse_args(argv)
    full = load_config(args.config).subset(seeds=args.seeds, problems=args.problems)
    cfg = _contenders(full, args.variants if args.finals else args.methods)
    labels, cells, F, _ = _cells(cfg, collect(cfg, args.storage))
    if args.finals:
        labels, cells, F = _with_finals(args.finals, labels, cells, F)
    if not cells:
        raise SystemExit("no cell has a complete run of every contender yet")
    var = [j for j, lab in enumerate(labels) if re.search(args.variants, lab)]
    if args.base not in labels:
        raise SystemExit(f"no contender {args.base!r} (there are {labels})")
    base = labels.index(args.base)
    auto = full.auto_index
    auto = None if auto is None or full.methods[auto].label not in labels else (
        labels.index(full.methods[auto].label)
    )  # fmt: skip
    others = [j for j in range(len(labels)) if j not in var and j not in (base, auto)]
    med = _random_median(cells, F, labels)
    rows, pvals, p_higher = [], [], []
    for j in [base, *var]:
        mean, lo, hi = mean_interval(cell_ranks(np.column_stack([F[:, others], F[:, j]]))[:, -1])
        score = normalized_scores(np.column_stack([F[:, others], F[:, j]]), med)[:, -1]
        diff = F[:, j] - F[:, base]
        p = (
            stats.wilcoxon(F[:, j], F[:, base], alternative="less").pvalue
            if j != base and np.any(diff)
            else np.nan
        )
        pvals.append(p)
        p_higher.append(
            stats.wilcoxon(F[:, j], F[:, base], alternative="greater").pvalue
            if j != base and np.any(diff)
            else np.nan
        )
        rows.append({
            "contender": labels[j],
            f"mean rank in {args.base}'s place [95% CI]": f"{mean[0]:.2f} [{lo[0]:.2f}, {hi[0]:.2f}]",
            "score mean": float(np.nanmean(score)),
            "better / worse than base": "-" if j == base else f"{int((diff < 0).sum())} / {int((diff > 0).sum())}",
        })  # fmt: skip
    adjusted = benjamini_hochberg([p for p in pvals if np.isfinite(p)])
    it = iter(adjusted)
    for row, p in zip(rows, pvals):
        row["p lower than base (BH)"] = float(next(it)) if np.isfinite(p) else "-"
    for row, p in zip(rows, p_higher):
        row["p higher than base (raw)"] = float(p) if np.isfinite(p) else "-"
    keep = [base, *var] + ([labels.index(TIME_REFERENCE)] if TIME_REFERENCE in labels else [])
    R = cell_ranks(F[:, keep])
    problems = list(dict.fromkeys(p for p, _ in cells))
    per_problem = [
        {"problem": p, **{labels[j]: float(R[[i for i, c in enumerate(cells) if c[0] == p], k].mean())
                          for k, j in enumerate(keep)}}
        for p in problems
    ]  # fmt: skip
    command = shlex.join(["python", "benchmarks/field/variants.py", *(argv or sys.argv[1:])])
    lines = [
        f"# {cfg.name}: variants of {args.base}", "",
        f"`{command}` at {git_commit()}.", "",
        f"{len(cells)} complete cells. Rank in the base's place: among the suite's contenders "
        f"other than {args.base}, auto and the variants (rank 1 = lowest final value; 95% "
        "percentile bootstrap over cells). Score: 0 = the best value of those contenders in "
        "the cell, 1 = random search's median on the problem. p: paired one-sided Wilcoxon "
        "signed-rank test that the variant's finals are lower than the base's, "
        "Benjamini-Hochberg over the variants; and, uncorrected, that they are higher."
        + _direction_note(cfg), "",
        to_markdown(rows), "",
        f"## Mean rank per problem among the base, the variants and {TIME_REFERENCE}", "",
        to_markdown(per_problem), "",
    ]  # fmt: skip
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / args.name).write_text("\n".join(lines) + "\n")
    print((out / args.name).read_text())


def _with_finals(
    path: str, labels: list[str], cells: list[tuple[str, int]], F: np.ndarray
) -> tuple[list[str], list[tuple[str, int]], np.ndarray]:
    """The contenders of a committed ``finals.npz`` beside the store's, on the cells of both."""
    with np.load(path) as f:
        old, G, names = [str(x) for x in f["labels"]], f["F"], [str(c) for c in f["cells"]]
    clash = sorted(set(old) & set(labels))
    if clash:
        raise SystemExit(f"{path} already has the contenders {clash}: give them other labels")
    row = {c: i for i, c in enumerate(names)}
    keep = [i for i, (p, s) in enumerate(cells) if f"{p}/seed{s}" in row]
    rows = [row[f"{cells[i][0]}/seed{cells[i][1]}"] for i in keep]
    return old + labels, [cells[i] for i in keep], np.hstack([G[rows], F[keep]])


if __name__ == "__main__":
    main()
