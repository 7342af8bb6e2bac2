"""docs/benchmarks.md is written by several benchmarks: each owns one marked section.

A section lies between ``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->``; writing it
replaces only that part, so rerunning one benchmark leaves the others' numbers in place.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "docs" / "benchmarks.md"
QUICK_FOLDER = ROOT / "bench" / ".cache"  # a quick run's report: not the benchmark's figures
HEADER = """# Benchmarks

Speed and size, measured on this project's 2-core machines; tests never time anything. Each
section says how to rerun it: `python bench/run.py` (vault reads on 20,000 notes),
`python bench/tools_list.py` (the size of tools/list per tool profile),
`python bench/memory_bench.py` (the memory store at 100,000 observations),
`python bench/call_path.py` (one tool call over stdio, and start-up) and
`python bench/scale.py` (the folder backend at 5,000, 20,000 and 80,000 notes).
"""


def write_section(name: str, body: str, path: Path = REPORT) -> None:
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{body.strip()}\n{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = f"{text.rstrip()}\n\n{block}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def publish(name: str, body: str, *, quick: bool) -> None:
    """``body`` as docs/benchmarks.md's section ``name``, or, from a quick run, as
    bench/.cache/``name``-quick.md (a smaller run never replaces the benchmark's figures)."""
    if quick:
        QUICK_FOLDER.mkdir(exist_ok=True)
        (QUICK_FOLDER / f"{name}-quick.md").write_text(body, encoding="utf-8")
    else:
        write_section(name, body)
