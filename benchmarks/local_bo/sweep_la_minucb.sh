#!/bin/sh
# Diagnostics for LA-MinUCB (not tuning: the defaults were fixed before these runs).
# Run from the repository root.
# 1. d = 25, 300 evaluations, seeds 0-2: look-ahead batch b, box delta, optimization effort.
OUT=benchmarks/results/local_bo/diagnostics
mkdir -p $OUT
for cfg in "dict(b=1)" "dict(b=2)" "dict(b=5)" "dict(b=12)" "dict(b=25)" "dict(b=5,delta=0.1)" "dict(b=5,delta=0.5)" "dict(b=5,num_fantasies=64,maxiter=200)"; do
  for s in 0 1 2; do
    nice -n 10 .venv/bin/python benchmarks/local_bo/timing.py la-minucb 25 300 $s "$cfg" >> $OUT/la_minucb_sweep_d25.jsonl
  done
done
# 2. d = 100, 500 evaluations, seed 0: b = 10, 50, 100 (b = 20 is timing/la-minucb.json).
for b in 10 50 100; do
  nice -n 10 .venv/bin/python benchmarks/local_bo/timing.py la-minucb 100 500 0 "dict(b=$b)" >> $OUT/la_minucb_b_d100.jsonl
done
