"""Every default answer within 5,000 characters, a note's content window within 10,000.

One walk calls every tool the full profile registers, and every operation of its dispatchers
(the default profile's unified vault, active_file and memory, read from the tools' own
schemas, so a renamed or split tool is walked as it is), with its default arguments (the
split profile's operations run the same single tools, so every one has a case too): only
what a call requires is given. The data is big enough to fill a page
of everything that pages: a generated vault of some two thousand notes in awkward folders
(emoji, CJK, ``#``, ``%``, spaces, NFD names, CRLF), hundreds of long tags, a hub note every
note links to, broken links, long notes, an SDD folder of big artifacts, many Obsidian
commands, and a memory store of three thousand observations over long-named projects.

Each answer is held to its bound: DEFAULT_RESPONSE_BUDGET, or for a note's content window
CONTENT_WINDOW of content plus its metadata and truncation line, or for a memory answer its
max_tokens (seed 002's 2,000 tokens), past which only a first result alone may go, whole
(seed 001: full detail is never cut). An answer the data is
known to overfill must be cut, and must say how to get the rest (nextOffset, startIndex,
max_tokens, limit). A tool or operation with no case here fails
``test_every_tool_and_operation_has_a_case``.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import pytest
from mcp import Client
from mcp.types import CallToolResult
from tests.tools.conftest import texts
from tests.web.conftest import PageServer, page_server

from vaultgate.config import Settings
from vaultgate.emulator.runner import start_emulator
from vaultgate.memory.store import MemoryStore
from vaultgate.paging import ANSWER_CAP, CONTENT_WINDOW, DEFAULT_RESPONSE_BUDGET
from vaultgate.server import build_server
from vaultgate.tools import registry
from vaultgate.tools.operations import SPLIT, UNIFIED

pytestmark = pytest.mark.anyio

__all__ = ["page_server"]  # the fixture, imported for fetch's page

TODAY = date(2026, 11, 21)
PLUGIN = "4.1.7"  # the newest with /periodic/ routes
NOTES = 2_000
FOLDERS = [
    "Projects/Acme #1/Sprints 100%",
    "日本/会議/議事録 2026",
    unicodedata.normalize("NFD", "Areas/Résumé/Café notes"),
    "Archive/🚀 Launches/2025 Q4",
    "Inbox/to sort",
]
HUB = "Hub/🧭 Index 100%.md"
LONG_NOTE = "Long/📚 A very long note 100%.md"
ACTIVE = "Long/📝 open in Obsidian.md"
TEMPLATE = "Templates/📋 Meeting #1.md"
SCRATCH = "Scratch"
BULK = "Bulk 🗑/old notes 50%"
COMMON_WORD = "meeting"
SDD_PROJECTS = ["vault gate #1", "会議 project", "café 100%"]
SDD_STAGES = ("proposal", "spec", "design", "tasks", "verify")
MEMORY_PROJECTS = [f"project {n:02} " + "long-name-" * 16 + "🚀" for n in range(30)]
OBSERVATIONS = 3_000
HUGE = 100_000  # the longest observation content the store keeps
EXTRA_COMMANDS = tuple(
    (f"plugin-{n:03}:do-something-useful-{n}", f"Plugin {n}: Do something useful with 会議 #{n}")
    for n in range(300)
)

# response: DEFAULT_RESPONSE_BUDGET; window: a content window; tokens: a memory answer's
# max_tokens (seed 002's 2,000, in characters); whole: a memory answer whose first result is a
# whole observation (seed 001: full detail is never cut), at most the longest one kept.
# page: a page that keeps its default item count (seed 004: "never return fewer items than the
# default"; search_vault's 50 rows, 100 commands, broken links, orphans or replace changes)
# and shortens each item instead, within seed 004's 50 KB (paging.ANSWER_CAP), cut past it.
Bound = Literal["response", "window", "tokens", "whole", "page"]
MEMORY_BUDGET = 2_000 * 4
WHOLE_BUDGET = HUGE + 3_000  # the observation, its heading, metadata and a left-out line
WAY_ON = (
    "nextOffset",
    "startIndex",
    "max_tokens",
    "limit",
    "targetPath",
    "for the rest",
    "for more",
)


# --- the data ---------------------------------------------------------------------------------


def words(rnd: random.Random, count: int) -> str:
    pool = [
        COMMON_WORD,
        "review",
        "会議",
        "プロジェクト",
        "🚀",
        "café",
        "100%",
        "#1",
        "naïve",
        "plan",
    ]
    return " ".join(rnd.choice(pool) for _ in range(count))


def write(vault: Path, path: str, text: str, *, crlf: bool = False) -> None:
    target = vault / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes((text.replace("\n", "\r\n") if crlf else text).encode("utf-8"))


def big_vault(root: Path) -> Path:
    """Enough notes, tags, links and text to overfill every default page."""
    rnd = random.Random(24)
    vault = root / "vault"
    tags = [f"area/会議-{n:03}-🚀-a-rather-long-tag-name" for n in range(400)]
    for index in range(NOTES):
        folder = FOLDERS[index % len(FOLDERS)]
        path = f"{folder}/Note {index:04} with a long name #{index % 7} 50% 🚀.md"
        chosen = " ".join(f"#{tag}" for tag in rnd.sample(tags, 3))
        broken = " ".join(f"[[Missing note {index}-{n} 🙈]]" for n in range(3 if index % 3 else 0))
        body = "\n\n".join(words(rnd, 40) for _ in range(4))
        listed = ", ".join(tags[index % 400 :][:2])
        text = (
            f"---\ntitle: 'Note # {index}'  # a comment\ntags: [{listed}]"
            f"\n---\n# Note {index}\n\n{body}\n\nSee [[🧭 Index 100%]] for the {COMMON_WORD} "
            f"index, and {broken}\n\n{chosen}\n"
        )
        write(vault, path, text, crlf=index % 4 == 0)
    write(vault, HUB, "# Index\n\n" + words(rnd, 100) + "\n")
    sections = [f"## Part {n} 会議 #{n}\n\n{words(rnd, 120)}\n" for n in range(400)]
    write(vault, LONG_NOTE, "---\ntags: [long]\n---\n# Long\n\n" + "\n".join(sections))
    write(vault, ACTIVE, "# Open\n\n" + "\n\n".join(words(rnd, 80) for _ in range(200)), crlf=True)
    write(vault, f"Daily/{TODAY:%Y-%m-%d}.md", "# Today\n\n" + words(rnd, 4_000) + "\n")
    write(vault, TEMPLATE, '# Meeting <% tp.mcpTools.prompt("topic") %>\n' + words(rnd, 4_000))
    for index in range(300):
        write(vault, f"{BULK}/Old note {index:03} to delete 🗑 #{index}.md", "old\n")
    for project in SDD_PROJECTS:
        for change in range(15):
            for stage in SDD_STAGES:
                path = f"sdd/{project}/changes/change-{change:02}-{COMMON_WORD}/{stage}.md"
                write(vault, path, f"# {stage.title()} of change {change}\n\n{words(rnd, 1_500)}\n")
    return vault


@dataclass
class Memory:
    path: str
    huge: list[int] = field(default_factory=list)  # ids of 100,000-character observations
    sessions: list[str] = field(default_factory=list)  # open sessions, for ending


def big_memory(root: Path) -> Memory:
    """Three thousand observations over a year, long titles, a few 100,000-character ones,
    sessions with long summaries and long prompts."""
    rnd = random.Random(2)
    moment = [datetime(2025, 11, 21, 8, 0, tzinfo=UTC)]
    memory = Memory(str(root / "memory.db"))
    store = MemoryStore.open(memory.path, clock=lambda: moment[0])
    try:
        for index in range(OBSERVATIONS):
            moment[0] += timedelta(minutes=170)
            project = MEMORY_PROJECTS[index % len(MEMORY_PROJECTS)]
            huge = index % 300 == 7
            content = words(rnd, HUGE // 8)[: HUGE - 20] if huge else words(rnd, 300)
            saved = store.save(
                f"{COMMON_WORD} {index} " + "a long title 会議 🚀 " * 20,
                f"{index}: {content}",
                type=("decision", "bugfix", "discovery", "pattern")[index % 4],
                project=project,
            )
            if huge:
                memory.huge.append(saved.observation.id)
            if index % 200 == 0:
                store.save_prompt(words(rnd, 200), project=project)
                session = saved.observation.session_id
                store.end_session(session, words(rnd, 150))
        for index in range(12):
            started = store.start_session(MEMORY_PROJECTS[index], None, None)
            memory.sessions.append(started.session.id)
    finally:
        store.close()
    return memory


# --- the cases ----------------------------------------------------------------------------------


Arguments = Callable[["World", str], dict[str, Any]]


@dataclass(frozen=True)
class Case:
    """A tool's default call: only what it requires, made from the call's label (so writes
    through the single tool and through its operation act on notes of their own)."""

    arguments: Arguments = lambda world, label: {}
    bound: Bound = "response"
    overfilled: bool = False  # the data holds more than one default answer: it must be cut
    scratch: bool = False  # acts on a note of its own, created first
    active: bool = False  # acts on the open note: its scratch note is opened first


@dataclass
class World:
    client: Client
    vault: Path
    memory: Memory
    page_url: str
    used: dict[str, int] = field(default_factory=dict)

    def scratch(self, label: str) -> str:
        return scratch_path(label)

    def next(self, pool: list[Any], tool: str) -> Any:
        """The next unused item of ``pool`` for ``tool`` (each call acts on its own)."""
        taken = self.used.get(tool, 0)
        self.used[tool] = taken + 1
        return pool[taken]


def scratch_path(label: str) -> str:
    return f"{SCRATCH}/{label.replace('.', ' ')} 会議 #1 50%.md"


def huge_ids(world: World, label: str) -> list[int]:
    return world.memory.huge[:10]


CASES: dict[str, Case] = {
    # reading the vault
    "list_vault_files": Case(),
    "get_vault_file": Case(lambda w, label: {"filename": LONG_NOTE}, "window", overfilled=True),
    "get_active_file": Case(bound="window", overfilled=True),
    "get_vault_files": Case(
        lambda w, label: {"filenames": [LONG_NOTE, ACTIVE, f"Daily/{TODAY:%Y-%m-%d}.md"]},
        "window",
        overfilled=True,
    ),
    "get_periodic_note": Case(lambda w, label: {"period": "daily"}, "window", overfilled=True),
    "search_vault_simple": Case(lambda w, label: {"query": COMMON_WORD}, overfilled=True),
    "search_vault": Case(lambda w, label: {"query": '{"var": "content"}'}, "page", True),
    "search_vault_smart": Case(lambda w, label: {"query": f"{COMMON_WORD} plan review"}),
    "list_tags": Case(overfilled=True),
    "get_recent_changes": Case(overfilled=True),
    "get_backlinks": Case(lambda w, label: {"filename": HUB}, overfilled=True),
    "find_broken_links": Case(bound="page", overfilled=True),
    "find_orphans": Case(bound="page", overfilled=True),
    "get_server_info": Case(),
    "list_commands": Case(bound="page", overfilled=True),
    "fetch": Case(lambda w, label: {"url": f"{w.page_url}/page.html"}, "window"),
    "discover": Case(overfilled=True),
    # SDD
    "sdd_get_context": Case(overfilled=True),
    "sdd_context_check": Case(
        lambda w, label: {"change_description": f"a {COMMON_WORD} change"}, overfilled=True
    ),
    # memory, reading
    "mem_search": Case(lambda w, label: {"query": COMMON_WORD}, "tokens", overfilled=True),
    "mem_context": Case(bound="tokens", overfilled=True),
    # the focus alone in its session: shown whole, nothing to cut
    "mem_timeline": Case(lambda w, label: {"observation_id": w.memory.huge[1]}, "whole"),
    "timeline": Case(bound="tokens", overfilled=True),
    "mem_get": Case(lambda w, label: {"id": w.memory.huge[0]}, "whole"),
    "mem_get_observation": Case(lambda w, label: {"id": w.memory.huge[0]}, "whole"),
    "mem_get_observations": Case(lambda w, label: {"ids": huge_ids(w, label)}, "whole", True),
    "mem_stats": Case(),
    "mem_compact": Case(lambda w, label: {"older_than_days": 30}, overfilled=True),
    # memory, writing
    "mem_session_start": Case(lambda w, label: {"project": MEMORY_PROJECTS[0]}),
    "mem_session_end": Case(
        lambda w, label: {"session_id": w.next(w.memory.sessions, "mem_session_end")}
    ),
    "mem_save": Case(lambda w, label: {"title": f"saved by {label}", "content": "x" * 5_000}),
    "mem_update": Case(
        lambda w, label: {"id": w.next(list(range(100, 200)), "mem_update"), "title": label}
    ),
    "mem_delete": Case(lambda w, label: {"id": w.next(list(range(200, 300)), "mem_delete")}),
    "mem_save_prompt": Case(lambda w, label: {"content": "y" * 5_000}),
    # writing the vault
    "create_vault_file": Case(
        lambda w, label: {"filename": w.scratch(f"new {label}"), "content": "z" * 20_000}
    ),
    "append_to_vault_file": Case(
        lambda w, label: {"filename": w.scratch(label), "content": "more\n"}, scratch=True
    ),
    "patch_vault_file": Case(
        lambda w, label: {
            "filename": w.scratch(label),
            "patchOperation": "append",
            "targetType": "heading",
            "target": "Scratch",
            "content": "patched\n",
        },
        scratch=True,
    ),
    "delete_vault_file": Case(lambda w, label: {"filename": w.scratch(label)}, scratch=True),
    "move_vault_file": Case(
        lambda w, label: {"source": w.scratch(label), "destination": w.scratch(f"{label} moved")},
        scratch=True,
    ),
    "bulk_delete_files": Case(lambda w, label: {"pattern": f"{BULK}/**"}, overfilled=True),
    "replace_in_notes": Case(
        lambda w, label: {"find": COMMON_WORD, "replacement": "rendezvous"}, "page", True
    ),
    "set_note_property": Case(
        lambda w, label: {"filename": w.scratch(label), "key": "status", "value": "done"},
        scratch=True,
    ),
    "delete_note_property": Case(
        lambda w, label: {"filename": w.scratch(label), "key": "status"}, scratch=True
    ),
    "add_note_tag": Case(
        lambda w, label: {"filename": w.scratch(label), "tag": "会議/new"}, scratch=True
    ),
    "remove_note_tag": Case(
        lambda w, label: {"filename": w.scratch(label), "tag": "scratch"}, scratch=True
    ),
    "update_active_file": Case(lambda w, label: {"content": "replaced\n"}, active=True),
    "append_to_active_file": Case(lambda w, label: {"content": "appended\n"}, active=True),
    "patch_active_file": Case(
        lambda w, label: {
            "patchOperation": "append",
            "targetType": "heading",
            "target": "Scratch",
            "content": "patched\n",
        },
        active=True,
    ),
    "delete_active_file": Case(active=True),
    "show_file_in_obsidian": Case(lambda w, label: {"filename": w.scratch(label)}, scratch=True),
    "execute_command": Case(lambda w, label: {"commandId": "editor:save-file"}),
    "append_to_periodic_note": Case(lambda w, label: {"period": "daily", "content": "later\n"}),
    "execute_template": Case(lambda w, label: {"name": TEMPLATE}, "window", overfilled=True),
}
SCRATCH_TEXT = "---\ntags: [scratch]\nstatus: draft\n---\n# Scratch\n\nA line.\n"


@dataclass(frozen=True)
class Call:
    label: str  # 'tool' or 'dispatcher.operation'
    tool: str  # the tool called
    case: Case
    fixed: Mapping[str, Any]  # the operation, for a dispatcher
    writes: bool


def calls_of(tools: Mapping[str, dict[str, Any]]) -> list[Call]:
    """Every registered tool, and every operation its schema offers when it dispatches;
    reading calls first, so writes never change what a read measures."""
    calls: list[Call] = []
    for name, tool in tools.items():
        operations = tool["inputSchema"]["properties"].get("operation", {}).get("enum")
        if operations is None:
            read_only = bool((tool.get("annotations") or {}).get("readOnlyHint"))
            calls.append(Call(name, name, CASES[name], {}, not read_only))
            continue
        routes = UNIFIED[name].routes  # full offers the default profile's dispatchers
        for operation in operations:
            route = routes[operation]
            label = f"{name}.{operation}"
            fixed = {"operation": operation}
            calls.append(Call(label, name, CASES[route.tool_name], fixed, route.writes))
    return sorted(calls, key=lambda call: call.writes)


# --- the walk -----------------------------------------------------------------------------------


def scratch_labels() -> list[str]:
    """The labels of every call that may act on a scratch note of its own."""
    labels = [name for name, case in CASES.items() if case.scratch or case.active]
    for dispatcher, table in UNIFIED.items():
        for operation, route in table.routes.items():
            case = CASES.get(route.tool_name)
            if case is not None and (case.scratch or case.active):
                labels.append(f"{dispatcher}.{operation}")
    return labels


@asynccontextmanager
async def serve(vault: Path, memory: Memory) -> AsyncIterator[Client]:
    # Written before the server starts: it keeps what a search saw of the vault for a while.
    for label in scratch_labels():
        write(vault, scratch_path(label), SCRATCH_TEXT)
    with start_emulator(
        vault,
        plugin_version=PLUGIN,
        extensions=True,
        active_file=ACTIVE,
        today=lambda: TODAY,
        extra_commands=EXTRA_COMMANDS,
    ) as emulator:
        assert emulator.https_url is not None
        settings = Settings.from_env(
            {
                "OBSIDIAN_API_KEY": emulator.api_key,
                "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
                "OBSIDIAN_CERT": str(emulator.certificate_path),
                "VAULTGATE_TOOLS": "full",
                "VAULTGATE_MEMORY_DB": memory.path,
                "VAULTGATE_FETCH_ALLOW_PRIVATE": "true",
            }
        )
        async with Client(build_server(settings)) as client:
            yield client


def content_of(result: CallToolResult, bound: Bound) -> tuple[int, int]:
    """(characters of notes' content, characters of everything else) in an answer; for a
    response bound, all of it counts as the rest."""
    blocks = texts(result)
    whole = sum(map(len, blocks))
    if bound != "window":
        return 0, whole
    for block in blocks:
        metadata = json_object(block)
        if isinstance(metadata.get("notes"), list):  # several notes: their content fields
            content = sum(len(note.get("content", "")) for note in metadata["notes"])
            return content, whole - content
        if "endIndex" in metadata:  # one window: the span its metadata names
            content = metadata["endIndex"] - metadata["startIndex"]
            return content, whole - content
    window = max(blocks, key=len)  # whole, or a rendered template: the longest block
    return len(window), whole - len(window)


def json_object(block: str) -> dict[str, Any]:
    try:
        value = json.loads(block)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def says_how_to_go_on(result: CallToolResult) -> bool:
    return any(way in block for block in texts(result) for way in WAY_ON)


def is_cut(result: CallToolResult) -> bool:
    """Does the answer say more is left: a nextOffset, a cut window, a 'Showing X of Y', a
    token budget line, a cut marker?"""
    joined = "\n".join(texts(result))
    markers = ('"nextOffset"', '"hasMore":true', "Showing ", "Token budget", "cut at", "truncated")
    return any(marker in joined for marker in markers)


async def measure(world: World, call: Call) -> str | None:
    """The call's failure to keep its bound, or None."""
    arguments = {**call.fixed, **call.case.arguments(world, call.label)}
    if call.case.active:
        opened = await world.client.call_tool(
            "show_file_in_obsidian", {"filename": world.scratch(call.label)}
        )
        assert not opened.is_error, texts(opened)
    result = await world.client.call_tool(call.tool, arguments)
    if result.is_error:
        return f"{call.label}: an error, not an answer: {texts(result)[0][:300]}"
    content, rest = content_of(result, call.case.bound)
    problems = []
    if call.case.bound == "window":
        if content > CONTENT_WINDOW or rest > WINDOW_METADATA:
            problems.append(f"window {content:,} + {rest:,} characters")
    elif rest > {
        "response": DEFAULT_RESPONSE_BUDGET,
        "tokens": MEMORY_BUDGET,
        "page": ANSWER_CAP,
    }.get(call.case.bound, WHOLE_BUDGET):
        problems.append(f"{rest:,} characters")
    if call.case.overfilled and not is_cut(result):
        problems.append("not cut, though the data overfills it: the test data is too small")
    if is_cut(result) and not says_how_to_go_on(result):
        problems.append(f"cut without saying how to get the rest: …{texts(result)[-1][-300:]}")
    return f"{call.label}: {'; '.join(problems)}" if problems else None


# What a content window may add to its content: its metadata line and truncation notice, and
# for several notes each one's filename and window metadata.
WINDOW_METADATA = 2_000


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Memory]:
    root = tmp_path_factory.mktemp("default-sizes")
    return big_vault(root), big_memory(root)


