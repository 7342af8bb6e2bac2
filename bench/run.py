"""Benchmark: how fast vaultgate answers on a large vault, and how much smaller its answers are.

Generates (or reuses) a seeded vault of 20,000 notes in 2,000 folders plus one 1 MB note,
serves it with the emulator over plain HTTP on 127.0.0.1, and times MCP tool calls through the
SDK's in-process Client (one call also through a `vaultgate serve` subprocess over stdio) next
to direct HTTP calls to the same emulator. Recursive listings are timed against the emulator of
each plugin version in LISTING_VERSIONS, whose folder listings cost what the plugin's do (a pass
over the whole file index per request). Writes the tables to docs/benchmarks.md.

    python bench/run.py                 # full size, about 8 minutes on 2 cores
    python bench/run.py --quick         # 2,000 notes in 200 folders; report to bench/.cache/

"Cold" calls each use a fresh MCP session, so vaultgate's caches start empty (the emulator's
own text cache is warmed once before anything is timed, as Obsidian keeps notes in memory).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import logging
import math
import os
import platform
import ssl
import statistics
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult, TextContent

from generate_vault import CACHE_DIR, GeneratedVault, generate
from report import write_section
from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client
from vaultgate.paths import encode_vault_path
from vaultgate.server import build_server
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.listing import EVERY_NOTE, WALK_CONCURRENCY, VaultLister
from vaultgate.vault.policy import AccessPolicy

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "docs" / "benchmarks.md"
QUICK_REPORT = CACHE_DIR / "benchmarks-quick.md"
SEARCH_CONTEXT = 100  # the tool's default contextLength, sent to the direct call too
LIST_LIMIT = 100  # the tool's default page size
LATER_OFFSET = 10_000
P95_MIN_RUNS = 20  # fewer runs than this make a p95 that is just the maximum
LISTING_VERSIONS = ("3.6.2", "4.1.7", "5.1.0")  # the last one also serves every other section
FIRST_PAGE_TARGET = 1.0  # seconds: the first page of a recursive listing (issue 11)
JSONLOGIC = "application/vnd.olrapi.jsonlogic+json"

Protocol = Literal["http", "https"]


# --- measurements ----------------------------------------------------------------------------


@dataclass
class Measurement:
    """Timings of one kind of call, and the size of its (identical) response."""

    label: str
    seconds: list[float] = field(default_factory=list)
    chars: int = 0

    @property
    def runs(self) -> int:
        return len(self.seconds)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def p95(self) -> float | None:
        if self.runs < P95_MIN_RUNS:
            return None
        ordered = sorted(self.seconds)
        return ordered[math.ceil(0.95 * len(ordered)) - 1]

    @property
    def tokens(self) -> int:
        return math.ceil(self.chars / 4)

    def record(self, seconds: float, chars: int) -> None:
        self.seconds.append(seconds)
        self.chars = chars


@dataclass
class Results:
    vault: GeneratedVault
    vault_bytes: int
    protocol: Protocol
    runs: int
    cold_runs: int
    later_offset: int
    folder: str
    small_note: str
    listing_runs: int
    emulator_start: float = 0.0
    first_scan: float = 0.0
    first_index: dict[str, float] = field(default_factory=dict)  # version -> first JsonLogic
    search_total: int = 0
    walk_requests: int = 0
    first_page_folders: int = 0
    session_start: Measurement = field(default_factory=lambda: Measurement("session"))
    sections: dict[str, list[Measurement]] = field(default_factory=dict)

    def add(self, section: str, label: str) -> Measurement:
        measurement = Measurement(label)
        self.sections.setdefault(section, []).append(measurement)
        return measurement

    def get(self, section: str, label: str) -> Measurement:
        return next(m for m in self.sections[section] if m.label == label)


class BenchError(Exception):
    """A call failed or returned something other than expected: the numbers would lie."""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


async def repeat(
    measurement: Measurement, runs: int, call: Callable[..., Awaitable[str]], *args: Any
) -> str:
    """Time ``call(*args)`` ``runs`` times into ``measurement``; the last response."""
    text = ""
    for _ in range(runs):
        started = time.perf_counter()
        text = await call(*args)
        measurement.record(time.perf_counter() - started, len(text))
    return text


async def call_tool(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    """The tool's text blocks, joined by newlines: the characters the model reads."""
    result: CallToolResult = await client.call_tool(tool, arguments)
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    if result.is_error:
        raise BenchError(f"{tool}({arguments}) failed: {' '.join(texts)}")
    return "\n".join(texts)


