"""The doctor's rows and how they are printed."""

from __future__ import annotations

import sys
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Check:
    """One row: what was tried, whether it worked, and how to fix it when it did not.

    A warning (``ok`` and ``warning``) is printed but does not fail the doctor.
    """

    name: str
    ok: bool
    detail: str
    fix: str = ""
    warning: bool = False


def warn(name: str, detail: str, fix: str = "") -> Check:
    return Check(name, True, detail, fix, warning=True)


def render(checks: list[Check]) -> str:
    width = max(len(check.name) for check in checks)
    lines = []
    for check in checks:
        mark = "FAIL" if not check.ok else "warn" if check.warning else "ok  "
        lines.append(f"{mark}  {check.name.ljust(width)}  {check.detail}")
        if check.fix:
            lines.append(f"{'':4}  {'':{width}}  → {check.fix}")
    return "\n".join(lines)


def say(text: str) -> None:
    """The doctor is a command of its own (never the server), so stdout is its report."""
    sys.stdout.write(text + "\n")
