"""Benchmark (issue 25): only the API key set, against the plugin-only path, on the same vault.

    python bench/default_config.py            # 20,000 notes in 2,000 folders
    python bench/default_config.py --quick    # 2,000 notes in 200 folders; report to bench/.cache/

The vault comes from bench/generate_vault.py (cached), copied and prepared as
bench/folder_backend.py prepares it (a rare word in three notes). The emulator (plugin 5.1.0,
HTTPS on 127.0.0.1) serves the copy; a stand-in ``obsidian.json`` (VAULTGATE_OBSIDIAN_CONFIG)
names it as Obsidian's open vault. Two configurations, each a fresh in-process server per
round (ROUNDS rounds, min / median):

- *plugin only*: the key and ``VAULTGATE_BACKEND=obsidian`` (what a user got before issue 25);
- *default*: the key alone. vaultgate looks for the folder in the background; the first call
  is answered at once (by the plugin, until the folder is verified), then the folder is waited
  for (get_server_info names it) and its index (the log line saying it answers), and the tasks
  run against it. The index lives in a temporary cache folder kept for the whole run, as a
  user's is kept between starts: the first round builds it, later rounds bring it up to date.

Tasks: start → first answered call (a rare word's search, sent at once after initialize), the
first page of a recursive listing and all its pages, a broad search's first page (the
generator's broad word, in about 30% of the notes), a rare word, a note read. Targets: listing
first page ≤ 100 ms and broad search first page ≤ 200 ms, each ≥ 50× faster than the plugin
path; no task slower than the plugin path by more than 10%.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

import generate_vault
from folder_backend import RARE_WORD, Timer, fmt, prepare
from report import publish
from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.server import build_server

ROUNDS = 3
PLUGIN_VERSION = "5.1.0"
WAIT_S = 600.0  # for the folder to be verified and its index to answer
TARGET_LIST_S = 0.1
TARGET_BROAD_S = 0.2
TARGET_SPEEDUP = 50.0
TARGET_SLOWER = 1.10
TASKS = ("first call", "listing first page", "listing all pages", "broad search", "rare word")
TASKS += ("note read",)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class IndexLog(logging.Handler):
    """When the vault index said it answers: built, or brought up to date."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith(("vault index built", "vault index up to date")):
            self.lines.append(message)


def environment(emulator: RunningEmulator, vault_list: Path, *, plugin_only: bool) -> Settings:
    assert emulator.https_url is not None
    env = {
        "OBSIDIAN_API_KEY": emulator.api_key,
        "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
        "OBSIDIAN_CERT": str(emulator.certificate_path),
        "VAULTGATE_TOOLS": "full",
        "VAULTGATE_MEMORY_DB": ":memory:",
        "VAULTGATE_OBSIDIAN_CONFIG": str(vault_list),
    }
    if plugin_only:
        env["VAULTGATE_BACKEND"] = "obsidian"
    return Settings.from_env(env)


@asynccontextmanager
async def server(settings: Settings) -> AsyncIterator[tuple[Timer, float]]:
    """A fresh server; the moment it was asked for, to time start → first answered call."""
    started = time.perf_counter()
    async with Client(build_server(settings)) as client:
        yield Timer(client), started


async def until(check: Callable[[], Any], what: str) -> None:
    """Poll ``check`` (a server answer or a log line from a worker thread: nothing to wait on)."""
    with anyio.fail_after(WAIT_S):
        for _ in range(int(WAIT_S / 0.02)):
            if await check():
                break
            await anyio.sleep(0.02)
    log(f"    {what}")


async def listing_pages(timer: Timer) -> tuple[float, float]:
    """The first page of a recursive listing, and every page, in seconds."""
    arguments: dict[str, Any] = {"recursive": True}
    started = time.perf_counter()
    first = None
    while True:
        _, text = await timer.call("list_vault_files", arguments)
        first = first if first is not None else time.perf_counter() - started
        offset = json.loads(text).get("nextOffset")
        if offset is None:
            return first, time.perf_counter() - started
        arguments["offset"] = offset


async def first_call(timer: Timer, started: float) -> dict[str, float]:
    """Start → a rare word's search answered, sent at once after initialize."""
    await timer.seconds("search_vault_simple", {"query": RARE_WORD})
    return {"first call": time.perf_counter() - started}


async def measure(timer: Timer, broad: str, note: str, figures: dict[str, float]) -> None:
    first, every = await listing_pages(timer)
    figures["listing first page"], figures["listing all pages"] = first, every
    figures["broad search"] = await timer.seconds("search_vault_simple", {"query": broad})
    figures["rare word"] = await timer.seconds(
        "search_vault_simple", {"query": RARE_WORD, "contextLength": 99}
    )
    figures["note read"] = await timer.seconds("get_vault_file", {"filename": note})


async def plugin_round(settings: Settings, broad: str, note: str) -> dict[str, float]:
    async with server(settings) as (timer, started):
        figures = await first_call(timer, started)
        await measure(timer, broad, note, figures)
    return figures