async def test_every_default_answer_keeps_its_bound(
    data: tuple[Path, Memory], page_server: PageServer
) -> None:
    vault, memory = data
    async with serve(vault, memory) as client:
        listed = {
            tool.name: tool.model_dump(by_alias=True) for tool in (await client.list_tools()).tools
        }
        world = World(client, vault, memory, page_server.url)
        calls = calls_of(listed)
        # discover's detail view of each of them, before any write
        explained = [
            Call(f"discover:{call.label}", "discover", Case(), {"operation": call.label}, False)
            for call in calls
            if call.label != "discover"
        ]
        failures = [
            failure for call in [*explained, *calls] if (failure := await measure(world, call))
        ]

    assert failures == [], "\n".join(failures)


def test_every_tool_and_operation_has_a_case() -> None:
    """A tool or operation added without a case here fails: its default answer is unmeasured."""
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": "full"})
    names = {tool.__name__ for tool, _ in registry.select_tools(settings)}
    names |= {
        route.tool_name
        for table in (UNIFIED, SPLIT)
        for dispatcher in table.values()
        for route in dispatcher.routes.values()
    }
    dispatchers = set(UNIFIED) | set(SPLIT)
    assert sorted(names - set(CASES) - dispatchers) == []
    assert {"vault", "active_file", "memory"} <= names  # full's dispatchers are walked


