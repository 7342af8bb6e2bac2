"""Benchmark: how soon a note tagged ``mcp-hidden`` elsewhere stops being shown, and what
checking costs (issue 36, item 3).

    python bench/hidden_latency.py                 # 3,000 notes; ranking on 20,000
    python bench/hidden_latency.py --quick         # 1,000 notes; ranking on 2,000

Three measures, on vaults from bench/generate_vault.py (copied: notes are edited):

- **folder**: a server on the vault folder; a note found by a simple search gets
  ``tags: [mcp-hidden]`` written into it by another program, and the same search (asked anew
  each time, so no cached answer) is repeated every 5 ms until the note is gone: the watcher's
  delay plus the index's refresh, as the model sees it.
- **plugin**: the guard in front of the emulator (5.1.0, HTTP on 127.0.0.1). A simple search
  whose answer shows k notes' text costs k reads of those notes (up to READS_BEFORE_SEARCH)
  or one marks search: the plugin's search alone against the guarded one, for k = 1, 10, 32,
  33, and one marks search. Then the bound on names: a note tagged elsewhere leaves the
  one-level listing within MARKS_TTL_SECONDS (measured, polled every 50 ms).
- **ranking**: ``VaultIndex.ranked_by_words`` (bm25 over the reachable notes) against FTS5's
  own ``bm25()`` in one query, for a rare and a broad word, with 1% of the notes unreachable.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

import generate_vault
from vaultgate.config import ObsidianSettings, SafetySettings, Secret, Settings
from vaultgate.emulator.runner import start_emulator
from vaultgate.engine.index import VaultIndex
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client
from vaultgate.server import build_server
from vaultgate.vault.guard import MARKS_TTL_SECONDS, READS_BEFORE_SEARCH, GuardedClient
from vaultgate.vault.policy import AccessPolicy

RUNS = 10
HIDDEN = "---\ntags: [mcp-hidden]\n---\n"


def copy_of(notes: int, folders: int, into: Path) -> tuple[Path, list[Path]]:
    source = generate_vault.generate(notes, folders).path
    vault = into / "vault"
    shutil.copytree(source, vault)
    found = sorted(p for p in vault.rglob("*.md") if ".obsidian" not in p.parts)
    return vault, found


async def text(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(tool, arguments)
    return "\n".join(getattr(block, "text", "") for block in result.content)


async def until(check: Callable[[], Any], pause: float, limit: float = 60.0) -> float:
    started = time.perf_counter()
    while not await check():
        if time.perf_counter() - started > limit:
            raise TimeoutError("not hidden within the limit")
        await asyncio.sleep(pause)
    return time.perf_counter() - started


async def folder_latency(vault: Path, notes: list[Path]) -> list[float]:
    for n, note in enumerate(notes[:RUNS]):
        note.write_text(f"hiddenword{n} and some text\n", encoding="utf-8")
    settings = Settings.from_env(
        {
            "VAULTGATE_VAULT": str(vault),
            "VAULTGATE_BACKEND": "folder",
            "VAULTGATE_MEMORY_DB": ":memory:",
            "VAULTGATE_TOOLS": "full",
        }
    )
    seconds = []
    asked = iter(range(1, 1_000_000))
    async with Client(build_server(settings)) as client:

        async def shown(n: int) -> bool:
            query = {"query": f"hiddenword{n}", "contextLength": 10 + next(asked)}
            return "hiddenword" in await text(client, "search_vault_simple", query)

        for n, note in enumerate(notes[:RUNS]):
            await until(lambda n=n: shown(n), 0.05)  # the index knows the note
            note.write_text(HIDDEN + f"hiddenword{n} and some text\n", encoding="utf-8")

            async def gone(n: int = n) -> bool:
                return not await shown(n)

            seconds.append(await until(gone, 0.005))
    return seconds


async def plugin_costs(vault: Path, notes: list[Path]) -> dict[str, Any]:
    sizes = [1, 10, READS_BEFORE_SEARCH, READS_BEFORE_SEARCH + 1]
    for k in sizes:
        for note in notes[100 : 100 + k]:
            with note.open("a", encoding="utf-8") as out:
                out.write(f"\nshownword{k}\n")
    costs: dict[str, Any] = {}
    with start_emulator(vault, plugin_version="5.1.0", https_port=None, http_port=0) as emulator:
        assert emulator.http_url is not None
        port = int(emulator.http_url.rsplit(":", 1)[1].rstrip("/"))
        settings = ObsidianSettings(api_key=Secret(emulator.api_key), protocol="http", port=port)
        async with await build_http_client(settings) as http:
            plugin = ObsidianClient(settings, http)
            guarded = GuardedClient(plugin, AccessPolicy(SafetySettings()))
            await guarded.list_directory("")  # the marks searched once, as a session would

            async def timed(search: Callable[[], Any]) -> float:
                times = []
                for _ in range(5):
                    started = time.perf_counter()
                    await search()
                    times.append(time.perf_counter() - started)
                return statistics.median(times)

            for k in sizes:
                word = f"shownword{k}"
                raw = await timed(lambda word=word: plugin.search_simple(word, 10))
                checked = await timed(lambda word=word: guarded.search_simple(word, 10))
                costs[k] = (raw, checked)
            costs["marks"] = await timed(plugin.marked_notes)
            tagged = notes[5]
            listing = tagged.parent.relative_to(vault).as_posix() + "/"

            async def unlisted() -> bool:
                return tagged.name not in await guarded.list_directory(listing)

            bound = []
            for _ in range(2):
                body = tagged.read_text(encoding="utf-8")
                await guarded.list_directory(listing)
                tagged.write_text(HIDDEN + body, encoding="utf-8")
                bound.append(await until(unlisted, 0.05, MARKS_TTL_SECONDS * 3))
                tagged.write_text(body, encoding="utf-8")
                await asyncio.sleep(MARKS_TTL_SECONDS + 0.5)  # the untagged note named again
            costs["bound"] = bound
    return costs


def ranking_costs(vault: Path, into: Path) -> dict[str, tuple[float, float]]:
    location = into / "index.sqlite3"
    paths = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    unreachable = set(paths[::100])

    def reachable(path: str) -> bool:
        return path not in unreachable

    for note in sorted(vault.rglob("*.md"))[7:10]:
        with note.open("a", encoding="utf-8") as out:
            out.write("\nzeppelin\n")
    words = {"rare": "zeppelin", "broad": generate_vault.BROAD_WORD}
    costs = {}
    with VaultIndex(vault, location=location) as index:
        index.sync()
        conn = sqlite3.connect(location)
        for name, word in words.items():
            ours, theirs = [], []
            for _ in range(5):
                started = time.perf_counter()
                index.ranked_by_words(str(word), reachable, 200)
                ours.append(time.perf_counter() - started)
                started = time.perf_counter()
                rows = conn.execute(
                    "SELECT notes.path, bm25(notes_words) AS rank FROM notes_words JOIN notes"
                    " ON notes.id = notes_words.rowid WHERE notes_words MATCH ? ORDER BY rank",
                    (f'"{word}"*',),
                )
                kept = 0
                for path, _ in rows:
                    if reachable(path):
                        kept += 1
                        if kept >= 200:
                            break
                theirs.append(time.perf_counter() - started)
            costs[name] = (statistics.median(ours), statistics.median(theirs))
        conn.close()
    return costs


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    small = (1_000, 100) if args.quick else (3_000, 300)
    large = (2_000, 200) if args.quick else (20_000, 2_000)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        vault, notes = copy_of(*small, root / "folder")
        folder = asyncio.run(folder_latency(vault, notes))
        vault, notes = copy_of(*small, root / "plugin")
        plugin = asyncio.run(plugin_costs(vault, notes))
        vault, _ = copy_of(*large, root / "ranking")
        ranking = ranking_costs(vault, root)
    print(f"folder, {small[0]:,} notes: tagged elsewhere → text gone (simple search), {RUNS} runs")
    print(f"  median {ms(statistics.median(folder))}, max {ms(max(folder))}\n")
    print(f"plugin 5.1.0 emulator, {small[0]:,} notes: simple search, median of 5")
    print("| hits (text shown) | plugin alone | with the tags checked now |")
    print("|---|---|---|")
    for k in (1, 10, READS_BEFORE_SEARCH, READS_BEFORE_SEARCH + 1):
        print(f"| {k} | {ms(plugin[k][0])} | {ms(plugin[k][1])} |")
    print(f"one marks search: {ms(plugin['marks'])}")
    print(
        f"names through the plugin: listing drops a note tagged elsewhere after "
        f"{', '.join(ms(s) for s in plugin['bound'])} (bound {MARKS_TTL_SECONDS:.0f} s)\n"
    )
    print(f"ranking, {large[0]:,} notes, 1% unreachable: ranked_by_words / FTS5 bm25 alone")
    for name, (ours, theirs) in ranking.items():
        print(f"  {name}: {ms(ours)} / {ms(theirs)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
