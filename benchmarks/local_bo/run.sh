#!/bin/sh
# Local BO benchmarks (issue 4): MinUCB paper Figures 2 and 3 with isoline's runner.
# Run from the repository root. Stores go to /tmp; reports to benchmarks/results/local_bo/.
#
# Compute budget (measured first, CPU seconds on one core, seed 0, d = 100, 500 evals,
# see benchmarks/results/local_bo/timing.md): one seed of all seven methods at d = 100
# is ~0.1-0.15 CPU-hours; Figure 2 with 10 seeds at d = 25, 50, 100 is ~2-3 hours of
# wall time on 2 cores; the RL tasks use 2-5 seeds and reduced budgets (see rl_summary.md).
set -e
PY=.venv/bin/python
OUT=benchmarks/results/local_bo

# 1. CPU seconds per ask / per algorithm iteration at d = 100 (one seed, single thread)
mkdir -p $OUT/timing
for m in la-minucb gibo minucb mpd turbo cma-es random; do
  nice -n 10 $PY benchmarks/local_bo/timing.py $m 100 500 0 > $OUT/timing/$m.json
done

# 2. Figure 2: GP-sampled objectives, d = 25, 50, 100 (10 seeds, true lengthscales;
#    d = 50 and 100 took 60 and 75 min of 2-core wall time here, other jobs running).
#    First, the effect of true vs midpoint lengthscales on held-out instances:
nice -n 5 $PY benchmarks/local_bo/true_lengthscales.py 25 300 100 101 102 103 104 \
  > $OUT/diagnostics/true_lengthscales_d25.jsonl
for d in 25 50 100; do
  nice -n 10 .venv/bin/isoline bench benchmarks/local_bo/gp_d$d.yaml \
    --storage /tmp/local_bo_gp_d$d.db --out $OUT/gp_d$d --workers 2 --quiet
  $PY benchmarks/local_bo/checkpoints.py benchmarks/local_bo/gp_d$d.yaml \
    /tmp/local_bo_gp_d$d.db > $OUT/gp_d$d/checkpoints.md
done

# 3. Figure 3: RL linear policies
for env in cartpole swimmer hopper; do
  nice -n 10 .venv/bin/isoline bench benchmarks/local_bo/rl_$env.yaml \
    --storage /tmp/local_bo_rl_$env.db --out $OUT/rl_$env --workers 2 --quiet
done
nice -n 10 .venv/bin/isoline bench benchmarks/local_bo/rl_hopper_long.yaml \
  --storage /tmp/local_bo_rl_hopper_long.db --out $OUT/rl_hopper_long --workers 2 --quiet
.venv/bin/python benchmarks/local_bo/summarize.py /tmp/local_bo_rl_hopper_long.db \
  > $OUT/rl_hopper_long/checkpoints.md
.venv/bin/python benchmarks/local_bo/summarize.py /tmp/local_bo_rl_cartpole.db \
  /tmp/local_bo_rl_swimmer.db /tmp/local_bo_rl_hopper.db > $OUT/rl_checkpoints.md

# 4. LA-MinUCB with more one-shot effort (la_minucb_investigation.md): held-out seeds at
#    d = 25, then the Figure 2 problems again for LA-MinUCB alone
for s in 100 101 102 103 104; do
  for cfg in "dict()" "dict(num_fantasies=64,maxiter=200)"; do
    nice -n 5 $PY benchmarks/local_bo/timing.py la-minucb 25 300 $s "$cfg" >> $OUT/diagnostics/effort_heldout_d25.jsonl
  done
  for m in minucb gibo; do
    nice -n 5 $PY benchmarks/local_bo/timing.py $m 25 300 $s >> $OUT/diagnostics/effort_heldout_d25.jsonl
  done
done
for d in 25 50 100; do
  nice -n 5 .venv/bin/isoline bench benchmarks/local_bo/gp_d${d}_la_effort.yaml \
    --storage /tmp/local_bo_gp_d${d}_la_effort.db --out $OUT/gp_d${d}_la_effort --workers 1 --quiet
done
git rev-parse HEAD > $OUT/COMMIT

# 5. Figure 2 at d = 25 under the reference code's metric (objective at the iterates x_t)
nice -n 10 .venv/bin/python benchmarks/local_bo/iterate_metric.py benchmarks/local_bo/gp_d25.yaml \
  > $OUT/diagnostics/iterate_metric_d25.jsonl
.venv/bin/python benchmarks/local_bo/iterate_metric.py --table \
  $OUT/diagnostics/iterate_metric_d25.jsonl > $OUT/diagnostics/iterate_metric_d25.md
