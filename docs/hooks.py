"""MkDocs hook: the docstrings cite names Sphinx-style (``:class:`Box```), which
mkdocstrings renders as ``:class:<code>Box</code>``; show the name alone, and drop the
``~`` that shortens a dotted path to its last part."""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj):<code>~?([^<]*)</code>")


def _name(m: re.Match[str]) -> str:
    text = m.group(1)
    short = m.group(0).split("<code>", 1)[1].startswith("~")
    return f"<code>{text.rsplit('.', 1)[-1] if short else text}</code>"


def on_page_content(html: str, **kwargs: Any) -> str:
    return ROLE.sub(_name, html)
