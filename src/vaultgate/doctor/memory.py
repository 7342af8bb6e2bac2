"""The memory database row: it opens, takes a write, and has a schema this vaultgate knows."""

from __future__ import annotations

from vaultgate.doctor.report import Check
from vaultgate.memory.connection import MEMORY
from vaultgate.memory.health import probe
from vaultgate.memory.migrations import LATEST_VERSION

_FIX = (
    "Point VAULTGATE_MEMORY_DB at a file in a folder you can write to (or ':memory:'); the "
    "vault tools do not need it."
)


def memory_check(path: str) -> Check:
    if path == MEMORY:
        return Check("memory", True, ":memory: (kept in RAM, lost when the server stops)")
    health = probe(path)
    if health.problem is not None:
        what = "cannot be opened" if health.stage == "open" else "opens but cannot be written"
        return Check("memory", False, f"{path} {what} ({health.problem})", _FIX)
    if health.newer_than_known:
        return Check(
            "memory",
            False,
            f"{path} has schema version {health.version}, newer than this vaultgate knows "
            f"({LATEST_VERSION})",
            "Upgrade vaultgate, or point VAULTGATE_MEMORY_DB at another file.",
        )
    state = (
        f"schema version {health.version} of {LATEST_VERSION}"
        if health.existed
        else "not made yet (the server makes it on its first memory call)"
    )
    return Check("memory", True, f"{path}: opens, writable, {state}")
