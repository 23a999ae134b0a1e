"""Keep a long benchmark's finished runs in the repository, in parts, across machines.

    python benchmarks/store_parts.py save STORE DIR      # finished studies not yet in DIR
    python benchmarks/store_parts.py restore DIR STORE   # before resuming on a new machine

A bench store lives outside the repository and is lost with its machine. ``save`` writes
the store's finished studies that no part in ``DIR`` holds yet into a new part,
``DIR/part-NNN.db.xz`` (an isoline store, xz-compressed), so each commit adds only the runs
finished since the last one. A study made again (deleted with ``isoline delete`` and run
anew, so its creation time differs from the saved one) is saved again in the new part and
supersedes the old. ``restore`` copies the studies into ``STORE`` (``isoline merge``),
each from the newest part that holds it; studies already in ``STORE`` are left alone, so
restore into a new store. The suite's runner then skips them and runs the rest. Reports
read ``STORE`` as usual.
"""

from __future__ import annotations

import argparse
import lzma
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from isoline.store import Store

PART = re.compile(r"part-(\d{3})\.db\.xz$")


def parts(folder: Path) -> list[Path]:
    """The parts in ``folder``, oldest first."""
    return sorted(p for p in folder.glob("part-*.db.xz") if PART.search(p.name))


@contextmanager
def opened(part: Path) -> Iterator[Store]:
    """A part, decompressed into a temporary file and open read-only."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "part.db"
        with lzma.open(part) as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        with Store(path, create=False, readonly=True) as store:
            yield store


def holdings(folder: Path) -> dict[str, tuple[Path, float]]:
    """Each study held by a part in ``folder``: the newest part holding it and that copy's
    creation time."""
    held: dict[str, tuple[Path, float]] = {}
    for part in parts(folder):
        with opened(part) as store:
            held.update({s.name: (part, s.created) for s in store.studies()})
    return held


def save(store_path: str, folder: Path) -> Path | None:
    folder.mkdir(parents=True, exist_ok=True)
    held = {name: created for name, (_, created) in holdings(folder).items()}
    found = parts(folder)
    with Store(store_path, create=False, readonly=True) as source:
        finished = [s for s in source.studies() if s.finished]
        new = [s.name for s in finished if s.name not in held]
        redone = [s.name for s in finished if s.name in held and s.created != held[s.name]]
        if not new and not redone:
            print(f"{folder}: every finished study of {store_path} is saved already")
            return None
        number = int(PART.search(found[-1].name).group(1)) + 1 if found else 1
        out = folder / f"part-{number:03d}.db.xz"
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "part.db"
            with Store(path) as target:
                copied = target.copy_studies(source, new + redone)
                if copied.refused:  # a part must hold every study it names, checked
                    raise SystemExit(_refusals(copied.refused))
                target.conn.execute("PRAGMA journal_mode = DELETE")
                target.conn.execute("VACUUM")
            with open(path, "rb") as src, lzma.open(out, "wb", preset=9) as dst:
                shutil.copyfileobj(src, dst)
    print(
        f"{out}: {len(new)} finished studies, {len(redone)} made again "
        f"({out.stat().st_size / 1e6:.2f} MB)"
    )
    return out


def restore(folder: Path, store_path: str) -> None:
    found = parts(folder)
    if not found:
        raise SystemExit(f"no parts (part-NNN.db.xz) in {folder}")
    newest = {name: part for name, (part, _) in holdings(folder).items()}
    with Store(store_path) as target:
        for part in found:
            with opened(part) as store:
                names = [s.name for s in store.studies()]
                mine = [n for n in names if newest[n] == part]
                out = target.copy_studies(store, mine)
            print(
                f"{part.name}: {len(out.copied)} studies copied, {len(out.skipped)} already "
                f"there, {len(names) - len(mine)} made again in a later part"
            )
            if out.refused:
                raise SystemExit(f"{part.name}: {_refusals(out.refused)}")


def _refusals(refused: list[tuple[str, str]]) -> str:
    return "refused " + "; ".join(f"{name}: {why}" for name, why in refused)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("save", help="write the finished studies not yet saved into a new part")
    s.add_argument("store")
    s.add_argument("folder", type=Path)
    r = sub.add_parser("restore", help="copy every part's studies into a store")
    r.add_argument("folder", type=Path)
    r.add_argument("store")
    args = ap.parse_args(argv)
    if args.cmd == "save":
        save(args.store, args.folder)
    else:
        restore(args.folder, args.store)


if __name__ == "__main__":
    main()
