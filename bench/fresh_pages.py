"""Benchmark: how long after a change on disk a first page shows it, on the folder backend
(issue 36: a first page is always fresh, within the watcher's delay).

    python bench/fresh_pages.py                # 3,000 notes in 300 folders
    python bench/fresh_pages.py --notes 20000 --folders 2000

The vault comes from bench/generate_vault.py, copied to a temporary folder (the cached one is
never written to), served by one server in process with its index in a temporary cache. For
each question, RUNS times: its first page is asked (and kept), a new note is written on disk,
and the same first page is asked again until it shows the note. It prints the delay from the
write to that answer (best / median / worst), the part of it before the ask that showed the
note (the watcher's delay, the earlier asks answered from the kept answer), the time of a
first page asked again with no change (the generation stands: the kept answer) and of the
one that showed the change (computed again).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

import generate_vault
from vaultgate.config import Settings
from vaultgate.server import build_server

RUNS = 10
WAIT = 30.0  # seconds before a run is counted as never fresh

Question = Callable[[str], tuple[str, dict[str, Any]]]
QUESTIONS: dict[str, Question] = {
    "simple search": lambda word: ("search_vault_simple", {"query": word}),
    "structured search": lambda word: (
        "search_vault",
        {"query": {"in": [word, {"var": "content"}]}},
    ),
    "recursive listing": lambda word: (
        "list_vault_files",
        {"recursive": True, "pattern": "Fresh*"},
    ),
}


def _text(result: Any) -> str:
    assert not result.is_error, result
    return "".join(block.text for block in result.content if hasattr(block, "text"))


async def _settled(client: Client) -> None:
    """Until the index answers (its first build done, its watcher running)."""
    while True:
        result = await client.call_tool("search_vault_smart", {"query": "warm", "mode": "keyword"})
        if not result.is_error:
            return
        await asyncio.sleep(0.1)


async def measure(vault: Path) -> dict[str, dict[str, list[float]]]:
    env = {
        "VAULTGATE_VAULT": str(vault),
        "VAULTGATE_BACKEND": "folder",
        "VAULTGATE_MEMORY_DB": ":memory:",
        "VAULTGATE_TOOLS": "full",
    }
    found: dict[str, dict[str, list[float]]] = {}
    async with Client(build_server(Settings.from_env(env))) as client:
        await _settled(client)
        for name, question in QUESTIONS.items():
            times: dict[str, list[float]] = {
                "delay": [],
                "watcher": [],
                "kept": [],
                "computed": [],
            }
            for run in range(RUNS):
                word = f"freshword{name.replace(' ', '')}{run}"
                note = f"Fresh {name} {run} 日本.md"
                tool, arguments = question(word)
                await client.call_tool(tool, arguments)  # the first page, kept
                started = time.perf_counter()
                await client.call_tool(tool, arguments)  # no change: the kept answer
                times["kept"].append(time.perf_counter() - started)
                (vault / note).write_text(f"# {word}\n\n{word} 🚀\n", encoding="utf-8")
                written = time.perf_counter()
                while True:
                    asked = time.perf_counter()
                    text = _text(await client.call_tool(tool, arguments))
                    if note in text:
                        done = time.perf_counter()
                        times["delay"].append(done - written)
                        times["computed"].append(done - asked)
                        times["watcher"].append(asked - written)  # before the fresh ask
                        break
                    if time.perf_counter() - written > WAIT:
                        raise SystemExit(f"{name}: the change never showed within {WAIT} s")
                    await asyncio.sleep(0.01)
            found[name] = times
    return found


def ms(values: list[float]) -> str:
    shown = (min(values), statistics.median(values), max(values))
    return " / ".join(f"{v * 1000:.0f}" for v in shown) + " ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=3_000)
    parser.add_argument("--folders", type=int, default=300)
    args = parser.parse_args(argv)
    source = generate_vault.generate(args.notes, args.folders).path
    with tempfile.TemporaryDirectory(prefix="vaultgate-fresh-") as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(source, vault)
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")  # the index: built here
        found = asyncio.run(measure(vault))
    print(f"{args.notes} notes, {args.folders} folders; {RUNS} runs; best / median / worst\n")
    print(
        "| first page | change on disk → fresh page | of which waiting for the watcher "
        "| asked again, no change | after a change |"
    )
    print("|---|---|---|---|---|")
    for name, t in found.items():
        cells = (ms(t["delay"]), ms(t["watcher"]), ms(t["kept"]), ms(t["computed"]))
        print(f"| {name} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