async def test_a_huge_observation_is_read_whole_and_several_whole_ones_share_the_budget(
    data: tuple[Path, Memory],
) -> None:
    vault, memory = data
    huge = memory.huge[2]
    async with serve(vault, memory) as client:
        (whole,) = texts(await client.call_tool("mem_get_observation", {"id": huge}))
        (several,) = texts(
            await client.call_tool("mem_get_observations", {"ids": memory.huge[:10]})
        )
        (two,) = texts(
            await client.call_tool(
                "mem_get_observations", {"ids": memory.huge[:2], "max_tokens": 100_000}
            )
        )

    store = MemoryStore.open(memory.path)
    try:
        contents = [store.get(i).content for i in memory.huge[:10]]
        content = store.get(huge).content
    finally:
        store.close()
    assert len(content) > MEMORY_BUDGET
    assert f"\n{content}\n---\n" in whole  # never cut
    assert "cut at" not in whole
    left_out = re.search(r"mem_get_observations\(ids=\[([\d, ]+)\]\)", several)
    shown = [int(i) for i in re.findall(r"^#(\d+) \[", several, flags=re.MULTILINE)]
    named = [int(i) for i in left_out[1].split(", ")] if left_out else []
    assert shown == memory.huge[:1]  # one 100,000-character text is past 2,000 tokens alone
    assert shown + named == memory.huge[:10]  # each shown whole or named, in order
    assert f"\n{contents[0]}\n---\n" in several
    assert all(f"\n{text}\n---\n" in two for text in contents[:2])
