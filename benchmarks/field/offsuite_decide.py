"""Apply an off-suite config's pre-registered decision rule (issue 43, item 4) to its store.

    python benchmarks/field/offsuite_decide.py benchmarks/field/offsuite_shifted.yaml \
        --storage S --seeds 10-12 [--problems REGEX] --choice 'isoline cobyqa' \
        --candidates 'isoline gp-ei,isoline turbo,isoline cma-es' [--need 12]

The rule, as the configs' headers fix it: on the complete cells (every contender
finished), auto holds if its mean rank as a stand-in for the run it repeats is at most the
third-lowest mean rank of the other contenders (within the best third). Otherwise the
candidate is the contender of ``--candidates`` with the lowest mean rank whose summed
suggestion time is at most Optuna GP's, and step (a) is the paired one-sided Wilcoxon
test that its finals are lower than those of ``--choice`` (auto's method). The verdict is
printed only when the number of complete cells reaches ``--need`` (the config's count);
otherwise the script says how many cells are missing and draws nothing.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

from field import TIME_REFERENCE, _cells, _contenders  # noqa: E402

from isoline.bench.config import load_config  # noqa: E402
from isoline.bench.ranks import cell_ranks, stand_in_ranks  # noqa: E402
from isoline.bench.report import collect  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("--storage", required=True)
    ap.add_argument("--seeds")
    ap.add_argument("--problems")
    ap.add_argument("--choice", required=True, help="label of the contender auto repeats")
    ap.add_argument("--candidates", required=True, help="comma-separated contender labels")
    ap.add_argument("--need", type=int, required=True, help="complete cells the rule needs")
    args = ap.parse_args(argv)
    cfg = _contenders(
        load_config(args.config).subset(seeds=args.seeds, problems=args.problems), None
    )
    runs = collect(cfg, args.storage)
    labels, cells, F, _ = _cells(cfg, runs)
    print(f"{len(cells)} complete cells of {args.need} the rule needs")
    if len(cells) < args.need:
        print("incomplete: no decision")
        return
    a = cfg.auto_index
    assert a is not None, "the config has no auto contender"
    others = [lab for j, lab in enumerate(labels) if j != a]
    G = np.delete(F, a, axis=1)
    ranks = cell_ranks(G).mean(axis=0)
    auto_rank = float(stand_in_ranks(G, F[:, a]).mean())
    third = float(np.sort(ranks)[math.ceil(len(others) / 3) - 1])
    for lab, r in sorted(zip(others, ranks), key=lambda t: t[1]):
        print(f"  {lab}: mean rank {r:.2f}")
    print(f"auto (stand-in): {auto_rank:.2f}; the best third ends at {third:.2f}")
    if auto_rank <= third:
        print("(H) holds: auto within the best third")
        return
    keep = set(cells)
    time: dict[str, float] = defaultdict(float)
    for r in runs:
        if (r.spec.problem.label, r.spec.seed) in keep:
            time[r.spec.method.label] += r.suggest_time
    ref = time[TIME_REFERENCE]
    cands = [c.strip() for c in args.candidates.split(",") if c.strip() in others]
    affordable = [c for c in cands if time[c] <= ref]
    for c in cands:
        print(f"  {c}: time {time[c] / ref:.2f}x {TIME_REFERENCE}")
    if not affordable:
        print("(C) no candidate within Optuna GP's suggestion time: the rule stays")
        return
    x = min(affordable, key=lambda c: ranks[others.index(c)])
    fx, fc = G[:, others.index(x)], G[:, others.index(args.choice)]
    p = stats.wilcoxon(fx, fc, alternative="less").pvalue if np.any(fx != fc) else 1.0
    lower, higher = int(np.sum(fx < fc)), int(np.sum(fx > fc))
    print(
        f"(C) candidate {x}: lower than {args.choice} in {lower}, higher in {higher}, p = {p:.3g}"
    )
    print("(a) met: confirming cells next" if p < 0.05 else "(a) not met: the rule stays")


if __name__ == "__main__":
    main()