def envelope(text: str) -> dict[str, Any]:
    """The JSON of a list or search response (its first block)."""
    value = json.loads(text.split("\n", 1)[0])
    assert isinstance(value, dict)
    return value


# --- the system under test -------------------------------------------------------------------


def settings_for(emulator: RunningEmulator, protocol: Protocol) -> dict[str, str]:
    url = emulator.http_url if protocol == "http" else emulator.https_url
    if url is None:
        raise BenchError(f"the emulator does not serve {protocol}")
    env = {
        "OBSIDIAN_API_KEY": emulator.api_key,
        "OBSIDIAN_HOST": "127.0.0.1",
        "OBSIDIAN_PORT": url.rsplit(":", 1)[1].rstrip("/"),
        "OBSIDIAN_PROTOCOL": protocol,
        # The single tools are measured by name; the dispatchers call the same functions.
        "VAULTGATE_TOOLS": "full",
        "VAULTGATE_MEMORY_DB": ":memory:",
    }
    if protocol == "https":
        env["OBSIDIAN_CERT"] = str(emulator.certificate_path)
    return env


@asynccontextmanager
async def session(env: dict[str, str], results: Results) -> AsyncIterator[Client]:
    """A fresh in-process MCP session: a new server, so every vaultgate cache starts empty."""
    started = time.perf_counter()
    async with Client(build_server(Settings.from_env(env))) as client:
        results.session_start.record(time.perf_counter() - started, 0)
        yield client


def direct_client(emulator: RunningEmulator, env: dict[str, str]) -> httpx.AsyncClient:
    verify: Any = True
    if env["OBSIDIAN_PROTOCOL"] == "https":
        verify = ssl.create_default_context(cafile=str(emulator.certificate_path))
    base = f"{env['OBSIDIAN_PROTOCOL']}://127.0.0.1:{env['OBSIDIAN_PORT']}"
    return httpx.AsyncClient(
        base_url=base,
        headers={"Authorization": f"Bearer {emulator.api_key}"},
        verify=verify,
        timeout=300,
    )


async def direct_get(http: httpx.AsyncClient, url: str) -> str:
    response = await http.get(url)
    response.raise_for_status()
    return response.text


async def direct_search(http: httpx.AsyncClient, query: str) -> str:
    response = await http.post(
        "/search/simple/", params={"query": query, "contextLength": SEARCH_CONTEXT}
    )
    response.raise_for_status()
    return response.text


async def direct_walk(http: httpx.AsyncClient) -> tuple[int, int, int]:
    """Every file by walking the folders as a client without vaultgate must: (files, requests,
    characters received), with the same concurrency as vaultgate's walk."""
    files = requests = received = 0
    limiter = anyio.Semaphore(WALK_CONCURRENCY)

    async def visit(folder: str, tg: anyio.abc.TaskGroup) -> None:
        nonlocal files, requests, received
        async with limiter:
            response = await http.get(f"/vault/{encode_vault_path(folder)}")
        response.raise_for_status()
        requests += 1
        received += len(response.text)
        for entry in response.json()["files"]:
            if entry.endswith("/"):
                tg.start_soon(visit, folder + entry, tg)
            else:
                files += 1

    async with anyio.create_task_group() as tg:
        tg.start_soon(visit, "", tg)
    return files, requests, received


# --- the runs --------------------------------------------------------------------------------


def listing_section(version: str) -> str:
    return f"listing {version}"


@asynccontextmanager
async def fresh_lister(env: dict[str, str]) -> AsyncIterator[VaultLister]:
    """A lister on a new guarded client, as a fresh session has: nothing cached."""
    settings = Settings.from_env(env)
    async with await build_http_client(settings.obsidian) as http:
        yield VaultLister(GuardedClient(settings.obsidian, http, AccessPolicy(settings.safety)))


async def notes_only(env: dict[str, str]) -> list[str]:
    async with fresh_lister(env) as lister:
        return await lister.list_recursive("", notes_only=True)