async def default_round(
    settings: Settings, folder: Path, broad: str, note: str, index_log: IndexLog
) -> dict[str, float]:
    index_log.lines.clear()
    async with server(settings) as (timer, started):
        figures = await first_call(timer, started)

        async def served() -> bool:
            _, text = await timer.call("get_server_info", {})
            return bool(json.loads(text).get("vaultFolder") == str(folder))

        async def indexed() -> bool:
            return bool(index_log.lines)

        await until(served, "the folder is verified and served")
        await until(indexed, "the index answers")
        figures["ready"] = time.perf_counter() - started
        await measure(timer, broad, note, figures)
    return figures


def pair(values: list[float]) -> str:
    return f"{fmt(min(values))} / {fmt(statistics.median(values))}"


def report(
    notes: int, folders: int, plugin: list[dict[str, float]], default: list[dict[str, float]]
) -> str:
    lines = [
        "## Fast by default: the folder found behind the plugin (issue 25)",
        "",
        f"{notes:,} notes in {folders:,} folders, the emulator (plugin {PLUGIN_VERSION}) serving "
        "them over HTTPS on 127.0.0.1 and a stand-in `obsidian.json` naming the folder. Each "
        f"column: a fresh server per round, {ROUNDS} rounds, min / median. *Plugin only* sets "
        "the key and `VAULTGATE_BACKEND=obsidian`; *default* sets the key alone (the folder is "
        "found, verified and indexed in the background; the first call is answered before). "
        "The default side's tasks run once its index answers (reached in "
        f"{pair([r['ready'] for r in default])} from the server's start; the first round "
        "builds the index, later ones bring it up to date). Generated by "
        "`bench/default_config.py`.",
        "",
        "| Task | plugin only | default | median speed-up | target | met |",
        "| --- | ---: | ---: | ---: | --- | --- |",
    ]
    for task in TASKS:
        p = [r[task] for r in plugin]
        d = [r[task] for r in default]
        speedup = statistics.median(p) / statistics.median(d)
        targets = [f"≤ {TARGET_SLOWER:.0%} of plugin only"]
        ok = statistics.median(d) <= TARGET_SLOWER * statistics.median(p)
        if task == "listing first page":
            targets.append(f"≤ {fmt(TARGET_LIST_S)}, ≥ {TARGET_SPEEDUP:.0f}×")
            ok = ok and min(d) <= TARGET_LIST_S and speedup >= TARGET_SPEEDUP
        if task == "broad search":
            targets.append(f"≤ {fmt(TARGET_BROAD_S)}, ≥ {TARGET_SPEEDUP:.0f}×")
            ok = ok and min(d) <= TARGET_BROAD_S and speedup >= TARGET_SPEEDUP
        lines.append(
            f"| {task} | {pair(p)} | {pair(d)} | {speedup:.1f}× | {'; '.join(targets)} | "
            f"{'yes' if ok else '**no**'} |"
        )
    return "\n".join(lines) + "\n"


async def run(notes: int, folders: int) -> str:
    generated = generate_vault.generate(notes, folders)
    index_log = IndexLog()
    vaultgate_log = logging.getLogger("vaultgate")
    vaultgate_log.addHandler(index_log)
    vaultgate_log.setLevel(logging.INFO)
    with tempfile.TemporaryDirectory(prefix="vaultgate-default-") as scratch_text:
        scratch = Path(scratch_text)
        os.environ["XDG_CACHE_HOME"] = str(scratch / "cache")  # the index, kept for the run
        folder = scratch / "vault"
        log(f"copying {generated.path} ...")
        paths = prepare(generated.path, folder)
        note = paths[len(paths) // 2]
        vault_list = scratch / "obsidian" / "obsidian.json"
        vault_list.parent.mkdir()
        entry = {"path": str(folder), "ts": int(time.time() * 1000), "open": True}
        vault_list.write_text(json.dumps({"vaults": {"bench": entry}}), encoding="utf-8")
        emulator = start_emulator(folder, plugin_version=PLUGIN_VERSION)
        plugin_rounds, default_rounds = [], []
        try:
            for number in range(1, ROUNDS + 1):
                log(f"round {number}: plugin only ...")
                plugin_rounds.append(
                    await plugin_round(
                        environment(emulator, vault_list, plugin_only=True),
                        generated.broad_word,
                        note,
                    )
                )
                log(f"round {number}: default (only the key) ...")
                default_rounds.append(
                    await default_round(
                        environment(emulator, vault_list, plugin_only=False),
                        folder,
                        generated.broad_word,
                        note,
                        index_log,
                    )
                )
        finally:
            emulator.stop()
    vaultgate_log.removeHandler(index_log)
    return report(notes, folders, plugin_rounds, default_rounds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2,000 notes in 200 folders")
    arguments = parser.parse_args()
    notes, folders = (2_000, 200) if arguments.quick else (20_000, 2_000)
    body = anyio.run(run, notes, folders)
    print(body)
    publish("default-config", body, quick=arguments.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
