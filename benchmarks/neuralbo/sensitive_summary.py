"""Detection rate vs number of sensitive samples (NeuralBO Fig. 3) from the stored runs.

For each run of ``sensitive.yaml`` the ``k`` best distinct evaluated images (k = 1..10)
are the sensitive samples; :meth:`SensitiveSamples.detection_rate` counts the fraction of
100 tampered copies of the classifier for which one of them changes the top-1 label.

    .venv/bin/python benchmarks/neuralbo/sensitive_summary.py --storage /tmp/neuralbo_sensitive.db \
        --out benchmarks/results/neuralbo/sensitive
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from isoline import problems
from isoline.bench.config import load_config
from isoline.store import Store

HERE = Path(__file__).parent
KS = list(range(1, 11))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", type=Path, default=HERE / "sensitive.yaml")
    ap.add_argument("--storage", default="/tmp/neuralbo_sensitive.db")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/neuralbo/sensitive"))
    ap.add_argument("--models", type=int, default=100, help="tampered models per rate")
    a = ap.parse_args()
    cfg = load_config(a.config)
    rates: dict[str, list[list[float]]] = {}
    with Store(a.storage) as store:
        for spec in cfg.runs():
            rec = store.get_study(spec.study)
            if rec is None:
                continue
            trials = [t for t in store.trials(rec) if t.status == "ok"]
            prob = problems.get(spec.problem.name, seed=spec.seed, **spec.problem.kwargs)
            X = np.array([np.asarray(t.x, dtype=float) for t in trials])
            y = np.array([t.y for t in trials])
            order = np.argsort(y, kind="stable")
            Xs = X[order]
            rates.setdefault(spec.method.label, []).append(
                [prob.detection_rate(Xs[:k], n_models=a.models) for k in KS]
            )
    a.out.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    lines = [
        "| method | runs | " + " | ".join(f"k={k}" for k in KS) + " |",
        "|---|---|" + "---|" * len(KS),
    ]
    for m, rs in rates.items():
        r = np.mean(rs, axis=0)
        ax.plot(KS, r, marker="o", label=m)
        lines.append(f"| {m} | {len(rs)} | " + " | ".join(f"{v:.2f}" for v in r) + " |")
    ax.set(
        xlabel="number of sensitive samples",
        ylabel="detection rate",
        ylim=(0, 1.02),
        title="sensitive samples (digits 8x8 stand-in)",
    )
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.out / "detection_rate.png", dpi=110)
    (a.out / "detection_rate.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
