"""Apply conditional_encoding.yaml's pre-registered rule: python benchmarks/field/encoding_rule.py FINALS STORE."""

import json
import sqlite3
import sys

import numpy as np
from scipy.stats import wilcoxon

f = np.load(sys.argv[1])
L = [str(x) for x in f["labels"]]
C = [str(c) for c in f["cells"]]
F = f["F"]
imp, arc = F[:, L.index("gp-ei impute")], F[:, L.index("gp-ei arc")]
better, worse = int((arc < imp).sum()), int((arc > imp).sum())
p = float(wilcoxon(arc, imp, alternative="less").pvalue) if better + worse else 1.0
print(
    f"{len(C)} cells; arc lower in {better}, higher in {worse}, tied {len(C) - better - worse}; one-sided Wilcoxon (arc lower) p = {p:.3f}"
)
print(
    "arc becomes the default"
    if (better > worse and p < 0.05 and len(C) == 20)
    else "impute stays the default"
)
db = sqlite3.connect(sys.argv[2])
for lab in ("gp-ei impute", "gp-ei arc"):
    cpu = [
        json.loads(a).get("method_cpu")
        for (a,) in db.execute(
            "select attrs from studies where finished=1 and name like ?", (f"%/{lab}/%",)
        )
    ]
    cpu = [c for c in cpu if c is not None]
    print(
        f"{lab}: method CPU median {np.median(cpu):.1f} s, sum {sum(cpu):.0f} s over {len(cpu)} runs"
    )
