"""Reading a stored study back: :func:`load` returns its :class:`~isoline.Result` without
running anything (the store is opened read-only)."""

from __future__ import annotations

import difflib
import os
from typing import Any

from isoline.optimizer import Result
from isoline.params import Space
from isoline.space import Box
from isoline.store import Store, StoreError, StudyRecord

__all__ = ["STOP_ATTR", "load", "stored_space"]

#: the study attribute where a call that ended records ``{"reason": stop_reason, "trials":
#: stored trials}``; :func:`load` gives the reason back while no trial was stored since
STOP_ATTR = "stop"


def load(
    storage: str | os.PathLike[str] | Store, study: str, *, space: Box | Space | None = None
) -> Result:
    """The :class:`~isoline.Result` of the study ``study`` in ``storage``, as the run that
    stored it returned it (its finished evaluations so far, if it is still running or was
    interrupted). Nothing is evaluated and the file is not written.

    Args:
        storage: the SQLite file (or an open :class:`~isoline.Store`).
        study: the study's name.
        space: the space the study was run with. Without it the space is rebuilt from
            the stored description, which gives every parameter back except categorical
            choices that are not JSON values (objects, tuples): those come back as their
            stored form (their ``repr``, a list). Give the space to have the objects.

    Raises:
        StoreError: ``storage`` is not an isoline store, or holds no study ``study`` (the
            message names the closest study names it holds).
        ValueError: ``space`` is not the study's space.
        TypeError: ``study`` is not a string, or ``space`` not a Box or Space.
    """
    if not isinstance(study, str):
        raise TypeError(f"study must be a study name (str), got {type(study).__name__}")
    if space is not None and not isinstance(space, (Box, Space)):
        raise TypeError(f"space must be an isoline.Box or Space, got {type(space).__name__}")
    if isinstance(storage, Store):
        return _load(storage, study, space)
    if not isinstance(storage, (str, os.PathLike)):
        raise TypeError(f"storage must be a file path or a Store, got {type(storage).__name__}")
    with Store(storage, create=False, readonly=True) as store:
        return _load(store, study, space)


def _load(store: Store, study: str, space: Box | Space | None) -> Result:
    rec = store.get_study(study)
    if rec is None:
        raise StoreError(_missing(store, study))
    stored = stored_space(rec)
    if space is None:
        space = stored
    elif space.to_dict() != rec.space:
        raise ValueError(
            f"the space given is not the one study {study!r} was run with: stored "
            f"{rec.space!r}, given {space.to_dict()!r}"
        )
    trials = store.trials(rec)
    res = Result.from_trials(rec, trials, store.path, space)
    stop = rec.attrs.get(STOP_ATTR)
    if isinstance(stop, dict) and stop.get("trials") == len(trials):  # nothing ran since
        res.stop_reason = str(stop.get("reason", ""))
    return res


def stored_space(rec: StudyRecord) -> Box | Space:
    """The space of a stored study, rebuilt from its description.

    Raises:
        StoreError: the description is neither a Box's nor a Space's.
    """
    d: Any = rec.space
    try:
        if isinstance(d, dict) and "params" in d:
            return Space.from_dict(d)
        if isinstance(d, dict) and "lower" in d:
            return Box.from_dict(d)
    except (ValueError, TypeError, KeyError) as err:
        raise StoreError(f"study {rec.name!r} has a malformed space description: {err}") from None
    raise StoreError(f"study {rec.name!r} has no space description a Box or Space reads: {d!r}")


def _missing(store: Store, study: str) -> str:
    names = [s.name for s in store.studies()]
    if not names:
        return f"no study {study!r} in {store.path}: the store holds no study"
    close = difflib.get_close_matches(study, names, n=5, cutoff=0.5)
    if close:
        return f"no study {study!r} in {store.path}; did you mean {', '.join(map(repr, close))}?"
    shown = ", ".join(map(repr, names[:10]))
    more = f" and {len(names) - 10} more" if len(names) > 10 else ""
    return f"no study {study!r} in {store.path}; it holds {shown}{more}"
