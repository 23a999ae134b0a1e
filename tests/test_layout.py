"""The README's layout is the package's import rule: a module imports only from the
modules listed below it (and from its own folder). This test reads that block and checks
every ``isoline`` import in ``src/isoline`` against it, so a new module must be placed in
the README and an import that runs back up fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "isoline"
NAME = re.compile(r"^[a-z_]+(\.py|/)$")


def _layers() -> list[list[str]]:
    """The README layout block's top-level entries, one list per line, top line first."""
    text = (ROOT / "README.md").read_text()
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    layers = []
    for line in block.splitlines()[1:]:
        if not line or line[0] == " ":  # continuation or a folder's own modules
            continue
        names = []
        for token in line.split():
            if not NAME.match(token):
                break
            names.append(token.rstrip("/").removesuffix(".py"))
        layers.append(names)
    return layers


def _unit(module: str) -> str:
    """The top-level entry of ``isoline.a.b`` (``a``), or ``__init__`` for the package."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports() -> dict[str, set[str]]:
    """Each top-level entry of the package -> the entries its modules import."""
    out: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE)
        unit = rel.parts[0].removesuffix(".py")  # __init__ for the package's own
        targets = out.setdefault(unit, set())
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{rel}: relative import; import isoline.… by name"
                names = [node.module] if node.module else []
                if node.module == "isoline":  # from isoline import store
                    names = [f"isoline.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            targets.update(_unit(n) for n in names if n.split(".")[0] == "isoline")
    return out


def _rank() -> dict[str, int]:
    return {name: i for i, layer in enumerate(_layers()) for name in layer}


def test_every_top_level_module_is_placed_in_the_readme_layout() -> None:
    rank = _rank()
    missing = sorted(set(_imports()) - set(rank))
    assert not missing, f"add {missing} to the README's layout block, below what imports them"


def test_every_import_points_down_the_readme_layout() -> None:
    rank = _rank()
    up = [
        f"{unit} imports {target}"
        for unit, targets in _imports().items()
        for target in targets
        if target != unit and target in rank and unit in rank and rank[target] <= rank[unit]
    ]
    assert not up, f"imports that do not point down the README's layout: {sorted(up)}"


def test_the_layout_block_is_read() -> None:
    rank = _rank()
    assert rank["cli"] < rank["runs"] < rank["methods"] < rank["store"] < rank["validation"]
