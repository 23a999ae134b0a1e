"""What ``isoline methods`` prints: one line per method, or one method's options.

Plain text that fits 80 columns: the table is one line per method (name, family, batch
support, summary); a method's page lists each option with its default and the sentence
its class documents for it (the ``Options:`` section of its docstring, read along the
class hierarchy as :func:`~isoline.methods.registry.option_defaults` reads the defaults).
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING

from isoline.methods.registry import get_method, methods, option_defaults, resolve_name

if TYPE_CHECKING:
    from isoline.auto import Rule

__all__ = ["method_page", "methods_table", "option_docs"]

WIDTH = 80
_ENTRY = re.compile(r"^    ([A-Za-z_][\w]*(?:, [A-Za-z_][\w]*)*): ?(.*)$")
_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")


def _plain(text: str) -> str:
    """``text`` without reStructuredText markup: roles become their last name part."""
    text = _ROLE.sub(lambda m: m.group(1).rsplit(".", 1)[-1], text)
    return " ".join(text.replace("``", "").split())


def _options_section(doc: str) -> dict[str, str]:
    """Name -> text of each entry of the ``Options:`` section of docstring ``doc``."""
    out: dict[str, str] = {}
    _, found, section = doc.partition("\nOptions")
    current: list[str] = []
    for line in section.split("\n")[1:] if found else []:
        if line and not line.startswith(" "):
            break  # the section ends at the next unindented line
        entry = _ENTRY.match(line)
        if entry:
            current = entry.group(1).split(", ")
            out.update(dict.fromkeys(current, entry.group(2)))
        elif line.startswith("        ") and current:
            out.update({n: f"{out[n]} {line.strip()}" for n in current})
        else:
            current = []
    return out


def option_docs(cls: type) -> dict[str, str]:
    """Option name -> its description in the ``Options:`` sections of ``cls`` and its bases
    (the most derived class's description of a name wins)."""
    out: dict[str, str] = {}
    for klass in cls.__mro__:
        doc = "\n" + inspect.cleandoc(vars(klass).get("__doc__") or "")
        for name, text in _options_section(doc).items():
            out.setdefault(name, _plain(text))
    return out


def methods_table() -> str:
    """Every registered method on one line: name, family, batch support and summary."""
    infos = methods()
    w_name = max(len(m.name) for m in infos) + 2
    w_family = max(len(m.family) for m in infos) + 2
    lines = [f"{'method':<{w_name}}{'family':<{w_family}}{'batch':<7}summary"]
    for m in infos:
        row = f"{m.name:<{w_name}}{m.family:<{w_family}}{'yes' if m.supports_batch else 'no':<7}"
        lines.append(row + textwrap.shorten(m.summary, WIDTH - len(row), placeholder="..."))
    lines += [
        "",
        "method='auto' (the default) picks one of these by rules: isoline methods auto",
        "A method's options and defaults: isoline methods NAME",
    ]
    return "\n".join(lines)


def _wrap(text: str, indent: int, hang: int = 0) -> list[str]:
    """``text`` wrapped at :data:`WIDTH`, indented, continuation lines ``hang`` further."""
    pad = " " * indent
    return textwrap.wrap(
        text, WIDTH, initial_indent=pad, subsequent_indent=pad + " " * hang,
        break_on_hyphens=False,
    ) or [pad]  # fmt: skip


def method_page(name: str) -> str:
    """Method ``name``'s family, paper and options with their defaults and descriptions;
    for ``"auto"``, its rules in the order they are tried."""
    key = resolve_name(name)
    if key == "auto":
        return _auto_page()
    cls = get_method(key)
    lines = [f"{key}: {getattr(cls, 'summary', '') or cls.__name__}"]
    facts = [f"family: {cls.family}", f"batches: {'yes' if cls.supports_batch else 'no'}"]
    lines += _wrap("; ".join(facts), 0)
    if cls.paper:
        lines += _wrap(f"paper: {cls.paper}", 0, hang=2)
    if cls.family == "peer":
        lines += _wrap(
            "a peer, for comparisons: it also takes the keyword arguments of the library's "
            "own sampler or optimizer (help(isoline.methods.peers))",
            0,
        )
    defaults = option_defaults(key)
    docs = option_docs(cls)
    lines += ["", "options (default):" if defaults else "options: none of its own"]
    for opt, default in defaults.items():
        lines.append(f"  {opt} = {default!r}")
        if docs.get(opt):
            lines += _wrap(docs[opt], 6)
    lines += [
        "",
        "common to every method: seed, batch_size, n_init, init",
        f"help(isoline.methods.registry.get_method({key!r})) shows the whole docstring",
    ]
    return "\n".join(lines)


def _rule_lines(rules: Sequence[Rule]) -> list[str]:
    lines: list[str] = []
    for i, rule in enumerate(rules, 1):
        lines += ["", f"{i}. {rule.name} -> {rule.method}"]
        for label, text in (("when", rule.when), ("why", rule.reason), ("report", rule.report)):
            lines += _wrap(f"{label}: {text}", 3, hang=2)
    return lines


def _auto_page() -> str:
    from isoline import auto

    lines = _wrap(
        "method='auto' takes the first rule that applies to the space, budget, batch size, "
        "noise (option noisy=) and asynchronous workers (option workers=); each rule's "
        "report is under benchmarks/results/.",
        0,
    )
    lines += _rule_lines(auto.RULES)
    lines += ["", *_wrap("With several objectives or black-box constraints it takes the first of "
                         "these instead:", 0)]  # fmt: skip
    lines += _rule_lines(auto.OUTPUT_RULES)
    return "\n".join(lines)
