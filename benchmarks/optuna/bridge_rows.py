"""What the Optuna bridge benchmarks share: a JSON-lines file of finished studies that an
interrupted run resumes from, and the seed range of the command line."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any


def read_rows(out: Path) -> list[dict[str, Any]]:
    """Every finished study's row in ``out`` (none if the file does not exist)."""
    return [json.loads(x) for x in out.read_text().splitlines()] if out.exists() else []


def append_row(out: Path, row: dict[str, Any]) -> None:
    """Append one finished study's row to ``out``."""
    with out.open("a") as fh:
        fh.write(json.dumps(row) + "\n")


def seed_range(text: str) -> list[int]:
    """``"0-4"`` -> ``[0, 1, 2, 3, 4]``; ``"3"`` -> ``[3]``."""
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def command_line(
    doc: str | None,
    run: Callable[[argparse.Namespace], None],
    summary: Callable[[argparse.Namespace], None],
    trials: int | None = None,
    choices: dict[str, tuple[str, ...]] | None = None,
) -> None:
    """``run --out F [--seeds 0-4] [--trials N]`` and ``summary --out F`` of a bridge
    benchmark (``trials``: the default of ``--trials``; ``None``: no such option).
    ``choices``: more options of both commands, ``--name`` taking one of the given values
    (the first is the default)."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--out", required=True)
    r.add_argument("--seeds", default="0-4")
    if trials is not None:
        r.add_argument("--trials", type=int, default=trials)
    r.set_defaults(func=run)
    s = sub.add_parser("summary")
    s.add_argument("--out", required=True)
    s.set_defaults(func=summary)
    for name, values in (choices or {}).items():
        for command in (r, s):
            command.add_argument(f"--{name}", choices=values, default=values[0])
    args = ap.parse_args()
    args.func(args)
