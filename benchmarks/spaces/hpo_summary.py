"""Normalized scores of typed against relaxed gp-ei on the hpo-sklearn problems.

Reads the store of ``benchmarks/spaces/hpo_mixed_vs_relaxed.yaml`` and reports, per problem
and over all, bayesmark's normalized score of each run's final best loss::

    score = (best - floor) / (median_random - floor)

with ``floor`` the best loss any run of either variant (or random search) found on that
problem and ``median_random`` the median final loss of random search on the typed problem:
0 is the best any run found, 1 is random search's median. The typed and relaxed runs of
one (problem, seed) pair start from the same initial design (the encodings agree), so the
test is paired: a one-sided Wilcoxon signed-rank test of H1 "typed scores higher (worse)
than relaxed" over all pairs.

Usage::

    python benchmarks/spaces/hpo_summary.py --storage hpo.db --out benchmarks/results/spaces
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from scipy import stats

from isoline.bench.config import load_config
from isoline.bench.report import git_commit
from isoline.bench.stats import to_markdown
from isoline.store import Store

CONFIG = Path(__file__).with_name("hpo_mixed_vs_relaxed.yaml")
RELAXED = " (relaxed)"


def finals(storage: str) -> dict[tuple[str, str], dict[int, float]]:
    """``{(problem label, method label): {seed: final best loss}}`` of finished runs."""
    cfg = load_config(str(CONFIG))
    out: dict[tuple[str, str], dict[int, float]] = {}
    with Store(storage, readonly=True) as store:
        for spec in cfg.runs():
            rec = store.get_study(spec.study)
            if rec is None or not rec.finished:
                continue
            ys = [t.y for t in store.trials(rec) if t.status == "ok" and t.y is not None]
            if ys:
                key = (spec.problem.label, spec.method.label)
                out.setdefault(key, {})[spec.seed] = float(min(ys))
    return out


def summarize(storage: str) -> tuple[list[dict[str, object]], str]:
    data = finals(storage)
    problems = sorted({p for p, _ in data if not p.endswith(RELAXED)})
    rows: list[dict[str, object]] = []
    typed_all, relaxed_all = [], []
    for p in problems:
        typed = data.get((p, "GP-EI"), {})
        relaxed = data.get((p + RELAXED, "GP-EI"), {})
        random = data.get((p, "Random"), {})
        seeds = sorted(set(typed) & set(relaxed))
        if not seeds or len(random) < 2:
            continue
        values = [*typed.values(), *relaxed.values(), *random.values()]
        values += data.get((p + RELAXED, "Random"), {}).values()
        floor = min(values)
        med = float(np.median(list(random.values())))
        span = med - floor if med > floor else 1.0
        t = np.array([(typed[s] - floor) / span for s in seeds])
        r = np.array([(relaxed[s] - floor) / span for s in seeds])
        typed_all += list(t)
        relaxed_all += list(r)
        rows.append(
            {
                "problem": p,
                "pairs": len(seeds),
                "typed": f"{t.mean():.3f} +- {t.std(ddof=1) / np.sqrt(t.size):.3f}"
                if t.size > 1
                else f"{t.mean():.3f}",
                "relaxed": f"{r.mean():.3f} +- {r.std(ddof=1) / np.sqrt(r.size):.3f}"
                if r.size > 1
                else f"{r.mean():.3f}",
                "typed better in": f"{int(np.sum(t < r))}/{len(seeds)}",
            }
        )
    t_all, r_all = np.array(typed_all), np.array(relaxed_all)
    verdict = ""
    if t_all.size:
        diff = t_all - r_all
        p_worse = (
            float(stats.wilcoxon(diff, alternative="greater").pvalue) if np.any(diff != 0) else 1.0
        )
        verdict = (
            f"Over all {t_all.size} pairs: mean normalized score typed {t_all.mean():.3f}, "
            f"relaxed {r_all.mean():.3f}; typed better in {int(np.sum(diff < 0))}, worse in "
            f"{int(np.sum(diff > 0))}, tied in {int(np.sum(diff == 0))}. One-sided Wilcoxon "
            f"signed-rank test of H1 'typed worse': p = {p_worse:.3g}."
        )
    return rows, verdict


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--storage", required=True)
    p.add_argument("--out", type=Path, default=Path("benchmarks/results/spaces"))
    args = p.parse_args()
    rows, verdict = summarize(args.storage)
    commit = git_commit()
    text = "\n".join(
        [
            "# Typed parameters against a continuous relaxation (gp-ei, hpo-sklearn)",
            "",
            f"Config `{CONFIG.name}`; store `{args.storage}`; summary at commit "
            f"`{commit}` by `python benchmarks/spaces/hpo_summary.py "
            f"--storage {args.storage}`.",
            "Normalized score of the final best loss (0 = best any run found, 1 = random "
            "search's median), mean +- SEM over seeds:",
            "",
            to_markdown(rows, ["problem", "pairs", "typed", "relaxed", "typed better in"]),
            "",
            verdict,
            "",
        ]
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "hpo_mixed_vs_relaxed.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
