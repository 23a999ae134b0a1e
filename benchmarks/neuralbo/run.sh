#!/bin/sh
# Reproduce benchmarks/results/neuralbo/ (NeuralBO paper Figures 1, 2, 3, 5, 6 and Tables 1-2
# at reduced budgets; see benchmarks/results/neuralbo/README.md). Run from the repo root.
# Stores go to /tmp; the runner is resumable (re-running skips finished runs).
set -e
R=benchmarks/results/neuralbo
# planning: seconds per ask of every method at d = 10..100
nice -n 10 .venv/bin/python benchmarks/neuralbo/time_iteration.py --n 100 --out $R/time_iteration.md
# NeuralBO's nu by the paper's grid search, on tuning seeds
nice -n 10 .venv/bin/python benchmarks/neuralbo/tune_nu.py > $R/tune_nu.txt
# Figure 1, Tables 1-2
nice -n 10 .venv/bin/isoline bench benchmarks/neuralbo/synthetic.yaml \
  --storage /tmp/neuralbo_synthetic.db --out $R/synthetic --workers 2 --quiet
nice -n 10 .venv/bin/python benchmarks/neuralbo/synthetic_summary.py \
  --storage /tmp/neuralbo_synthetic.db --out $R/synthetic/cells.md
# Figure 1, Tables 1-2 at 100 evaluations (partial runs resume; cheap cells first;
# synthetic_100_d10.yaml is its d = 10 part, with the same study names). The committed
# report covers the finished d <= 20 cells.
nice -n 10 .venv/bin/isoline bench benchmarks/neuralbo/synthetic_100.yaml \
  --storage /tmp/neuralbo_synthetic_100.db --out $R/synthetic_100 --workers 2 --quiet
.venv/bin/isoline report benchmarks/neuralbo/synthetic_100.yaml \
  --storage /tmp/neuralbo_synthetic_100.db --out $R/synthetic_100 --problems 'D=(10|20)$'
nice -n 10 .venv/bin/python benchmarks/neuralbo/synthetic_summary.py \
  --config benchmarks/neuralbo/synthetic_100.yaml --storage /tmp/neuralbo_synthetic_100.db \
  --problems 'D=(10|20)$' --out $R/synthetic_100/cells.md
# nu = 0.3 (between the local 0.1 and the boundary-crowding 1) at 100 evaluations: tuning
# seeds first, then its synthetic_100 row on the d <= 20 cells, tested against the committed
# rows of those cells (their store is gone) from the report's summary statistics
nice -n 10 .venv/bin/python benchmarks/neuralbo/tune_nu.py --budget 100 --nu 0.1 0.3 --refine 5 \
  --seeds 100 101 102 > $R/tune_nu_100.txt
nice -n 10 .venv/bin/python benchmarks/neuralbo/tune_nu.py --budget 100 --nu 0.1 0.3 --refine 5 \
  --seeds 100 101 102 --dims 50 > $R/tune_nu_100_d50.txt
nice -n 10 .venv/bin/isoline bench benchmarks/neuralbo/synthetic_100_nu03.yaml \
  --storage /tmp/neuralbo_synthetic_100.db --out /tmp/nu03 --workers 1 --quiet
.venv/bin/python benchmarks/neuralbo/row_vs_report.py benchmarks/neuralbo/synthetic_100_nu03.yaml \
  --storage /tmp/neuralbo_synthetic_100.db --report $R/synthetic_100/report.md > $R/synthetic_100/nu03.md
# why NeuralBO trails there: its network vs other surrogates on its own data, and the
# steps of every method's late proposals from the incumbent (both read the store)
nice -n 10 .venv/bin/python benchmarks/neuralbo/surrogate_quality.py \
  --storage /tmp/neuralbo_synthetic_100.db --problems 'D=(10|20)$' > $R/surrogate_quality.md
nice -n 10 .venv/bin/python benchmarks/neuralbo/proposal_steps.py \
  --storage /tmp/neuralbo_synthetic_100.db --problems 'D=(10|20)$' > $R/proposal_steps.md
# NeuralBO network inputs, scaled vs sphere, on tuning seeds
nice -n 10 .venv/bin/python benchmarks/neuralbo/inputs_map.py > $R/inputs_map.md
# Figure 5 (push14) and Figure 3 (sensitive samples)
nice -n 10 .venv/bin/isoline bench benchmarks/neuralbo/push14.yaml \
  --storage /tmp/neuralbo_push14.db --out $R/push14 --workers 2 --quiet
nice -n 10 .venv/bin/isoline bench benchmarks/neuralbo/sensitive.yaml \
  --storage /tmp/neuralbo_sensitive.db --out $R/sensitive --workers 2 --quiet
nice -n 10 .venv/bin/python benchmarks/neuralbo/sensitive_summary.py \
  --storage /tmp/neuralbo_sensitive.db --out $R/sensitive
# Figure 2 (BBOB, fraction of (function, target) pairs)
nice -n 10 .venv/bin/isoline bench benchmarks/neuralbo/bbob.yaml \
  --storage /tmp/neuralbo_bbob.db --out $R/bbob --workers 2 --quiet
nice -n 10 .venv/bin/python benchmarks/neuralbo/bbob_summary.py \
  --storage /tmp/neuralbo_bbob.db --out $R/bbob
# Figure 2 at d = 5 and 10 (budgets 100 and 200), same store
nice -n 10 .venv/bin/isoline bench benchmarks/neuralbo/bbob_d5.yaml \
  --storage /tmp/neuralbo_bbob.db --out $R/bbob_d5 --workers 2 --quiet
nice -n 10 .venv/bin/isoline bench benchmarks/neuralbo/bbob_d10.yaml \
  --storage /tmp/neuralbo_bbob.db --out $R/bbob_d10 --workers 2 --quiet
nice -n 10 .venv/bin/python benchmarks/neuralbo/bbob_summary.py --config \
  benchmarks/neuralbo/bbob_d5.yaml benchmarks/neuralbo/bbob_d10.yaml \
  --storage /tmp/neuralbo_bbob.db --out $R/bbob_d5_d10
nice -n 10 .venv/bin/python benchmarks/neuralbo/bbob_summary.py --config \
  benchmarks/neuralbo/bbob_d10.yaml --storage /tmp/neuralbo_bbob.db --out $R/bbob_d10
# Figure 6 argument: time and peak memory per iteration vs observations, d = 100
nice -n 10 .venv/bin/python benchmarks/neuralbo/scaling.py --out $R/scaling
# rf-ei fix: conformance sphere before/after
nice -n 10 .venv/bin/python benchmarks/neuralbo/rf_ei_sphere.py > $R/rf_ei_sphere.txt
