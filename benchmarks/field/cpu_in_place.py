"""Summed method CPU of a later contender against a suite's contender, on their shared cells.

    python benchmarks/field/cpu_in_place.py --suite S1 'Optuna GP' --later S2 'auto now'

``S1`` and ``S2`` are bench stores (restore a report's ``runs/`` with
``benchmarks/store_parts.py``); a cell is ``problem/seedN`` of a study named
``suite/problem/label/seedN``, so a later config that repeats a suite's cells under another
suite name (e.g. ``constrained_auto_few.yaml`` beside ``constrained.yaml``) pairs with it.
Prints, below d 10, at d >= 10 and over all shared finished cells, the two sums (the
studies' attrs ``method_cpu``) and their ratio, later over suite.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from isoline.run_loop import METHOD_CPU  # noqa: E402
from isoline.store import Store  # noqa: E402


def method_cpu(storage: str, label: str) -> dict[str, tuple[int, float]]:
    """``{problem/seedN: (d, method CPU s)}`` of ``label``'s finished studies."""
    out = {}
    with Store(storage) as store:
        for rec in store.studies():
            parts = rec.name.split("/")
            cpu = rec.attrs.get(METHOD_CPU)
            if len(parts) != 4 or parts[2] != label or not rec.finished or cpu is None:
                continue
            out[f"{parts[1]}/{parts[3]}"] = (len(store.trials(rec)[0].u), float(cpu))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", nargs=2, required=True, metavar=("STORE", "LABEL"))
    ap.add_argument("--later", nargs=2, required=True, metavar=("STORE", "LABEL"))
    a = ap.parse_args()
    suite, later = method_cpu(*a.suite), method_cpu(*a.later)
    shared = sorted(set(suite) & set(later))
    print(f"| cells | n | {a.later[1]} CPU s | {a.suite[1]} CPU s | ratio |")
    print("|---|---|---|---|---|")
    for name, keep in (("d < 10", lambda d: d < 10), ("d >= 10", lambda d: d >= 10),
                       ("all", lambda d: True)):  # fmt: skip
        cells = [c for c in shared if keep(later[c][0])]
        s_later = sum(later[c][1] for c in cells)
        s_suite = sum(suite[c][1] for c in cells)
        ratio = f"{s_later / s_suite:.2f}x" if s_suite else "n/a"
        print(f"| {name} | {len(cells)} | {s_later:.0f} | {s_suite:.0f} | {ratio} |")


if __name__ == "__main__":
    main()
