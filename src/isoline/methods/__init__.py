"""Optimization methods, one module per algorithm (see :mod:`isoline.methods.base`)."""

#: modules whose import registers methods; add new method modules here
METHOD_MODULES: tuple[str, ...] = (
    "classic",
    "gibo", "mpd", "minucb", "la_minucb", "turbo",  # local BO (issue 4)
    "gp_bo",
    "bkop", "gp_bucb", "gp_ucb_pe", "bull",
    "neuralbo",
    "neural_greedy",
    "dngo",
    "rf_ei",
)
