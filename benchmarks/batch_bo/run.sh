#!/bin/sh
# Reproduce benchmarks/results/batch_bo/ (BKOP paper Figures 1, 4, 5). Run from the repo root.
# Stores go to /tmp; the runner is resumable (re-running skips finished runs).
set -e
for cfg in fig1_synthetic fig4_bull fig5_push fig5_hpo; do  # 10 seeds each
  nice -n 10 .venv/bin/isoline bench benchmarks/batch_bo/$cfg.yaml \
    --storage /tmp/batch_bo_$cfg.db --out benchmarks/results/batch_bo/$cfg --workers 2 --quiet
done
nice -n 10 .venv/bin/python benchmarks/batch_bo/summarize.py
# acquisition optimizers (CMA-ES vs gradient) and parallel wall time per batch:
nice -n 10 .venv/bin/python benchmarks/batch_bo/acq_optimizers.py
nice -n 10 .venv/bin/python benchmarks/batch_bo/parallel_timing.py
