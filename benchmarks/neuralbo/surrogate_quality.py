"""How well does each surrogate rank unseen points after a NeuralBO run? (issue 6 analysis)

For every finished NeuralBO run of a synthetic config (default: ``synthetic_100.yaml``, the
label ``NeuralBO nu=0.1``), take the run's own data -- its ``n`` evaluated points in the
unit cube and their noisy values -- and compare, on ``--n-test`` uniform test points scored
with the noise-free function:

* ``NeuralBO net``: the network ``h(x; theta_t)`` of the run itself, unpickled from the
  store's last saved optimizer state (trained on the first ``n - 1`` points, warm-started
  through the whole run exactly as the method did);
* ``GP``: :func:`isoline.models.gp.fit_gp` (RBF, as the GP baselines) on all ``n`` points;
* ``RF``: :class:`isoline.models.forest.RandomForestSurrogate` (rf-ei's surrogate, on the
  log-scaled targets as rf-ei uses them);
* ``DNGO``: :class:`isoline.models.dngo.DNGO` (dngo's surrogate, trained for the epochs
  that the config's ``dngo`` method uses, else the model's default).

Metric: Spearman rank correlation of the predicted mean with the true values (a good
surrogate for minimization ranks low values low), on two test sets of ``--n-test`` points:
"global", uniform in the cube, and "local", the run's best evaluated point plus Gaussian
steps of standard deviation ``--radius`` per coordinate (clipped to the cube), where the
next exploiting proposals are decided.

    .venv/bin/python benchmarks/neuralbo/surrogate_quality.py --storage S.db \
        --problems 'D=(10|20)$' > benchmarks/results/neuralbo/surrogate_quality.md
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
from scipy.stats import spearmanr

from isoline.bench.config import load_config
from isoline.bench.runner import make_problem
from isoline.methods.network import torch_generator
from isoline.methods.neuralbo import NeuralBO
from isoline.models.dngo import DNGO
from isoline.models.forest import RandomForestSurrogate, log_scale
from isoline.models.gp import fit_gp
from isoline.store import Store

HERE = Path(__file__).parent
MODELS = ("NeuralBO net", "GP", "RF", "DNGO")


def fit_surrogates(
    method: NeuralBO, X: np.ndarray, y: np.ndarray, seed: int, dngo_epochs: int | None
) -> dict:
    """``{model: mean predictor U (k, d) -> (k,)}`` for every model in :data:`MODELS`."""
    gp = fit_gp(X, y, kernel="rbf")
    rf = RandomForestSurrogate(seed=seed).fit(X, log_scale(y))
    epochs = {} if dngo_epochs is None else {"epochs": dngo_epochs}
    dngo = DNGO(X, y, generator=torch_generator(np.random.default_rng(seed)), **epochs)

    def gp_mean(U: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return gp.model.posterior(torch.as_tensor(U)).mean.squeeze(-1).numpy()

    return {
        "NeuralBO net": method.mean,
        "GP": gp_mean,
        "RF": lambda U: rf.predict(U)[0],
        "DNGO": lambda U: dngo.predict(U)[0],
    }


def rank_correlation(pred: np.ndarray, truth: np.ndarray) -> float:
    """Spearman correlation of ``pred`` and ``truth`` (0 if either is constant)."""
    rho = spearmanr(pred, truth).statistic
    return float(rho) if np.isfinite(rho) else 0.0


def test_sets(X: np.ndarray, y: np.ndarray, n: int, radius: float, seed: int) -> dict:
    """``{"global": uniform points, "local": around the best evaluated point}``, ``(n, d)``."""
    rng = np.random.default_rng(10_000 + seed)
    best = X[np.argmin(y)]
    local = np.clip(best + radius * rng.standard_normal((n, X.shape[1])), 0.0, 1.0)
    return {"global": rng.random((n, X.shape[1])), "local": local}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", type=Path, default=HERE / "synthetic_100.yaml")
    ap.add_argument("--storage", required=True)
    ap.add_argument("--label", default="NeuralBO nu=0.1", help="the NeuralBO method's label")
    ap.add_argument("--problems", default=None, help="regex on problem labels")
    ap.add_argument("--n-test", type=int, default=2000)
    ap.add_argument("--radius", type=float, default=0.05, help="local test set step (unit cube)")
    a = ap.parse_args()
    cfg = load_config(a.config).subset(problems=a.problems)
    dngo_epochs = next((m.options.get("epochs") for m in cfg.methods if m.name == "dngo"), None)
    rows: dict[str, list[dict[tuple[str, str], float]]] = defaultdict(list)
    with Store(a.storage) as store:
        for spec in cfg.runs():
            if spec.method.label != a.label:
                continue
            rec = store.get_study(spec.study)
            if rec is None or not rec.finished:
                continue
            trials = [t for t in store.trials(rec) if t.status == "ok"]
            X = np.array([t.u for t in trials])
            y = np.array([t.y for t in trials])
            method = store.load_state(rec)[0].method
            problem = make_problem(spec)
            models = fit_surrogates(method, X, y, spec.seed, dngo_epochs)
            row = {}
            for where, U in test_sets(X, y, a.n_test, a.radius, spec.seed).items():
                truth = problem.f(problem.space.from_unit(U))
                row.update({(where, m): rank_correlation(models[m](U), truth) for m in MODELS})
            rows[spec.problem.label].append(row)
    n = {p: len(r) for p, r in rows.items()}
    print(f"Config `{a.config.name}`, runs of `{a.label}`, {a.n_test} test points per set;")
    print(f"local radius {a.radius}; DNGO epochs {dngo_epochs or 'default'}. Mean Spearman rho")
    print("over the runs, global / local;")
    print("bold = highest of its set.\n")
    print("| cell | runs | n | " + " | ".join(MODELS) + " |")
    print("|---|---|---|" + "---|" * len(MODELS))
    for p, runs in rows.items():
        rho = {k: float(np.mean([r[k] for r in runs])) for k in runs[0]}
        best = {w: max(rho[(w, m)] for m in MODELS) for w in ("global", "local")}
        cells = [
            " / ".join(
                f"**{rho[(w, m)]:.2f}**" if rho[(w, m)] == best[w] else f"{rho[(w, m)]:.2f}"
                for w in ("global", "local")
            )
            for m in MODELS
        ]
        print(f"| {p} | {n[p]} | {cfg.budget} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
