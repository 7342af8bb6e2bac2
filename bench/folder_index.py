"""Benchmark of the vault index (src/vaultgate/engine/index/) on the generated 20,000-note vault.

    python bench/folder_index.py            # 20,000 notes in 2,000 folders
    python bench/folder_index.py --quick    # 2,000 notes in 200 folders

The vault comes from bench/generate_vault.py (cached) and is copied to a temporary folder,
since the watcher's measure edits a note; the index file lives in that folder too, so every
run starts with a first build. Measured in this process, one after the other:

- first build: ``VaultIndex(...)`` (creating the file) and ``sync()`` over every note;
- up-to-date start: a new ``VaultIndex`` on the same file and its ``sync()`` with nothing
  changed (open, fold table, scan of the folder, comparison), RUNS times;
- a change picked up by the watcher: a note rewritten with a new word, from the moment the
  file is closed until ``candidates()`` of that word returns it, polled every millisecond,
  EDITS times, the watcher running on an asyncio loop as the server runs it;
- ``candidates()`` of a rare word and of a broad one (in about 30% of the notes), RUNS times,
  and beside them the exact matcher (``simple_search``) over the candidates and over every
  note, for scale;
- the process's memory: peak RSS (``ru_maxrss``) after the build and the watcher, before the
  exact matcher's full scans fill the Vault's text cache.

The machine is shared, so each figure repeated is given as best / median. It prints a
markdown table with the issue's target beside each figure (docs/benchmarks.md is written by
whoever integrates it).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import platform
import resource
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import generate_vault
from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.index import VaultIndex
from vaultgate.engine.index.watcher import watch
from vaultgate.engine.simple_search import SimpleSearchOptions, simple_search
from vaultgate.engine.vault import Vault

RUNS = 9
EDITS = 15
RARE_WORD = "zeppelin"  # written into three notes by the benchmark
RARE_NOTES = 3
# issue 12's targets
TARGET_BUILD_S = 30.0
TARGET_START_S = 1.0
TARGET_CHANGE_S = 1.0
TARGET_RSS_MB = 300.0


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def best_median(values: list[float]) -> tuple[float, float]:
    return min(values), statistics.median(values)


def timed(work: Callable[[], object], runs: int) -> list[float]:
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        seconds.append(time.perf_counter() - started)
    return seconds


def peak_rss_mb() -> float:
    # kilobytes on Linux, bytes on macOS
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


def fmt(seconds: float) -> str:
    if seconds < 0.01:
        return f"{seconds * 1000:.2f} ms"
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def pair(values: list[float]) -> str:
    low, mid = best_median(values)
    return f"{fmt(low)} / {fmt(mid)}"


def met(value: float, target: float) -> str:
    return "yes" if value <= target else "**no**"


def append(path: Path, text: str) -> float:
    """Rewrite the note with ``text`` appended, as an editor saves; the moment it is closed."""
    whole = path.read_text(encoding="utf-8") + text
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(whole)
    return time.perf_counter()


async def watcher_latencies(index: VaultIndex, folder: Path, notes: list[str]) -> list[float]:
    """Seconds from a note's file closed to its new word found by ``candidates()``."""
    stop = asyncio.Event()
    task = asyncio.create_task(watch(index, stop))
    try:
        # the watcher starts in the background: wait until a probe note is indexed
        probe = folder / "watcher probe.md"
        for attempt in range(200):
            probe.write_text(f"probe{attempt}word", encoding="utf-8")
            for _ in range(50):
                await asyncio.sleep(0.01)
                if index.candidates(f"probe{attempt}word"):
                    break
            else:
                continue
            break
        latencies = []
        for number, path in enumerate(notes[:EDITS]):
            word = f"quetzal{number}x"
            saved = append(folder / path, f"\n{word}\n")
            while not index.candidates(word):
                await asyncio.sleep(0.001)
                if time.perf_counter() - saved > 30:
                    raise RuntimeError(f"the watcher never indexed {path}")
            latencies.append(time.perf_counter() - saved)
            await asyncio.sleep(0.2)  # let the watcher's batch for this edit end
        return latencies
    finally:
        stop.set()
        await task


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 notes in 200 folders")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    notes, folders = (2_000, 200) if args.quick else (20_000, 2_000)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s: %(message)s")
    logging.getLogger("watchfiles").setLevel(logging.WARNING)  # a line per change otherwise

    generated = generate_vault.generate(notes, folders, args.seed)
    with tempfile.TemporaryDirectory(prefix="vaultgate-index-bench-") as scratch:
        folder = Path(scratch) / "vault"
        log(f"copying {generated.path} ...")
        shutil.copytree(generated.path, folder)
        location = Path(scratch) / "index" / "vault.sqlite3"
        paths = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.md"))
        for path in paths[:: len(paths) // RARE_NOTES][:RARE_NOTES]:
            append(folder / path, f"\nA {RARE_WORD} flew over.\n")

        log("first build ...")
        started = time.perf_counter()
        with VaultIndex(folder, location=location) as index:
            report = index.sync()
        build = time.perf_counter() - started
        build_rss = peak_rss_mb()
        size_mb = sum(
            os.path.getsize(f"{location}{s}")
            for s in ("", "-wal")
            if Path(f"{location}{s}").exists()
        ) / (1 << 20)

        log("up-to-date starts ...")

        def start() -> None:
            with VaultIndex(folder, location=location) as again:
                assert again.sync().read == 0

        starts = timed(start, RUNS)

        index = VaultIndex(folder, location=location)
        index.sync()
        log("changes through the watcher ...")
        latencies = asyncio.run(watcher_latencies(index, folder, paths[1::997]))
        rss = peak_rss_mb()

        log("candidates ...")
        broad = generated.broad_word
        rare_hits = index.candidates(RARE_WORD) or []
        broad_hits = index.candidates(broad) or []
        rare_times = timed(lambda: index.candidates(RARE_WORD), RUNS)
        broad_times = timed(lambda: index.candidates(broad), RUNS)

        log("the exact matcher, on the candidates and on every note ...")
        vault = Vault(folder)
        behaviour = Behaviour.for_version("5.1.0")
        matcher: dict[str, dict[str, list[float]]] = {}
        for word, hits in ((RARE_WORD, rare_hits), (broad, broad_hits)):
            options = SimpleSearchOptions.for_version(behaviour, word, 100)
            full = simple_search(vault, options)
            assert simple_search(vault, options, hits) == full
            matcher[word] = {
                "candidates": timed(lambda o=options, h=hits: simple_search(vault, o, h), 3),
                "every note": timed(lambda o=options: simple_search(vault, o), 3),
            }
        index.close()

    rows = [
        (
            "First build (open + sync of every note)",
            fmt(build),
            f"≤ {TARGET_BUILD_S:.0f} s",
            met(build, TARGET_BUILD_S),
        ),
        (
            "Up-to-date start (open + sync, nothing changed)",
            pair(starts),
            f"≤ {TARGET_START_S:.0f} s",
            met(statistics.median(starts), TARGET_START_S),
        ),
        (
            "Edited note indexed after it is saved (watcher)",
            pair(latencies) + f", worst {fmt(max(latencies))}",
            f"≤ {TARGET_CHANGE_S:.0f} s",
            met(max(latencies), TARGET_CHANGE_S),
        ),
        (f"`candidates()` rare word ({len(rare_hits)} notes)", pair(rare_times), "", ""),
        (
            f"`candidates()` broad word '{broad}' ({len(broad_hits)} notes)",
            pair(broad_times),
            "",
            "",
        ),
        (
            "Peak RSS of the process (build, starts, watcher)",
            f"{rss:.0f} MB",
            f"≤ {TARGET_RSS_MB:.0f} MB",
            met(rss, TARGET_RSS_MB),
        ),
    ]
    extra = [
        ("Peak RSS after the first build", f"{build_rss:.0f} MB"),
        ("Index file", f"{size_mb:.0f} MB"),
    ]
    for word, measured in matcher.items():
        for where, seconds in measured.items():
            extra.append((f"Exact matcher, '{word}', on {where}", pair(seconds)))
    print(
        f"Vault index on {report.notes:,} notes in {folders:,} folders"
        f" (SQLite {sqlite3.sqlite_version}, Python {platform.python_version()},"
        f" {os.cpu_count()} CPUs); best / median of {RUNS} unless one figure.\n"
    )
    print("| Measure | Figure | Target | Met |")
    print("| --- | ---: | ---: | :---: |")
    for measure, figure, target, ok in rows:
        print(f"| {measure} | {figure} | {target} | {ok} |")
    for measure, figure in extra:
        print(f"| {measure} | {figure} | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