async def first_page_alone(env: dict[str, str]) -> tuple[list[str], int]:
    """What the first page alone costs, exact: one search for every note, then only the folders
    that can hold a file sorting before the page's last one, listed until none is left. Not
    built into vaultgate: the page's total stays unknown until every folder is listed, and
    list_vault_files promises a total. Returns the page and how many folders were listed."""
    settings = Settings.from_env(env)
    async with await build_http_client(settings.obsidian) as http:
        client = ObsidianClient(settings.obsidian, http)
        hits = await client.search_jsonlogic(EVERY_NOTE)
        files = {str(hit["filename"]) for hit in hits}
        folders = {""} | {path[: i + 1] for path in files for i, c in enumerate(path) if c == "/"}
        listed: set[str] = set()

        async def visit(folder: str) -> None:
            entries = await client.list_directory(folder)
            listed.add(folder)
            for entry in entries:
                (folders if entry.endswith("/") else files).add(folder + entry)

        while True:
            ordered = sorted(files)
            bound = ordered[LIST_LIMIT - 1] if len(ordered) >= LIST_LIMIT else chr(0x10FFFF)
            pending = [folder for folder in folders - listed if folder < bound]
            if not pending:
                return ordered[:LIST_LIMIT], len(listed)
            async with anyio.create_task_group() as tg:
                for folder in pending:
                    tg.start_soon(visit, folder)


async def warm_index(results: Results, http: httpx.AsyncClient, version: str) -> None:
    """Obsidian's metadata cache is ready before any request; the emulator's is built by its
    first vault-wide JsonLogic search (every note read and parsed), here, untimed."""
    started = time.perf_counter()
    response = await http.post("/search/", content=b"true", headers={"Content-Type": JSONLOGIC})
    response.raise_for_status()
    results.first_index[version] = time.perf_counter() - started


async def measure_listing(
    results: Results, env: dict[str, str], http: httpx.AsyncClient, version: str
) -> None:
    """The cold first page (the walk), notes alone (one search), and the first page alone;
    on the last version also a later page of the cached walk and the walk without vaultgate."""
    log(f"listing on {version} …")
    await warm_index(results, http, version)
    section = listing_section(version)
    cold = results.add(section, "every file, first page, cold: the walk")
    notes = results.add(section, "every note, one search (`notes_only=True`)")
    alone = results.add(section, "first page alone (not built): one search + the folders before it")
    later = None
    if version == LISTING_VERSIONS[-1]:
        later = results.add(section, f"page at offset {results.later_offset:,} (cached walk)")
    first_args = {"recursive": True, "limit": LIST_LIMIT}
    for run in range(results.listing_runs):
        async with session(env, results) as client:
            text = await repeat(cold, 1, call_tool, client, "list_vault_files", first_args)
            if later is not None and run == results.listing_runs - 1:  # the walk is cached
                later_args = {**first_args, "offset": results.later_offset}
                await repeat(later, results.runs, call_tool, client, "list_vault_files", later_args)
    total = envelope(text)["pagination"]["total"]
    if total != results.vault.notes:
        raise BenchError(f"the listing has {total} files, the vault {results.vault.notes}")
    for _ in range(results.cold_runs):
        started = time.perf_counter()
        listed = await notes_only(env)
        notes.record(time.perf_counter() - started, 0)
        if len(listed) != results.vault.notes:
            raise BenchError(f"notes_only found {len(listed)} notes of {results.vault.notes}")
        started = time.perf_counter()
        page, results.first_page_folders = await first_page_alone(env)
        alone.record(time.perf_counter() - started, 0)
        if page != envelope(text)["files"]:
            raise BenchError("the first page alone differs from the walk's first page")


async def measure_direct_walk(results: Results, http: httpx.AsyncClient) -> None:
    walk = results.add(listing_section(LISTING_VERSIONS[-1]), "direct walk: GET every folder")
    for _ in range(results.listing_runs):
        started = time.perf_counter()
        files, requests, received = await direct_walk(http)
        walk.record(time.perf_counter() - started, received)
    if files != results.vault.notes:
        raise BenchError(
            f"the direct walk found {files} files, the vault has {results.vault.notes}"
        )
    results.walk_requests = requests
    walk.label = f"direct walk: {requests:,} GETs, one per folder"


