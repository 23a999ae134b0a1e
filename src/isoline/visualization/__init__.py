"""Plots of one study, in the manner of ``optuna.visualization.matplotlib``: each takes a
:class:`~isoline.Result` (e.g. from :func:`isoline.load`) and returns a matplotlib Figure.

- :func:`plot_history`: every value and the best so far against evaluations;
- :func:`plot_slice`: the value against each parameter;
- :func:`plot_parallel_coordinates`: each evaluation as a line through value and parameters;
- :func:`plot_param_importances`: a random forest's permutation importance per parameter
  (:func:`param_importances` gives the numbers);
- :func:`plot_contour`: a Gaussian process's mean over two parameters;
- :func:`plot_pareto_front`, :func:`plot_hypervolume_history`, :func:`plot_feasibility`:
  runs with several objectives or constraints.

:func:`write_study_report` draws them all into a folder with a short summary
(``isoline report STORE STUDY --out DIR``). matplotlib, pandas and scikit-learn are
imported when a plot is drawn, not with this package.
"""

from isoline.visualization.contour import plot_contour
from isoline.visualization.coordinates import plot_parallel_coordinates
from isoline.visualization.history import plot_history
from isoline.visualization.importance import param_importances, plot_param_importances
from isoline.visualization.outputs import (
    plot_feasibility,
    plot_hypervolume_history,
    plot_pareto_front,
)
from isoline.visualization.slices import plot_slice
from isoline.visualization.study_report import write_study_report

__all__ = [
    "param_importances",
    "plot_contour",
    "plot_feasibility",
    "plot_history",
    "plot_hypervolume_history",
    "plot_parallel_coordinates",
    "plot_param_importances",
    "plot_pareto_front",
    "plot_slice",
    "write_study_report",
]
