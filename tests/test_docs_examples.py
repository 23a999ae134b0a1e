"""Every ```python block of README.md and docs/**/*.md runs, so no example can rot.

The blocks of one page run in order in one namespace (a page may build on its earlier
blocks), in a fresh temporary directory. A block preceded by ``<!-- not-run: REASON -->``
is skipped and shows as a skipped test with its reason. A block holding only
``--8<-- "path"`` lines (a snippet include, as the examples gallery renders its scripts)
runs the included files, as ``__main__``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(\S*)\s*$")
NOT_RUN = re.compile(r"^<!--\s*not-run:(.*?)-->\s*$")
SNIPPET = re.compile(r'^--8<--\s+"([^"]+)"\s*$')


@dataclass
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    code: str
    skip: str | None  # the reason, for a block marked not-run


def blocks(page: Path) -> list[Block]:
    """The ```python blocks of ``page`` in order, with their not-run reasons."""
    out: list[Block] = []
    lines = page.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m.group(1):
            i += 1
            continue
        start, lang = i, m.group(1)
        i += 1
        body = []
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise ValueError(f"{page}:{start + 1}: code block is not closed")
        i += 1
        if lang != "python":
            continue
        prev = next((ln for ln in reversed(lines[:start]) if ln.strip()), "")
        mark = NOT_RUN.match(prev.strip())
        if mark and not mark.group(1).strip():
            raise ValueError(f"{page}:{start + 1}: a not-run mark needs a reason")
        out.append(Block(page, start + 1, expand("\n".join(body)), mark and mark.group(1).strip()))
    return out


def expand(code: str) -> str:
    """A block of snippet includes becomes the included files' text."""
    found = [SNIPPET.match(ln) for ln in code.splitlines() if ln.strip()]
    if not found or not all(found):
        return code
    return "\n".join((ROOT / m.group(1)).read_text() for m in found if m)


def _id(page: Path) -> str:
    return str(page.relative_to(ROOT))


ALL = [b for page in PAGES for b in blocks(page)]
RUN_PAGES = sorted({b.page for b in ALL if b.skip is None})


def test_the_readme_and_the_guide_have_python_examples() -> None:
    assert any(b.page.name == "README.md" and b.skip is None for b in ALL)
    assert len(RUN_PAGES) >= 5


def test_a_block_without_a_closing_fence_is_an_error(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("text\n\n```python\nx = 1\n")
    with pytest.raises(ValueError, match="not closed"):
        blocks(page)


def test_a_not_run_mark_is_read_and_needs_a_reason(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- not-run: needs a GPU -->\n```python\nx = 1\n```\n```bash\nls\n```\n")
    (block,) = blocks(page)
    assert block.skip == "needs a GPU" and block.code == "x = 1" and block.line == 2
    page.write_text("<!-- not-run: -->\n```python\nx = 1\n```\n")
    with pytest.raises(ValueError, match="needs a reason"):
        blocks(page)


@pytest.mark.parametrize("page", RUN_PAGES, ids=_id)
def test_page_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # examples may write stores, plots and CSV files
    namespace: dict[str, object] = {"__name__": "__main__"}
    for block in blocks(page):
        if block.skip is not None:
            continue
        where = f"{_id(page)}:{block.line}"
        try:
            exec(compile(block.code, where, "exec"), namespace)
        except Exception as err:
            raise AssertionError(f"the example at {where} failed: {err!r}") from err


SKIPPED = [b for b in ALL if b.skip is not None]


@pytest.mark.parametrize("block", SKIPPED, ids=[f"{_id(b.page)}:{b.line}" for b in SKIPPED])
def test_not_run_examples_say_why(block: Block) -> None:
    pytest.skip(f"not run: {block.skip}")
