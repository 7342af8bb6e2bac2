"""Protection tags hold for every tool and every dispatcher operation, on every backend.

A copy of the fixture vault gets notes tagged ``mcp-hidden``, ``mcp-readonly`` and
``mcp-protected`` (in the frontmatter forms Obsidian reads: a YAML list, a string of tags, a
``Tag:`` key, with and without '#', in any case), with awkward names. The walk takes every
single tool from the registry and every operation of both profiles' dispatchers
(tools/operations.py: the default profile's vault, active_file and memory, and the split
one's vault, vault_edit, memory and memory_edit), finds the probe of the tool the operation
routes to, and runs it through the single tool and through the dispatcher: an operation added
later without a probe (or a reason to need none) fails
``test_every_tool_and_operation_is_classified``.

Each probe shows the three tags holding for its tool: a hidden note is absent from what it
lists or finds and answers exactly what a missing note in the same folder answers; a
read-only note is never written; a protected one is never deleted or moved. At the end of
the walk the tagged notes are byte for byte what they were.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult
from tests.tools.conftest import FIXTURE_VAULT, folder_settings, texts

from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.obsidian.features import FeatureSet, Version
from vaultgate.server import build_server
from vaultgate.tools import registry
from vaultgate.tools.operations import SPLIT, UNIFIED, Dispatcher
from vaultgate.tools.routes import Route

pytestmark = pytest.mark.anyio

PROTECTED = "Protected/🔒 keep #1 100%.md"
READONLY = "Protected/read only 日本 #2.md"
HIDDEN = "Protected/hidden 50% secret #3 🙈.md"
HIDDEN_TWIN = "Protected/hidden 50% secret #3 🙉.md"  # never exists: what missing answers
HIDDEN_BY_KEY = "Areas/Home/🙈 Tag key.md"  # `Tag: MCP-Hidden`
VISIBLE = "Protected/visible links.md"
# links to a hidden note and to its missing twin: both must read as links to missing notes
LINKS_TO_HIDDEN = "Areas/Home/links to the key note 🔗.md"
HIDDEN_LINK, MISSING_LINK = "🙈 Tag key", "🙉 Tag key"
THROWAWAY = "Protected/throwaway #4.md"  # the one match bulk delete may delete
HIDDEN_TEMPLATE = "Templates/🙈 secret template #5.md"
HIDDEN_TEMPLATE_TWIN = "Templates/🙉 secret template #5.md"
HIDDEN_SDD = "sdd/vault gate/changes/secret-change 50%/proposal.md"
VISIBLE_SDD = "sdd/vault gate/changes/open-change/proposal.md"
TODAY = date(2026, 11, 21)
HIDDEN_DAY, READONLY_DAY, MISSING_DAY = "2026-11-24", "2026-11-25", "2026-11-26"

SECRET = "zebrasecret"  # a word only hidden notes hold
SECRET_TAG = "hiddenonlytag"  # an inline tag only hidden notes carry

TAGGED_NOTES: dict[str, str] = {
    PROTECTED: "---\ntags: [project, mcp-protected]\n---\n# Keep\n\nProtected body.\n",
    READONLY: '---\ntags: "#MCP-ReadOnly, work"\n---\n# Read only\n\nRead-only body.\n',
    HIDDEN: (
        "---\ntags:\n  - project\n  - '#mcp-hidden'\n---\n# Hidden\n\n"
        f"The {SECRET} plan, see [[Welcome]] and [[nowhere {SECRET}]] #{SECRET_TAG}\n"
    ),
    HIDDEN_BY_KEY: f"---\nTag: MCP-Hidden\n---\nAlso {SECRET} #{SECRET_TAG}\n",
    VISIBLE: (
        "# Visible\n\n[[hidden 50% secret #3 🙈]] [[🔒 keep #1 100%]] [[read only 日本 #2]]\n"
    ),
    THROWAWAY: "throwaway\n",
    LINKS_TO_HIDDEN: f"See [[{HIDDEN_LINK}]] 日本 and [[{MISSING_LINK}]].\r\n",
    HIDDEN_TEMPLATE: f"---\ntags: mcp-hidden\n---\n{SECRET} template\n",
    HIDDEN_SDD: f"---\ntags: [mcp-hidden]\n---\n# Proposal\n\n{SECRET}\n",
    VISIBLE_SDD: "# Proposal\n\nAn open change.\n",
    f"Daily/{HIDDEN_DAY}.md": f"---\ntags: [mcp-hidden]\n---\n{SECRET} day\n",
    f"Daily/{READONLY_DAY}.md": "---\ntags: [mcp-readonly]\n---\nRead-only day\n",
}
# Every other way Obsidian reads a tag (issue 23): any case of the key, a string, a YAML
# escape, a frontmatter longer than any head read, inline outside code, nested.
LONG_YAML = "".join(f"field{i}: {'long value 日本 ' * 4}\r\n" for i in range(80))  # > 4 KB
SPELLED_HIDDEN: dict[str, str] = {
    "Spellings/TaGs key 🙈.md": f"---\nTaGs: mcp-hidden\n---\n{SECRET} mixed-case key\n",
    "Spellings/TAG string #7.md": (
        f'---\n# the key in capitals\nTAG: "mcp-hidden"\n---\n{SECRET} as a string\n'
    ),
    "Spellings/escaped 100%.md": f'---\ntags: ["\\x6dcp-hidden"]\n---\n{SECRET} escaped\n',
    "Spellings/long 日本.md": (
        f"---\r\n{LONG_YAML}tags: [mcp-hidden]\r\n---\r\n{SECRET} long frontmatter\r\n"
    ),
    "Spellings/inline 🙈.md": f"# Inline\n\n{SECRET} 日本 #mcp-hidden\n",
    "Spellings/nested.md": f"---\ntags: [mcp-hidden/drafts]\n---\n{SECRET} nested\n",
}
READONLY_INLINE = "Spellings/ro inline 日本.md"
PROTECTED_INLINE = "Spellings/keep inline #8.md"
FENCED = "Spellings/fenced.md"  # a tag in code protects nothing
SPELLED_OTHERS: dict[str, str] = {
    READONLY_INLINE: "# RO\n\nRead-only inline #MCP-Readonly/x 🚀\n",
    PROTECTED_INLINE: "# Keep\n\nKept inline #mcp-protected\n\n## Other\n\nmore\n",
    FENCED: "```\n#mcp-readonly\n```\nand `#mcp-protected` in code\n",
}
TAGGED_NOTES |= SPELLED_HIDDEN | SPELLED_OTHERS
HIDDEN_PATHS = (
    HIDDEN,
    HIDDEN_BY_KEY,
    HIDDEN_TEMPLATE,
    HIDDEN_SDD,
    f"Daily/{HIDDEN_DAY}.md",
    *SPELLED_HIDDEN,
)
KEPT_PATHS = (PROTECTED, READONLY, f"Daily/{READONLY_DAY}.md", READONLY_INLINE, PROTECTED_INLINE)
# what no answer may show: the hidden notes' paths, names and contents (a visible note may
# link to one: its link text is the visible note's)
LEAKS = (
    SECRET,
    SECRET_TAG,
    "secret-change",
    "mcp-hidden",
    *HIDDEN_PATHS,
    *(path.rsplit("/", 1)[1] for path in (HIDDEN, HIDDEN_BY_KEY, HIDDEN_TEMPLATE)),
    *(path.rsplit("/", 1)[1] for path in SPELLED_HIDDEN),
)

# plugin versions through the emulator; the vault folder; the folder with Obsidian (5.1.0)
# for what only Obsidian does
BACKENDS = ["3.6.2", "4.1.7", "5.1.0", "folder", "auto"]


@pytest.fixture
def tagged_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    for path, text in TAGGED_NOTES.items():
        file = vault.joinpath(*path.split("/"))
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text, encoding="utf-8")
    return vault


@dataclass
class World:
    """One server in front of one backend, and what a probe needs to know of it."""

    backend: str
    vault: Path
    client: Client
    emulator: RunningEmulator | None
    failures: list[str] = field(default_factory=list)

    @property
    def obsidian(self) -> bool:
        return self.emulator is not None

    @property
    def features(self) -> FeatureSet:
        version = "5.1.0" if self.backend in ("folder", "auto") else self.backend
        return FeatureSet(Version.parse(version))

    def open(self, path: str | None) -> None:
        """Make ``path`` the note open in Obsidian (the emulator's workspace)."""
        assert self.emulator is not None
        self.emulator.state.active_file = path

    def text(self, path: str) -> str:
        return self.vault.joinpath(*path.split("/")).read_text(encoding="utf-8")


Call = Callable[[Mapping[str, Any]], Awaitable[CallToolResult]]
Probe = Callable[[Call, World], Awaitable[None]]


def body(result: CallToolResult | str) -> str:
    return result if isinstance(result, str) else "\n".join(texts(result))


def refused(result: CallToolResult, *named: str) -> str:
    """The error text of a refused call, which names each of ``named``."""
    assert result.is_error, f"not refused: {body(result)[:300]}"
    message = body(result)
    for word in named:
        assert word in message, f"{word!r} not in {message!r}"
    return message


def no_leak(result: CallToolResult | str) -> str:
    message = body(result)
    for word in LEAKS:
        assert word not in message, f"{word!r} leaked: {message[:400]!r}"
    return message


def names_no_tag(result: CallToolResult | str) -> str:
    """An answer about a hidden note the model named: it may name the note, never its tag
    or its text."""
    message = body(result)
    for word in (SECRET, "mcp-hidden"):
        assert word not in message, f"{word!r} leaked: {message[:400]!r}"
    return message


def as_missing(hidden: CallToolResult, missing: CallToolResult, names: tuple[str, str]) -> None:
    """The hidden note's answer is the missing twin's, names swapped."""
    assert hidden.is_error, body(hidden)[:300]
    assert missing.is_error, body(missing)[:300]
    shown, twin = names
    expected = body(missing).replace(twin, shown).replace(repr(twin), repr(shown))
    assert body(hidden) == expected


# --- the probes: one per single tool ---------------------------------------------------------


async def probe_list(call: Call, world: World) -> None:
    for arguments in (
        {"recursive": True, "limit": 1000, "layout": "flat"},
        {"recursive": True, "layout": "tree", "limit": 1000},
        {"folder": "Protected"},
        {"folder": "Areas/Home"},
        {"recursive": True, "pattern": "**/*#*"},
    ):
        no_leak(result := await call(arguments))
        assert not result.is_error
    listed = body(await call({"recursive": True, "limit": 1000, "layout": "flat"}))
    assert PROTECTED in listed
    assert READONLY in listed
    assert all(path in listed for path in SPELLED_OTHERS)


async def probe_read(call: Call, world: World) -> None:
    for note_format in ("markdown", "json", "map"):
        hidden = await call({"filename": HIDDEN, "format": note_format})
        missing = await call({"filename": HIDDEN_TWIN, "format": note_format})
        as_missing(hidden, missing, (HIDDEN, HIDDEN_TWIN))
        refused(await call({"filename": HIDDEN_BY_KEY, "format": note_format}), "not found")
        for path in SPELLED_HIDDEN:
            names_no_tag(
                refused(await call({"filename": path, "format": note_format}), "not found")
            )
        assert not (await call({"filename": READONLY, "format": note_format})).is_error
        assert not (await call({"filename": FENCED, "format": note_format})).is_error
    # the links and backlinks in note JSON leave hidden notes out
    for path in (VISIBLE, "Welcome.md"):
        result = await call({"filename": path, "format": "json", "maxLength": 100_000})
        assert not result.is_error, body(result)[:300]
        if result.structured_content is None and texts(result)[0].startswith("{"):
            note = json.loads(texts(result)[0])
            for key in ("links", "backlinks"):
                assert not set(note.get(key, [])) & set(HIDDEN_PATHS), (key, note[key])
    if world.features.has("unresolved_links"):
        result = await call({"filename": LINKS_TO_HIDDEN, "format": "json"})
        note = json.loads(texts(result)[0])
        if "frontmatter" in note:  # note JSON (an operation may fix another format)
            assert note["unresolvedLinks"] == [HIDDEN_LINK, MISSING_LINK], note


async def probe_active_read(call: Call, world: World) -> None:
    if not world.obsidian:
        no_leak(await call({}))
        return
    world.open(None)
    nothing_open = await call({})
    for path in (HIDDEN, HIDDEN_BY_KEY):
        world.open(path)
        for note_format in ("markdown", "json", "map"):
            result = await call({"format": note_format})
            assert body(result) == body(nothing_open), body(result)[:300]
    world.open(READONLY)
    assert not (await call({})).is_error


async def probe_simple_search(call: Call, world: World) -> None:
    for query in (SECRET, "secret", "🙈", "mcp-hidden"):
        no_leak(await call({"query": query}))
    found = json.loads(body(await call({"query": "protected body"})))
    assert [hit["filename"] for hit in found["results"]] == [PROTECTED]


async def probe_structured_search(call: Call, world: World) -> None:
    queries: list[Any] = [
        {"glob": ["Protected/*", {"var": "path"}]},
        {"in": ["mcp-hidden", {"var": "tags"}]},
        {"var": "frontmatter"},
        {"in": [SECRET, {"var": "content"}]},
    ]
    if world.features.has("links"):
        queries += [
            {"var": "backlinks"},
            {"var": "links"},
            {"cat": [{"var": "backlinks"}]},
            {"var": "links.0"},
            {"map": [{"var": "links"}, {"cat": ["<", {"var": ""}, ">"]}]},
        ]
    for query in queries:
        result = await call({"query": query, "limit": 200})
        no_leak(result)
        assert not result.is_error, body(result)[:300]
    if world.features.has("dataview_search"):
        # Dataview's rows leave out every spelling of mcp-hidden too (its link fields are
        # refused while a note is hidden: tests/tools/test_derived_leaks.py)
        for dql in ('TABLE file.name FROM ""', 'TABLE file.name, file.tags FROM "Spellings"'):
            result = await call({"query": dql, "queryType": "dataview", "limit": 200})
            no_leak(result)
            assert not result.is_error, body(result)[:300]
            assert "Spellings/nested.md" not in body(result)
            assert FENCED in body(result)  # a tag in code hides nothing
    if not world.features.has("links"):
        return
    # values a query only tests still say nothing of a hidden note
    for query in (
        {"in": [HIDDEN, {"var": "backlinks"}]},
        {"in": [HIDDEN_BY_KEY, {"var": "links"}]},
        {"some": [{"var": "links"}, {"in": ["🙈", {"var": ""}]}]},
    ):
        found = json.loads(body(await call({"query": query, "limit": 200})))
        assert LINKS_TO_HIDDEN not in {row["filename"] for row in found["results"]}, query
        assert not any(row["result"] is True for row in found["results"]), (query, found)
    # its only resolved link led to the hidden note: it has none
    found = json.loads(body(await call({"query": {"missing": ["links.0"]}, "limit": 200})))
    assert LINKS_TO_HIDDEN in {row["filename"] for row in found["results"]}
    if world.features.has("unresolved_links"):
        found = {}
        for text in (HIDDEN_LINK, MISSING_LINK):
            query = {"in": [text, {"var": "unresolvedLinks"}]}
            answer = json.loads(body(await call({"query": query, "limit": 200})))
            found[text] = [row["filename"] for row in answer["results"]]
        assert found[HIDDEN_LINK] == found[MISSING_LINK] == [LINKS_TO_HIDDEN], found


async def probe_smart_search(call: Call, world: World) -> None:
    no_leak(await call({"query": SECRET}))


async def probe_tags(call: Call, world: World) -> None:
    result = await call({"limit": 1000})
    assert not result.is_error or not world.features.has("tags")
    names = {tag["name"]: tag["count"] for tag in json.loads(body(result)).get("tags", [])}
    if world.features.has("tags"):
        assert SECRET_TAG not in names
        assert "mcp-hidden" not in names
        assert "mcp-protected" in names


async def probe_periodic_read(call: Call, world: World) -> None:
    if not world.obsidian or not world.features.has("periodic_notes"):
        no_leak(await call({"period": "daily", "date": HIDDEN_DAY}))
        return
    hidden = await call({"period": "daily", "date": HIDDEN_DAY})
    missing = await call({"period": "daily", "date": MISSING_DAY})
    as_missing(hidden, missing, (HIDDEN_DAY, MISSING_DAY))
    assert not (await call({"period": "daily", "date": READONLY_DAY})).is_error


async def probe_sdd(call: Call, world: World) -> None:
    for arguments in ({}, {"project": "vault gate", "detail_level": "standard"}):
        result = await call(arguments)
        no_leak(result)
        assert "open-change" in body(result)


async def probe_sdd_check(call: Call, world: World) -> None:
    no_leak(await call({"change_description": "a secret change proposal"}))


async def probe_create(call: Call, world: World) -> None:
    refused(await call({"filename": READONLY, "content": "x", "overwrite": True}), "mcp-readonly")
    refused(
        await call({"filename": PROTECTED, "content": "# untagged\n", "overwrite": True}),
        "mcp-protected",
    )
    names_no_tag(refused(await call({"filename": HIDDEN, "content": "x", "overwrite": True})))
    # the existence check answers for a hidden note what it answers for a missing one: the
    # refusal is the write's (a missing note would be created), and names no tag
    refused(await call({"filename": HIDDEN_BY_KEY, "content": "x"}), "out of")
    refused(await call({"filename": READONLY_INLINE, "content": "x", "overwrite": True}), "mcp-")
    refused(
        await call({"filename": PROTECTED_INLINE, "content": "# Keep\n", "overwrite": True}),
        "mcp-protected",
    )
    for path in SPELLED_HIDDEN:
        names_no_tag(refused(await call({"filename": path, "content": "x", "overwrite": True})))
    # a tag in code protects nothing; a write that adds a protection tag is allowed
    fenced = SPELLED_OTHERS[FENCED]
    assert not (await call({"filename": FENCED, "content": fenced, "overwrite": True})).is_error
    # a write that adds a protection tag is allowed, and so is one that keeps it
    kept = {"filename": "Spellings/new kept 日本.md", "content": "Kept #MCP-Protected/x\n"}
    assert not (await call({**kept, "overwrite": True})).is_error
    assert not (await call({**kept, "overwrite": True})).is_error


async def probe_append(call: Call, world: World) -> None:
    refused(await call({"filename": READONLY, "content": "more"}), "mcp-readonly")
    names_no_tag(refused(await call({"filename": HIDDEN, "content": "more"})))
    refused(await call({"filename": READONLY_INLINE, "content": "more"}), "mcp-readonly")
    for path in SPELLED_HIDDEN:
        names_no_tag(refused(await call({"filename": path, "content": "more"})))


PATCH = {"patchOperation": "append", "targetType": "heading", "target": "Hidden", "content": "x"}
TAG_MORE = {
    "patchOperation": "append",
    "targetType": "frontmatter",
    "target": "tags",
    "contentType": "json",
}
UNTAG = {"patchOperation": "replace", "targetType": "frontmatter", "target": "tags", "content": "x"}


async def probe_patch(call: Call, world: World) -> None:
    refused(await call({"filename": READONLY, **PATCH, "target": "Read only"}), "mcp-readonly")
    refused(await call({"filename": PROTECTED, **UNTAG}), "mcp-protected")
    refused(await call({"filename": READONLY_INLINE, **PATCH, "target": "RO"}), "mcp-readonly")
    for patch in (
        {**PATCH, "patchOperation": "replace", "target": "Keep"},  # the tag's line replaced
        {**PATCH, "patchOperation": "prepend", "target": "Keep", "content": "```\n"},  # fenced in
    ):
        refused(await call({"filename": PROTECTED_INLINE, **patch}), "mcp-protected")
    for path in SPELLED_HIDDEN:
        names_no_tag(refused(await call({"filename": path, **PATCH}), "not found"))
    for patch in (PATCH, UNTAG):
        hidden = await call({"filename": HIDDEN, **patch})
        missing = await call({"filename": HIDDEN_TWIN, **patch})
        as_missing(hidden, missing, (HIDDEN, HIDDEN_TWIN))


async def probe_delete(call: Call, world: World) -> None:
    refused(await call({"filename": READONLY}), "mcp-readonly")
    refused(await call({"filename": PROTECTED, "permanent": True}), "mcp-protected")
    refused(await call({"filename": READONLY_INLINE}), "mcp-readonly")
    refused(await call({"filename": PROTECTED_INLINE, "permanent": True}), "mcp-protected")
    for path in SPELLED_HIDDEN:
        names_no_tag(refused(await call({"filename": path}), "not found"))
    as_missing(
        await call({"filename": HIDDEN}),
        await call({"filename": HIDDEN_TWIN}),
        (HIDDEN, HIDDEN_TWIN),
    )


async def probe_move(call: Call, world: World) -> None:
    await probe_move_report(call, world)
    for dry_run in (True, False):
        refused(
            await call({"source": READONLY, "destination": "Elsewhere/ro.md", "dryRun": dry_run}),
            "mcp-readonly",
        )
        refused(
            await call({"source": PROTECTED, "destination": "Elsewhere/", "dryRun": dry_run}),
            "mcp-protected",
        )
        for source, tag in ((READONLY_INLINE, "mcp-readonly"), (PROTECTED_INLINE, "mcp-protected")):
            refused(
                await call({"source": source, "destination": "Elsewhere/", "dryRun": dry_run}),
                tag,
            )
        as_missing(
            await call({"source": HIDDEN, "destination": "Elsewhere/h.md", "dryRun": dry_run}),
            await call({"source": HIDDEN_TWIN, "destination": "Elsewhere/h.md", "dryRun": dry_run}),
            (HIDDEN, HIDDEN_TWIN),
        )
        for onto, tag in ((PROTECTED, "mcp-protected"), (READONLY, "mcp-readonly")):
            refused(
                await call(
                    {
                        "source": "Welcome.md",
                        "destination": onto,
                        "overwrite": True,
                        "dryRun": dry_run,
                    }
                ),
                tag,
            )
        names_no_tag(
            refused(
                await call(
                    {
                        "source": "Welcome.md",
                        "destination": HIDDEN,
                        "overwrite": True,
                        "dryRun": dry_run,
                    }
                )
            )
        )


async def probe_move_report(call: Call, world: World) -> None:
    """A move whose link updates may write a hidden note (one links to Welcome) is refused,
    counting it, never naming it: through Obsidian's rename, which may rewrite any backlink.
    vaultgate's own plan keeps a bare [[Welcome]] into Archive/, and a plugin without MOVE
    rewrites no link: both may move it."""
    result = await call({"source": "Welcome.md", "destination": "Archive/", "dryRun": True})
    no_leak(result)
    if world.obsidian and world.backend != "auto" and world.features.has("move"):
        refused(result, "1 note vaultgate may not show")  # Obsidian rewrites every backlink
    else:  # copied and deleted, or vaultgate's own plan: a bare [[Welcome]] stays as it is
        assert not result.is_error, body(result)[:300]


async def probe_bulk_delete(call: Call, world: World) -> None:
    selection = {"pattern": "**/*#*.md", "folder": "Protected"}
    dry = await call({**selection, "dryRun": True})
    no_leak(dry)
    answer = json.loads(body(dry))
    assert PROTECTED not in answer["files"]
    assert READONLY not in answer["files"]
    assert set(answer["kept"]["paths"]) == {PROTECTED, READONLY}
    assert answer["kept"]["count"] == 2
    run = json.loads(body(await call({**selection, "dryRun": False})))
    assert set(run["deleted"]) <= {THROWAWAY}
    assert set(run["kept"]["paths"]) == {PROTECTED, READONLY}


async def probe_active_writes(call: Call, world: World, arguments: Mapping[str, Any]) -> None:
    if not world.obsidian:
        refused(await call(arguments))
        return
    world.open(None)
    nothing_open = await call(arguments)
    for path in (HIDDEN, HIDDEN_BY_KEY):
        world.open(path)
        assert body(await call(arguments)) == body(nothing_open)
    world.open(READONLY)
    refused(await call(arguments), "mcp-readonly", "the note open in Obsidian")
    world.open(None)


async def probe_active_update(call: Call, world: World) -> None:
    await probe_active_writes(call, world, {"content": "replaced"})
    if world.obsidian:
        world.open(PROTECTED)
        refused(await call({"content": "# untagged\n"}), "mcp-protected")
        world.open(None)


async def probe_active_append(call: Call, world: World) -> None:
    await probe_active_writes(call, world, {"content": "more"})


async def probe_active_patch(call: Call, world: World) -> None:
    await probe_active_writes(call, world, UNTAG)
    if world.obsidian:
        world.open(PROTECTED)
        refused(await call(UNTAG), "mcp-protected")
        world.open(None)


async def probe_active_delete(call: Call, world: World) -> None:
    await probe_active_writes(call, world, {})
    if world.obsidian:
        world.open(PROTECTED)
        refused(await call({}), "mcp-protected")
        world.open(None)


async def probe_open(call: Call, world: World) -> None:
    # Opening shows a note to the user, not to the model, and writes nothing: allowed, and
    # the answer is the one a missing note gets (Obsidian would create that one).
    for path in (HIDDEN, READONLY, PROTECTED):
        names_no_tag(await call({"filename": path}))


async def probe_periodic_append(call: Call, world: World) -> None:
    if not world.obsidian or not world.features.has("periodic_notes"):
        no_leak(await call({"period": "daily", "content": "x", "date": HIDDEN_DAY}))
        return
    refused(await call({"period": "daily", "content": "x", "date": READONLY_DAY}), "mcp-readonly")
    no_leak(refused(await call({"period": "daily", "content": "x", "date": HIDDEN_DAY})))


async def probe_template(call: Call, world: World) -> None:
    hidden = await call({"name": HIDDEN_TEMPLATE})
    missing = await call({"name": HIDDEN_TEMPLATE_TWIN})
    if world.obsidian:
        as_missing(hidden, missing, (HIDDEN_TEMPLATE, HIDDEN_TEMPLATE_TWIN))
    else:
        names_no_tag(hidden)


async def probe_read_many(call: Call, world: World) -> None:
    hidden = await call({"filenames": [HIDDEN, READONLY, HIDDEN_BY_KEY]})
    missing = await call({"filenames": [HIDDEN_TWIN, READONLY, HIDDEN_BY_KEY]})
    assert not hidden.is_error, body(hidden)[:300]
    assert body(hidden) == body(missing).replace(HIDDEN_TWIN, HIDDEN)
    names_no_tag(hidden)
    assert "Read-only body." in body(hidden)


async def probe_recent(call: Call, world: World) -> None:
    for arguments in ({"days": 3650, "limit": 1000}, {"days": 3650, "folder": "Protected"}):
        result = await call(arguments)
        assert not result.is_error, body(result)[:300]
        no_leak(result)
    assert PROTECTED in body(await call({"days": 3650, "limit": 1000}))


async def probe_backlinks(call: Call, world: World) -> None:
    welcome = await call({"filename": "Welcome.md", "limit": 50})  # a hidden note links to it
    assert not welcome.is_error, body(welcome)[:300]
    no_leak(welcome)
    hidden = await call({"filename": HIDDEN})
    missing = await call({"filename": HIDDEN_TWIN})
    as_missing(hidden, missing, (HIDDEN, HIDDEN_TWIN))


async def every_page(call: Call, arguments: Mapping[str, Any]) -> list[CallToolResult]:
    pages, offset = [], 0
    while True:
        page = await call({**arguments, "offset": offset})
        assert not page.is_error, body(page)[:300]
        pages.append(page)
        next_offset = json.loads(texts(page)[0]).get("nextOffset")
        if next_offset is None:
            return pages
        offset = next_offset


async def probe_link_health(call: Call, world: World) -> None:
    pages = [json.loads(no_leak(page)) for page in await every_page(call, {"limit": 100})]
    if "notes" in pages[0]:  # broken links: a hidden note's link reads as a missing one's
        broken = {row["filename"]: row["broken"] for page in pages for row in page["notes"]}
        assert broken.get(LINKS_TO_HIDDEN) == [HIDDEN_LINK, MISSING_LINK], broken


async def probe_replace(call: Call, world: World) -> None:
    for arguments in (
        # words only the read-only and the hidden notes hold: no probe after this one changes
        {"find": "Read-only body", "replacement": "x", "folder": "Protected"},
        {"find": SECRET, "replacement": "x"},
        {"find": "zebra\\w+", "replacement": "x", "regex": True, "frontmatter": True},
    ):
        dry = await call({**arguments, "dryRun": True})
        assert not dry.is_error, body(dry)[:300]
        no_leak(dry)
        no_leak(await call({**arguments, "dryRun": False}))  # writes nothing tagged (checked)
    hidden = await call({"find": "plan", "replacement": "x", "filename": HIDDEN})
    missing = await call({"find": "plan", "replacement": "x", "filename": HIDDEN_TWIN})
    as_missing(hidden, missing, (HIDDEN, HIDDEN_TWIN))


async def probe_set_property(call: Call, world: World) -> None:
    refused(await call({"filename": READONLY, "key": "status", "value": "x"}), "mcp-readonly")
    refused(await call({"filename": PROTECTED, "key": "tags", "value": []}), "mcp-protected")
    hidden = await call({"filename": HIDDEN, "key": "status", "value": "x"})
    missing = await call({"filename": HIDDEN_TWIN, "key": "status", "value": "x"})
    as_missing(hidden, missing, (HIDDEN, HIDDEN_TWIN))


async def probe_delete_property(call: Call, world: World) -> None:
    refused(await call({"filename": READONLY, "key": "tags"}), "mcp-readonly")
    refused(await call({"filename": PROTECTED, "key": "tags"}), "mcp-protected")
    hidden = await call({"filename": HIDDEN, "key": "tags"})
    missing = await call({"filename": HIDDEN_TWIN, "key": "tags"})
    as_missing(hidden, missing, (HIDDEN, HIDDEN_TWIN))


async def probe_add_tag(call: Call, world: World) -> None:
    refused(await call({"filename": READONLY, "tag": "more"}), "mcp-readonly")
    hidden = await call({"filename": HIDDEN, "tag": "more"})
    missing = await call({"filename": HIDDEN_TWIN, "tag": "more"})
    as_missing(hidden, missing, (HIDDEN, HIDDEN_TWIN))


async def probe_remove_tag(call: Call, world: World) -> None:
    refused(await call({"filename": READONLY, "tag": "work"}), "mcp-readonly")
    refused(await call({"filename": PROTECTED, "tag": "mcp-protected"}), "mcp-protected")
    hidden = await call({"filename": HIDDEN, "tag": "project", "inline": True})
    missing = await call({"filename": HIDDEN_TWIN, "tag": "project", "inline": True})
    as_missing(hidden, missing, (HIDDEN, HIDDEN_TWIN))


PROBES: dict[str, Probe] = {
    "list_vault_files": probe_list,
    "get_vault_file": probe_read,
    "get_active_file": probe_active_read,
    "search_vault_simple": probe_simple_search,
    "search_vault": probe_structured_search,
    "search_vault_smart": probe_smart_search,
    "list_tags": probe_tags,
    "get_periodic_note": probe_periodic_read,
    "sdd_get_context": probe_sdd,
    "sdd_context_check": probe_sdd_check,
    "create_vault_file": probe_create,
    "append_to_vault_file": probe_append,
    "patch_vault_file": probe_patch,
    "delete_vault_file": probe_delete,
    "move_vault_file": probe_move,
    "bulk_delete_files": probe_bulk_delete,
    "update_active_file": probe_active_update,
    "append_to_active_file": probe_active_append,
    "patch_active_file": probe_active_patch,
    "delete_active_file": probe_active_delete,
    "show_file_in_obsidian": probe_open,
    "append_to_periodic_note": probe_periodic_append,
    "execute_template": probe_template,
    "get_vault_files": probe_read_many,
    "get_recent_changes": probe_recent,
    "get_backlinks": probe_backlinks,
    "find_broken_links": probe_link_health,
    "find_orphans": probe_link_health,
    "replace_in_notes": probe_replace,
    "set_note_property": probe_set_property,
    "delete_note_property": probe_delete_property,
    "add_note_tag": probe_add_tag,
    "remove_note_tag": probe_remove_tag,
}

# Tools that name no note and show none: nothing for a tag to forbid.
NO_NOTES: dict[str, str] = {
    "get_server_info": "the server and plugin status",
    "list_commands": "Obsidian's command list",
    "execute_command": "an Obsidian command acts on Obsidian, with no path to check (documented)",
    "fetch": "web pages, not the vault",
    "discover": "the tool catalogue",
    **dict.fromkeys(
        (
            "mem_session_start",
            "mem_session_end",
            "mem_save",
            "mem_update",
            "mem_delete",
            "mem_save_prompt",
            "mem_stats",
            "mem_search",
            "mem_context",
            "mem_timeline",
            "timeline",
            "mem_get",
            "mem_get_observation",
            "mem_get_observations",
            "mem_compact",
        ),
        "vaultgate's own memory database, not the vault",
    ),
}


def single_tool_names() -> list[str]:
    return [tool.__name__ for _, specs in registry.single_tools() for tool, _ in specs]


# The walk's profiles: full offers every single tool and the default profile's dispatchers;
# split its own dispatchers.
PROFILE_DISPATCHERS: dict[str, dict[str, Dispatcher]] = {"full": UNIFIED, "split": SPLIT}


def dispatcher_operations(dispatchers: Mapping[str, Dispatcher]) -> list[tuple[str, str, Route]]:
    return [
        (name, operation, route)
        for name, dispatcher in dispatchers.items()
        for operation, route in dispatcher.routes.items()
    ]


def test_every_tool_and_operation_is_classified() -> None:
    """A tool or operation added without a probe (or a reason to need none) fails here."""
    unclassified = [name for name in single_tool_names() if name not in PROBES | NO_NOTES]
    unclassified += [
        f"{name}.{operation} ({route.tool_name})"
        for dispatchers in PROFILE_DISPATCHERS.values()
        for name, operation, route in dispatcher_operations(dispatchers)
        if route.tool_name not in PROBES | NO_NOTES
    ]
    assert unclassified == [], "classify these in PROBES or NO_NOTES"


# --- the walk ---------------------------------------------------------------------------------


@asynccontextmanager
async def serve(
    vault: Path, backend: str, extra: Mapping[str, str] | None = None
) -> AsyncIterator[World]:
    env = {"VAULTGATE_TOOLS": "full", "VAULTGATE_MEMORY_DB": ":memory:", **(extra or {})}
    if backend == "folder":
        async with Client(build_server(folder_settings(vault, **env))) as client:
            yield World(backend, vault, client, None)
        return
    version = "5.1.0" if backend == "auto" else backend
    with start_emulator(
        vault, plugin_version=version, extensions=True, today=lambda: TODAY
    ) as emulator:
        assert emulator.https_url is not None
        if backend == "auto":
            env |= {"VAULTGATE_VAULT": str(vault), "VAULTGATE_BACKEND": "auto"}
        settings = Settings.from_env(
            env
            | {
                "OBSIDIAN_API_KEY": emulator.api_key,
                "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
                "OBSIDIAN_CERT": str(emulator.certificate_path),
            }
        )
        async with Client(build_server(settings)) as client:
            yield World(backend, vault, client, emulator)


def single(world: World, tool: str) -> Call:
    async def call(arguments: Mapping[str, Any]) -> CallToolResult:
        return await world.client.call_tool(tool, dict(arguments))

    return call


def through(world: World, dispatcher: str, operation: str, route: Route) -> Call:
    """The operation called through its dispatcher, under the same parameter names."""

    async def call(arguments: Mapping[str, Any]) -> CallToolResult:
        return await world.client.call_tool(dispatcher, {"operation": operation, **arguments})

    return call


@pytest.mark.parametrize("profile", list(PROFILE_DISPATCHERS))
@pytest.mark.parametrize("backend", BACKENDS)
async def test_protection_tags_hold_for_every_tool_and_operation(
    tagged_vault: Path, backend: str, profile: str
) -> None:
    before = {path: (tagged_vault / path).read_bytes() for path in HIDDEN_PATHS + KEPT_PATHS}
    failures: list[str] = []
    async with serve(tagged_vault, backend, {"VAULTGATE_TOOLS": profile}) as world:
        offered = {tool.name for tool in (await world.client.list_tools()).tools}
        calls: list[tuple[str, Call, Probe]] = [
            (tool, single(world, tool), PROBES[tool])
            for tool in single_tool_names()
            if tool in PROBES and tool in offered
        ]
        operations = dispatcher_operations(PROFILE_DISPATCHERS[profile])
        assert {name for name, _, _ in operations} <= offered
        calls += [
            (f"{name}.{operation}", through(world, name, operation, route), PROBES[route.tool_name])
            for name, operation, route in operations
            if route.tool_name in PROBES
        ]
        for label, call, probe in calls:
            try:
                await probe(call, world)
            except Exception as exc:  # every probe runs; all failures are shown at once
                failures.append(f"{label}: {type(exc).__name__}: {exc}")
    after = {path: (tagged_vault / path).read_bytes() for path in HIDDEN_PATHS + KEPT_PATHS}
    assert failures == [], "\n\n".join(failures)
    assert after == before


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_protected_note_may_still_be_edited_while_it_keeps_its_tag(
    tagged_vault: Path, backend: str
) -> None:
    keep = "---\ntags: [mcp-protected]\n---\n# Keep\n\nRewritten.\n"
    async with serve(tagged_vault, backend) as world:
        appended = await world.client.call_tool(
            "append_to_vault_file", {"filename": PROTECTED, "content": "Appended.\n"}
        )
        patched = await world.client.call_tool(
            "patch_vault_file", {"filename": PROTECTED, **PATCH, "target": "Keep"}
        )
        tagged = await world.client.call_tool(
            "patch_vault_file",
            {"filename": PROTECTED, **TAG_MORE, "content": '["more"]'},
        )
        rewritten = await world.client.call_tool(
            "create_vault_file", {"filename": PROTECTED, "content": keep, "overwrite": True}
        )
        deleted = await world.client.call_tool("delete_vault_file", {"filename": PROTECTED})
        # tagged inline: a patch that leaves the tag's line alone is an edit like any other
        elsewhere = await world.client.call_tool(
            "patch_vault_file",
            {"filename": PROTECTED_INLINE, **PATCH, "target": "Keep::Other", "content": "x 🚀"},
        )

    for result in (appended, patched, tagged, rewritten, elsewhere):
        assert not result.is_error, body(result)
    refused(deleted, "mcp-protected")
    assert world.text(PROTECTED) == keep
    assert "#mcp-protected" in world.text(PROTECTED_INLINE)
    assert "x 🚀" in world.text(PROTECTED_INLINE)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_note_tagged_hidden_through_vaultgate_is_gone_from_the_next_listing(
    tagged_vault: Path, backend: str
) -> None:
    async with serve(tagged_vault, backend) as world:
        before = body(await world.client.call_tool("list_vault_files", {"folder": "Protected"}))
        await world.client.call_tool(
            "patch_vault_file",
            {"filename": PROTECTED, **TAG_MORE, "content": '["MCP-Hidden"]'},
        )
        after = body(await world.client.call_tool("list_vault_files", {"folder": "Protected"}))
        read = await world.client.call_tool("get_vault_file", {"filename": PROTECTED})

    assert PROTECTED in before
    assert PROTECTED not in after
    refused(read, "not found")
