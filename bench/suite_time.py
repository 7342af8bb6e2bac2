"""Benchmark: how long the README's test command takes, against issue 22's bar of 5 minutes.

Runs ``bash scripts/test`` (format, lint, mypy --strict, the whole suite on every core) once
the venv is set up, reads the seconds per stage it prints, and writes them to
docs/benchmarks.md. Exits 1 when the run fails or takes 5 minutes or more; tests never time
anything, this does.

    python bench/suite_time.py
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import time

from report import ROOT, write_section

BAR_SECONDS = 300  # issue 22: the whole suite in under 5 minutes on a 2-core machine
_STAGE = re.compile(r"^\s+(\w+)\s+(\d+) s\s+(ok|FAILED.*)$")
_PASSED = re.compile(r"(\d+) passed")


def main() -> int:
    started = time.monotonic()
    done = subprocess.run(
        ["bash", "scripts/test", "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.monotonic() - started
    stages = [m.groups() for line in done.stderr.splitlines() if (m := _STAGE.match(line))]
    passed = _PASSED.findall(done.stdout)
    rows = "\n".join(f"| {name} | {took} | {verdict} |" for name, took, verdict in stages)
    within = done.returncode == 0 and seconds < BAR_SECONDS
    write_section(
        "suite_time",
        f"""## The test command (issue 22)

`bash scripts/test` once set up, on {os.cpu_count()} cores ({platform.python_version()}):
{passed[-1] if passed else "?"} tests, **{seconds:.0f} s in all** against the bar of
{BAR_SECONDS} s ({"within" if within else "NOT within"} it). Rerun: `python bench/suite_time.py`.

| Stage | Seconds | Verdict |
| --- | ---: | --- |
{rows}
""",
    )
    print(f"scripts/test: {seconds:.0f} s (bar {BAR_SECONDS} s), exit {done.returncode}")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