async def measure_reading(results: Results, client: Client, http: httpx.AsyncClient) -> None:
    log("reading …")
    runs = results.runs
    for label, path in (
        ("1 MB note, first window (maxLength 10,000)", results.vault.big_note),
        ("typical note, whole (fits one window)", results.small_note),
    ):
        measurement = results.add("reading", label)
        await repeat(measurement, runs, call_tool, client, "get_vault_file", {"filename": path})
    for label, path in (
        ("direct GET of the 1 MB note", results.vault.big_note),
        ("direct GET of the typical note", results.small_note),
    ):
        measurement = results.add("reading", label)
        await repeat(measurement, runs, direct_get, http, f"/vault/{encode_vault_path(path)}")


async def measure_search(results: Results, env: dict[str, str], http: httpx.AsyncClient) -> None:
    log("searching …")
    word = results.vault.broad_word
    cold = results.add("search", f'"{word}", first page, cold (searches the vault)')
    second = results.add("search", f'"{word}", second page (cached result)')
    args: dict[str, Any] = {"query": word}
    for run in range(results.cold_runs):
        async with session(env, results) as client:
            text = await repeat(cold, 1, call_tool, client, "search_vault_simple", args)
            page = envelope(text)
            if run == results.cold_runs - 1:  # the result is cached in this session now
                next_args = {**args, "offset": page["nextOffset"]}
                await repeat(
                    second, results.runs, call_tool, client, "search_vault_simple", next_args
                )
    results.search_total = page["pagination"]["total"]
    direct = results.add("search", f'direct POST /search/simple/ "{word}"')
    await repeat(direct, results.cold_runs, direct_search, http, word)


async def measure_folder(results: Results, client: Client, http: httpx.AsyncClient) -> None:
    log("one folder …")
    ours = results.add("folder", f"list_vault_files of '{results.folder}'")
    args = {"directory": results.folder}
    await repeat(ours, results.runs, call_tool, client, "list_vault_files", args)
    direct = results.add("folder", f"direct GET /vault/{results.folder}/")
    url = f"/vault/{encode_vault_path(results.folder)}/"
    await repeat(direct, results.runs, direct_get, http, url)


async def measure_stdio(results: Results, env: dict[str, str]) -> None:
    log("stdio …")
    start = results.add("stdio", "start `vaultgate serve` and initialize")
    stdio = results.add("stdio", "1 MB note, first window, over stdio")
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "vaultgate", "serve"], env=env
    )
    args = {"filename": results.vault.big_note}
    for run in range(results.cold_runs):
        started = time.perf_counter()
        async with Client(parameters) as client:
            start.record(time.perf_counter() - started, 0)
            if run == results.cold_runs - 1:
                await repeat(stdio, results.runs, call_tool, client, "get_vault_file", args)


async def measure_listing_only(results: Results, emulator: RunningEmulator, version: str) -> None:
    env = settings_for(emulator, results.protocol)
    async with direct_client(emulator, env) as http:
        await measure_listing(results, env, http, version)


async def measure(results: Results, emulator: RunningEmulator) -> None:
    env = settings_for(emulator, results.protocol)
    async with direct_client(emulator, env) as http:
        # Obsidian keeps notes in memory; the emulator reads them from disk once, here.
        started = time.perf_counter()
        await direct_search(http, results.vault.broad_word)
        results.first_scan = time.perf_counter() - started
        await measure_listing(results, env, http, LISTING_VERSIONS[-1])
        await measure_direct_walk(results, http)
        async with session(env, results) as client:
            await measure_reading(results, client, http)
            await measure_folder(results, client, http)
        await measure_search(results, env, http)
    await measure_stdio(results, env)


# --- the report ------------------------------------------------------------------------------


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    if seconds < 0.01:
        return f"{seconds * 1000:.2f} ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s"


