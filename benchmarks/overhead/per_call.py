"""Cost of one call: isoline's GP stack (BoTorch/GPyTorch) against Optuna GPSampler's GP.

Whole runs (``whole_run.py``) show gp-ei spending about as many likelihood and acquisition
evaluations per suggestion as Optuna's GPSampler, and 2-3.5x its CPU. This script times
the two calls a run repeats, on the same data and the same model, so the difference per
call is measured apart from how many calls each library makes:

* the marginal log-likelihood and its gradient (one L-BFGS-B step of the fit), and
* the acquisition with its gradient at 10 points (one step of 10 acquisition restarts)
  and its value at 512 points (scoring the raw samples that choose the starts).

Data: Ackley on [-2, 2]^d at ``n`` Sobol points. isoline fits its GP with
``fit_gp(kernel="matern52", priors="optuna", mean="zero")``: a Matern-5/2 ARD kernel with a
learned signal variance and noise on standardized values, the structure of Optuna's
``GPRegressor``, which gets the fitted hyperparameters. The script checks that the two
posteriors agree (max relative difference of mean and variance is printed) before timing.
isoline's acquisitions: BoTorch's ``qLogExpectedImprovement`` with 512 quasi-MC samples
(gp-ei's default) and the analytic ``LogExpectedImprovement``; Optuna's: its ``logei`` on
``GPRegressor.posterior``. Optuna's ``optuna._gp`` is a private module (Optuna 5.0).

CPU time on one torch and one BLAS thread, the median over 5 blocks of repeated calls.

``--counts`` adds how many such calls a whole run makes: gp-ei (defaults) and GPSampler on
``whole_run.py``'s Ackley cells at d = 5 and 10 (one seed), counting calls of the
likelihood (GPyTorch's ``ExactMarginalLogLikelihood.forward``, Optuna's
``GPRegressor.marginal_log_likelihood``) and of the posterior inside the acquisition
(BoTorch's ``qLogExpectedImprovement.forward``, Optuna's ``GPRegressor.posterior``) with
the points they evaluate.

    python benchmarks/overhead/per_call.py --counts --out benchmarks/results/overhead/per_call.md
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

import numpy as np
import optuna
import torch
from botorch.acquisition import LogExpectedImprovement, qLogExpectedImprovement
from botorch.sampling import SobolQMCNormalSampler
from gpytorch.mlls import ExactMarginalLogLikelihood
from optuna._gp.acqf import logei
from optuna._gp.gp import GPRegressor
from scipy.stats import qmc

from isoline.acquisition import negated
from isoline.bench.report import git_commit
from isoline.bench.stats import to_markdown
from isoline.methods.registry import get_method
from isoline.models.gp import fit_gp
from isoline.problems import get as get_problem
from isoline.threads import single_threaded

sys.path.insert(0, str(Path(__file__).resolve().parent))
import whole_run  # noqa: E402  (the whole-run benchmark's runs, reused)

CELLS = ((5, 40), (10, 60), (10, 100), (25, 100), (25, 200))


def cpu_ms(call: Callable[[], object], min_seconds: float = 0.3, blocks: int = 5) -> float:
    """Median over ``blocks`` of the mean CPU milliseconds per call."""
    call()
    reps = 1
    while True:
        t = time.process_time()
        for _ in range(reps):
            call()
        if time.process_time() - t > min_seconds / blocks:
            break
        reps *= 2
    out = []
    for _ in range(blocks):
        t = time.process_time()
        for _ in range(reps):
            call()
        out.append((time.process_time() - t) / reps * 1000.0)
    return float(np.median(out))


def one_cell(d: int, n: int) -> dict[str, float]:
    X = qmc.Sobol(d, seed=0).random(n)
    problem = get_problem("ackley", dim=d)  # on [-2, 2]^d, as whole_run.py
    y = problem.evaluate_batch(problem.space.from_unit(X))
    gp = fit_gp(X, y, kernel="matern52", priors="optuna", mean="zero")
    model = gp.model
    ys = model.train_targets.detach()  # standardized y, as the model sees it
    inv_sq = torch.as_tensor(1.0 / gp.lengthscales**2, dtype=torch.float64)
    scale = torch.tensor(gp.outputscale / gp.y_scale**2, dtype=torch.float64)
    noise = torch.tensor(gp.noise / gp.y_scale**2, dtype=torch.float64)
    cat = torch.zeros(d, dtype=torch.bool)
    Xt = torch.as_tensor(X, dtype=torch.float64)

    def optuna_gp(params: torch.Tensor | None = None) -> GPRegressor:
        if params is None:
            return GPRegressor(cat, Xt, ys, inv_sq.clone(), scale.clone(), noise.clone())
        return GPRegressor(cat, Xt, ys, params[:d], params[d], params[d + 1])

    reg = optuna_gp()
    reg._cache_matrix()
    probe = torch.as_tensor(qmc.Sobol(d, seed=1).random(64), dtype=torch.float64)
    with torch.no_grad():
        m_o, v_o = reg.posterior(probe)
        post = model.posterior(probe)
        m_b, v_b = post.mean.squeeze(-1), post.variance.squeeze(-1)
    # Optuna works on standardized y: compare in those units
    m_b_std = (m_b - float(y.mean())) / gp.y_scale
    v_b_std = v_b / gp.y_scale**2
    agree = max(
        float((m_o - m_b_std).abs().max() / m_o.abs().max()),
        float(((v_o - v_b_std).abs() / v_o).max()),
    )

    # -- the likelihood and its gradient
    model.train()
    mll = ExactMarginalLogLikelihood(model.likelihood, model)
    tX, tY = model.train_inputs[0], model.train_targets

    def botorch_mll() -> None:
        model.zero_grad()
        (-mll(model(tX), tY)).backward()

    base = torch.cat([inv_sq, scale.view(1), noise.view(1)])

    def optuna_mll() -> None:
        p = base.clone().requires_grad_(True)
        (-optuna_gp(p).marginal_log_likelihood()).backward()

    row: dict[str, float] = {"d": d, "n": n, "posterior agreement": agree}
    row["mll+grad isoline"] = cpu_ms(botorch_mll)
    row["mll+grad optuna"] = cpu_ms(optuna_mll)
    model.eval()

    # -- the acquisition: 10 points with gradient, 512 points without
    best_std = float(ys.min())
    best = -float(y.min())
    qlogei = qLogExpectedImprovement(
        model, best_f=best, sampler=SobolQMCNormalSampler(torch.Size([512])),
        posterior_transform=negated(),
    )  # fmt: skip
    alogei = LogExpectedImprovement(model, best_f=best, posterior_transform=negated())
    X10 = torch.as_tensor(qmc.Sobol(d, seed=2).random(10), dtype=torch.float64)
    X512 = torch.as_tensor(qmc.Sobol(d, seed=3).random(512), dtype=torch.float64)

    def with_grad(
        acq: Callable[[torch.Tensor], torch.Tensor], Xb: torch.Tensor
    ) -> Callable[[], None]:
        def call() -> None:
            x = Xb.clone().requires_grad_(True)
            acq(x).sum().backward()

        return call

    def no_grad(
        acq: Callable[[torch.Tensor], torch.Tensor], Xb: torch.Tensor
    ) -> Callable[[], None]:
        def call() -> None:
            with torch.no_grad():
                acq(Xb)

        return call

    def optuna_logei(x: torch.Tensor) -> torch.Tensor:
        # minimization on standardized y: Optuna maximizes logEI of -y
        mean, var = reg.posterior(x)
        return logei(-mean, var, -best_std)

    def q1(acq: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[torch.Tensor], torch.Tensor]:
        return lambda x: acq(x.unsqueeze(-2))

    row["acq 10+grad isoline qLogEI"] = cpu_ms(with_grad(q1(qlogei), X10))
    row["acq 10+grad isoline LogEI"] = cpu_ms(with_grad(q1(alogei), X10))
    row["acq 10+grad optuna"] = cpu_ms(with_grad(optuna_logei, X10))
    row["acq 512 isoline qLogEI"] = cpu_ms(no_grad(q1(qlogei), X512))
    row["acq 512 isoline LogEI"] = cpu_ms(no_grad(q1(alogei), X512))
    row["acq 512 optuna"] = cpu_ms(no_grad(optuna_logei, X512))
    return row


class CallCounter:
    """Counts calls of a method and, with ``point_dims``, the points of its first argument
    (a tensor whose last ``point_dims`` dimensions make one point)."""

    def __init__(self, owner: type, name: str, point_dims: int | None = None) -> None:
        self.owner, self.name, self.point_dims = owner, name, point_dims
        self.calls = 0
        self.points = 0

    def __enter__(self) -> CallCounter:
        self.original = getattr(self.owner, self.name)
        counter = self

        def counted(obj: object, *args: torch.Tensor, **kwargs: object) -> object:
            counter.calls += 1
            if counter.point_dims is not None:
                x = args[0]
                counter.points += int(np.prod(x.shape[: x.ndim - counter.point_dims]))
            return counter.original(obj, *args, **kwargs)

        setattr(self.owner, self.name, counted)
        return self

    def __exit__(self, *exc: object) -> None:
        setattr(self.owner, self.name, self.original)


def _counts_row(
    d: int,
    budget: int,
    contender: str,
    n_model: int,
    mll: CallCounter,
    acq: CallCounter,
    res: dict[str, float],
) -> dict[str, float | str]:
    return {"d": d, "budget": budget, "contender": contender, "model-based asks": n_model,
            "likelihood calls per ask": mll.calls / n_model,
            "acquisition calls per ask": acq.calls / n_model,
            "acquisition points per ask": acq.points / n_model,
            "suggestion CPU s": res["cpu"], "final best": res["best"]}  # fmt: skip


def call_counts(d: int, budget: int, seed: int = 0) -> list[dict[str, float | str]]:
    """Likelihood and acquisition-posterior calls per suggestion over one whole run."""
    with (
        CallCounter(ExactMarginalLogLikelihood, "forward") as mll,
        CallCounter(qLogExpectedImprovement, "forward", 1) as acq,
    ):
        res = whole_run.run_isoline("gp-ei", 1, d, budget, seed)
    n_init = get_method("gp-ei").default_n_init(d)
    out = [_counts_row(d, budget, "gp-ei", budget - n_init, mll, acq, res)]
    with (
        CallCounter(GPRegressor, "marginal_log_likelihood") as mll,
        CallCounter(GPRegressor, "posterior", 1) as acq,
    ):
        res = whole_run.run_optuna(d, budget, seed)
    # GPSampler's 10 random start-up trials
    out.append(_counts_row(d, budget, "Optuna GP", budget - 10, mll, acq, res))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="markdown file to write")
    ap.add_argument("--counts", action="store_true", help="also count calls over whole runs")
    args = ap.parse_args(argv)
    with single_threaded(), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Sobol sizes that are not powers of 2
        rows = [one_cell(d, n) for d, n in CELLS]
    ratios = [
        {"d": r["d"], "n": r["n"],
         "likelihood + gradient": r["mll+grad isoline"] / r["mll+grad optuna"],
         "acq 10 + grad, qLogEI": r["acq 10+grad isoline qLogEI"] / r["acq 10+grad optuna"],
         "acq 10 + grad, LogEI": r["acq 10+grad isoline LogEI"] / r["acq 10+grad optuna"],
         "acq 512, qLogEI": r["acq 512 isoline qLogEI"] / r["acq 512 optuna"],
         "acq 512, LogEI": r["acq 512 isoline LogEI"] / r["acq 512 optuna"]}
        for r in rows
    ]  # fmt: skip
    text = (
        "# One call of the GP stack: isoline (BoTorch/GPyTorch) against Optuna's GP\n\n"
        f"`{' '.join(['python', *sys.argv])}` at {git_commit()}, torch {torch.__version__}, "
        f"Optuna {optuna.__version__}, one torch and one BLAS thread. CPU milliseconds per call (median of "
        "5 blocks). 'posterior agreement' is the largest relative difference between the two "
        "libraries' posterior mean and variance at 64 points with the same hyperparameters.\n\n"
        + to_markdown(rows)
        + "\n\nisoline's CPU per call over Optuna's:\n\n"
        + to_markdown(ratios)
        + "\n"
    )
    if args.counts:
        with single_threaded():
            counts = [
                row for d, budget in whole_run.CELLS if d <= 10 for row in call_counts(d, budget)
            ]
        text += (
            "\nCalls over one whole run (Ackley, seed 0, `whole_run.py`'s cells at d = 5 and "
            "10), per model-based suggestion (gp-ei: after its 2 d initial points; GPSampler: "
            "after its 10 start-up trials). A likelihood call is one value and gradient of the "
            "fit; an acquisition call is one batched posterior evaluation (restarts together, "
            "or the raw samples):\n\n" + to_markdown(counts) + "\n"
        )
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
