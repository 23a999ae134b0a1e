"""How the benchmark report writes a number in a table cell and a label as a file name."""

from __future__ import annotations

import numpy as np

__all__ = ["file_name", "fmt_number"]


def fmt_number(v: float) -> str:
    """``v`` with four significant digits, or ``"nan"`` when it is not finite."""
    return "nan" if not np.isfinite(v) else f"{v:.4g}"


def file_name(label: str) -> str:
    """``label`` with every character but letters, digits, ``-``, ``_`` and ``.`` made ``_``."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label)