def timing_table(measurements: list[Measurement]) -> list[str]:
    lines = [
        "| Call | N | median | p95 | response (chars) | ≈ tokens |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for m in measurements:
        lines.append(
            f"| {m.label} | {m.runs} | {duration(m.median)} | {duration(m.p95)} | "
            f"{m.chars:,} | {m.tokens:,} |"
        )
    return lines


def listing_table(results: Results) -> list[str]:
    """Every listing row of every version, each figure with its target beside it."""
    lines = [
        "| Plugin | Call | N | median | target | met |",
        "| --- | --- | ---: | ---: | ---: | :---: |",
    ]
    for version in LISTING_VERSIONS:
        for m in results.sections[listing_section(version)]:
            targeted = not m.label.startswith(("page at", "direct walk"))
            target = f"≤ {duration(FIRST_PAGE_TARGET)}" if targeted else "–"
            met = ("yes" if m.median <= FIRST_PAGE_TARGET else "no") if targeted else "–"
            lines.append(
                f"| {version} | {m.label} | {m.runs} | {duration(m.median)} | {target} | {met} |"
            )
    return lines


def comparison_row(what: str, direct: Measurement, ours: Measurement) -> str:
    ratio = direct.chars / ours.chars if ours.chars else float("inf")
    return (
        f"| {what} | {duration(direct.median)} | {direct.chars:,} (≈ {direct.tokens:,} tokens) | "
        f"{duration(ours.median)} | {ours.chars:,} (≈ {ours.tokens:,} tokens) | {ratio:,.0f}× |"
    )


def report(results: Results, elapsed: float) -> str:
    vault = results.vault
    cores = os.cpu_count() or 0
    big = results.get("reading", "1 MB note, first window (maxLength 10,000)")
    small = results.get("reading", "typical note, whole (fits one window)")
    direct_big = results.get("reading", "direct GET of the 1 MB note")
    direct_small = results.get("reading", "direct GET of the typical note")
    cold_list, _, _, later_list, walk = results.sections[listing_section(LISTING_VERSIONS[-1])]
    search = results.sections["search"]
    cold_search, second_search, direct_search_m = search
    folder_ours, folder_direct = results.sections["folder"]
    stdio_start, stdio_call = results.sections["stdio"]
    search_total = results.search_total
    transport = "plain HTTP" if results.protocol == "http" else "HTTPS (certificate verified)"
    in_process = dataclasses.replace(big, label="1 MB note, first window, in-process")
    lines = [
        "## Vault reads on a large vault",
        "",
        "How fast vaultgate answers on a large vault, and how much smaller its answers are than",
        "the Local REST API's own. Generated by `bench/run.py`; rerun with",
        "",
        "```sh",
        "python bench/run.py            # this report: about 8 minutes on 2 cores",
        "python bench/run.py --quick    # 2,000 notes in 200 folders, under a minute",
        "```",
        "",
        f"- **Machine:** {cores} CPU cores, {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}; run on {dt.date.today().isoformat()}, "
        f"{elapsed / 60:.1f} minutes in all.",
        f"- **Vault:** {vault.notes - 1:,} notes plus one 1 MB note (`{vault.big_note}`) in "
        f"{vault.folders:,} folders, three levels deep, {results.vault_bytes / 1e6:.0f} MB; "
        "generated from a seed by `bench/generate_vault.py` (frontmatter, headings, lists, "
        f'tasks, tags, wikilinks; "{vault.broad_word}" occurs in {search_total:,} notes).',
        f"- **Server:** the emulator (plugin {LISTING_VERSIONS[-1]}; section 1 also "
        f"{', '.join(LISTING_VERSIONS[:-1])}) over {transport} on "
        "127.0.0.1, in the benchmark's process (a background thread), so it shares the GIL "
        f"with the client; it started and indexed the vault in {duration(results.emulator_start)}"
        f", and its first search, which reads every note from disk, took "
        f"{duration(results.first_scan)}. Every number below is with notes in memory, as in "
        "Obsidian; as in the plugin, each folder listing passes over the whole file index.",
        "- **Calls:** MCP tool calls through the SDK's in-process `Client(build_server(settings))`"
        f" (a fresh session takes {duration(results.session_start.median)}); *cold* calls each "
        "get a fresh session, so vaultgate's caches start empty. Times are wall-clock medians "
        f"over N runs, with p95 where N ≥ {P95_MIN_RUNS}. Sizes are the characters of the text "
        "the model receives (all content blocks); tokens are estimated as ⌈chars / 4⌉.",
        "",
        "### 1. Recursive listing",
        "",
        f"`list_vault_files(recursive=true)`, {LIST_LIMIT} paths per page, against the emulator "
        "of each plugin version. The plugin lists one folder per request, each with a pass over "
        "the whole vault's file index, one request at a time; only folder listings show files "
        "other than notes, and any folder may hold one, so a listing of every file takes every "
        "folder's listing: the first page walks every folder (concurrently, 8 at a time; the "
        "baseline, unchanged) and later pages come from the cached walk. Notes alone take one "
        "JsonLogic search: `VaultLister.list_recursive(notes_only=True)`, timed through a fresh "
        "lister, since `list_vault_files` does not ask for it yet. *First page alone* is what "
        "the first page would cost if a page could be sent before its total is known (it "
        "cannot: a page promises its total), measured by a prototype in this benchmark: one "
        f"search, then the {results.first_page_folders} folders that can hold a file sorting "
        "before the page's last one; it gives the same page as the walk. The target is the "
        f"first page in {duration(FIRST_PAGE_TARGET)} or less.",
        "",
        *listing_table(results),
        "",
        "### 2. Reading the 1 MB note",
        "",
        "`get_vault_file(filename)` with the default `maxLength` of 10,000: the first window, "
        "a truncation notice, and the window's metadata. Each call fetches the note from the "
        "plugin again (vaultgate does not cache note text).",
        "",
        *timing_table(results.sections["reading"]),
        "",
        "### 3. A broad search",
        "",
        f'`search_vault_simple(query="{vault.broad_word}")` with the defaults (20 notes per '
        "page, 100 characters of context, 3 matches per note, a 12,000-character budget). The "
        f"result holds {search_total:,} notes; the first page runs the search, later pages come "
        "from the cached result.",
        "",
        *timing_table(search),
        "",
        "### 4. vaultgate against the plain API",
        "",
        "The same data from the same emulator, fetched directly with httpx and through "
        "vaultgate. The direct answer is unbounded: that is what a client that forwards it "
        "puts into the model's context.",
        "",
        "| Data | direct: time | direct: size | vaultgate: time | vaultgate: size | direct / "
        "vaultgate size |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        comparison_row("The 1 MB note (vaultgate: first window)", direct_big, big),
        comparison_row("A typical note (whole)", direct_small, small),
        comparison_row(
            f'Search "{vault.broad_word}" (vaultgate: first page, cold)',
            direct_search_m,
            cold_search,
        ),
        comparison_row(f"One folder, `{results.folder}`", folder_direct, folder_ours),
        comparison_row("Every file (direct: walk; vaultgate: first page, cold)", walk, cold_list),
        "",
        f"The search's later pages take {duration(second_search.median)} and a later listing "
        f"page {duration(later_list.median)}: they cost no request to the plugin at all.",
        "Where the payload is small, vaultgate costs little over a direct call: the typical "
        f"note takes {duration(small.median)} through vaultgate and "
        f"{duration(direct_small.median)} directly.",
        "",
        "### 5. Over stdio",
        "",
        "The same call through `python -m vaultgate serve` as a subprocess over stdio, as an "
        "MCP host runs it, next to the in-process call.",
        "",
        *timing_table([stdio_start, stdio_call, in_process]),
        "",
        "### Where the time goes",
        "",
        *where_the_time_goes(results),
        "",
    ]
    return "\n".join(lines)


def where_the_time_goes(results: Results) -> list[str]:
    """Observations that follow from the numbers above (recomputed on every run)."""
    cold_search, _, direct_search_m = results.sections["search"]
    cold_list, notes_list, alone, _, walk = results.sections[listing_section(LISTING_VERSIONS[-1])]
    big = results.get("reading", "direct GET of the 1 MB note")
    small = results.get("reading", "direct GET of the typical note")
    folder = results.sections["folder"][1]
    search_share = direct_search_m.median / cold_search.median
    notes = [
        f"- **Search:** {search_share:.0%} of a cold search is the emulator's own work (the "
        f"direct call: {duration(direct_search_m.median)} to scan {results.vault.notes:,} "
        f"notes and send {direct_search_m.chars / 1e6:.1f} MB of pretty-printed JSON); the "
        f"other {duration(cold_search.median - direct_search_m.median)} is vaultgate receiving, "
        f"parsing and sorting {results.search_total:,} results and rendering one page.",
        f"- **Listing:** on {LISTING_VERSIONS[-1]} a cold recursive listing takes "
        f"{duration(cold_list.median)} through vaultgate and {duration(walk.median)} as a "
        f"direct walk: both are {results.walk_requests:,} GETs to a server that answers them "
        "one at a time, each a pass over the whole file index "
        f"({duration(walk.median / max(results.walk_requests, 1))} per folder on average in the "
        f"direct walk; one folder alone: {duration(folder.median)}; the plugin takes about 9 ms "
        "on Node). No client can do better while every file is wanted: only a folder's own "
        "listing shows its attachments. Every note comes from one search in "
        f"{duration(notes_list.median)}, and a first page alone would take "
        f"{duration(alone.median)} ({results.first_page_folders} folder listings after the "
        "search), if its total could wait.",
    ]
    if small.median > big.median and folder.median > big.median:
        notes.append(
            f"- **Small responses are slow:** a folder listing ({folder.chars:,} characters) "
            f"takes {duration(folder.median)} and a typical note {duration(small.median)}, "
            f"more than the 1 MB note ({duration(big.median)}). That floor of about 40 ms is "
            "the signature of Nagle's algorithm meeting delayed ACKs: the emulator's sockets "
            "do not set TCP_NODELAY. It inflates every small request, and the folder walk "
            "most."
        )
    return notes


# --- the command -----------------------------------------------------------------------------


def pick_folder(vault: Path) -> str:
    """The first top-level folder, a listing with subfolders and notes."""
    return sorted(p.name for p in vault.iterdir() if p.is_dir() and not p.name.startswith("."))[0]


def pick_small_note(vault: Path, folder: str) -> str:
    """A typical note: the median-sized one in ``folder``'s first subfolders."""
    notes = sorted(vault.joinpath(folder).rglob("*.md"))[:50]
    notes.sort(key=lambda p: p.stat().st_size)
    return notes[len(notes) // 2].relative_to(vault).as_posix()


def vault_bytes(vault: Path) -> int:
    return sum(p.stat().st_size for p in vault.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--folders", type=int, default=2_000)
    parser.add_argument("--quick", action="store_true", help="2,000 notes in 200 folders")
    parser.add_argument("--runs", type=int, default=30, help="runs of each warm call")
    parser.add_argument("--cold-runs", type=int, default=5, help="runs of each cold call")
    parser.add_argument(
        "--listing-runs", type=int, default=3, help="runs of each walk (about 20 s at full size)"
    )
    parser.add_argument("--protocol", choices=("http", "https"), default="http")
    parser.add_argument("--output", type=Path, help="where the report goes")
    args = parser.parse_args(argv)
    # One line per request from httpx would bury the progress lines.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if args.quick:
        args.notes, args.folders = 2_000, 200
    output: Path = args.output or (QUICK_REPORT if args.quick else REPORT)

    started = time.perf_counter()
    log(f"vault: {args.notes:,} notes in {args.folders:,} folders …")
    vault = generate(args.notes, args.folders)
    folder = pick_folder(vault.path)
    total = vault.notes
    results = Results(
        vault=vault,
        vault_bytes=vault_bytes(vault.path),
        protocol=args.protocol,
        runs=args.runs,
        cold_runs=args.cold_runs,
        listing_runs=args.listing_runs,
        later_offset=min(LATER_OFFSET, (total // 2) // LIST_LIMIT * LIST_LIMIT),
        folder=folder,
        small_note=pick_small_note(vault.path, folder),
    )
    ports = {"https_port": None, "http_port": 0} if args.protocol == "http" else {"https_port": 0}
    for version in LISTING_VERSIONS[:-1]:
        log(f"emulator of {version} over {args.protocol} …")
        with start_emulator(vault.path, plugin_version=version, **ports) as emulator:
            anyio.run(measure_listing_only, results, emulator, version)
    log(f"emulator of {LISTING_VERSIONS[-1]} over {args.protocol} …")
    emulator_started = time.perf_counter()
    with start_emulator(vault.path, plugin_version=LISTING_VERSIONS[-1], **ports) as emulator:
        results.emulator_start = time.perf_counter() - emulator_started
        anyio.run(measure, results, emulator)
    text = report(results, time.perf_counter() - started)
    if args.output is None and not args.quick:
        write_section("vault", text)
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
    print(text)
    log(f"wrote {output} in {(time.perf_counter() - started) / 60:.1f} minutes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
