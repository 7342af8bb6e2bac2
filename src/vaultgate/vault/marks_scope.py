"""Which marks search the call under way ran, so that the notes it names are the ones that
search saw (``vault/guard.py``).

A call (one tool call, one resource check) runs in one task; a marks search it runs is
remembered in a context variable, which the call's later steps (a walk lists folder after
folder) see and no other task does. A long-lived task that makes many calls (the resource
watcher) starts each with ``new_call``.
"""

from __future__ import annotations

from contextvars import ContextVar

SEARCHED: ContextVar[object | None] = ContextVar("vaultgate_marks_searched", default=None)


def new_call() -> None:
    """What this task does from now on is a new call: no marks search of its own yet."""
    SEARCHED.set(None)
