"""Optimization methods, one module per algorithm (see :mod:`isoline.methods.base`).

Families share their machinery in a base module: :mod:`~isoline.methods.local` (GIBO,
MPD, MinUCB, LA-MinUCB), :mod:`~isoline.methods.bkop` (the batch kernel methods),
:mod:`~isoline.methods.network` (NeuralBO, NeuralGreedy) and
:mod:`~isoline.methods.gp_bo` (GP-EI, GP-UCB; GP-TS in :mod:`~isoline.methods.gp_ts`). Methods are found by name through
:mod:`~isoline.methods.registry`.
"""
