"""The disk cannot route around a rule: links, loops, letter case, Unicode forms, long names.

One answer to "where is this file really": a path is served only when its real location (links
followed on disk) lies inside the vault, and neither the path as given nor that location is
hidden, denied or outside the allow list. An awkward vault is built next to a folder outside
it: a note and a folder linked from outside, a link to a hidden folder outside (``~/.ssh``
alike), links into ``.obsidian/`` and ``.trash/``, an alias of a denied note, a folder that
links to the vault itself, two notes that link to each other, notes differing only in case
and a folder stored in NFD.

The walk takes every single tool and every dispatcher operation (classified as the
protection-tag walk classifies them, so a new tool without a probe fails here too) and pokes
each with the links and case variants that concern it: nothing behind a refused link shows
in any answer, no answer is an internal error, and at the end every file inside and outside
the vault is byte for byte what it was. Focused tests follow: walks that do not loop, a file
loop, case and NFD variants of a deny entry, names the disk cannot hold, and
VAULTGATE_FOLLOW_LINKS=all.

The walk's vault links one folder to the vault itself (``loop -> .``), which a walk that
follows links repeats 40 times (the kernel's limit on links in one path). Two such links
make that 2**40 walks: the test that adds the second runs each server in a child process,
so that a walk which never ends fails that test instead of hanging the run.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.types import CallToolResult
from tests.tools.conftest import FIXTURE_VAULT, texts
from tests.tools.test_protection_tags import (
    NO_NOTES,
    PROFILE_DISPATCHERS,
    Call,
    Probe,
    World,
    body,
    dispatcher_operations,
    serve,
    single,
    single_tool_names,
    through,
)

pytestmark = pytest.mark.anyio

BACKENDS = ["3.6.2", "4.1.7", "5.1.0", "folder", "auto"]
VERSIONS = ("3.6.2", "4.1.7", "5.1.0")

# the words only files behind a refused link hold (each is also an inline tag there)
SECRETS = ("outsidezebra", "outsidedirzebra", "sshzebra", "keyzebra", "trashzebra", "privatezebra")
# the names of the files behind those links, never named by a probe
TARGET_NAMES = ("secret 🙈 #1", "inner 日本", "old note.md", "id.md", "apiKey")
# the links' own names: absent from every listing, search and link list
LINK_NAMES = (
    "flink.md",
    "key.md",
    "trashdir",
    "alias.md",
    "loop/",
    "loop2",
    "Notes/ssh",
    "outside-change",
    "Prompts/outside",
    "Templates/linked",
    "Daily/2026-11-24",
)
LEAKS = SECRETS + TARGET_NAMES + LINK_NAMES

OUTSIDE_NOTE = "secret 🙈 #1.md"
OUTSIDE_DAY = "2026-11-24"  # Daily/2026-11-24.md links to the outside note
KEY_FILE = ".obsidian/plugins/obsidian-local-rest-api/data.json"

# Paths that reach a file through a link the rules refuse, and why.
OUTSIDE = ("Notes/flink.md", "ext/inner 日本.md", "Templates/linked.md", f"Daily/{OUTSIDE_DAY}.md")
HIDDEN_TARGETS = ("Notes/ssh/id.md", "Notes/key.md", "Notes/trashdir/old note.md")
DENIED_TARGETS = ("Public/alias.md", "loop/Private/secret.md")
CASE_VARIANTS = ("private/secret.md", "PRIVATE/secret.md", "pRiVaTe/secret.md")
REFUSED = OUTSIDE + HIDDEN_TARGETS + DENIED_TARGETS + CASE_VARIANTS
FILE_LOOP = "Notes/a.md"  # Notes/a.md -> b.md -> a.md
# where a new file would land outside, in a hidden folder, or in a denied one
REFUSED_NEW = (
    "ext/planted.md",
    "Notes/ssh/planted.md",
    "Notes/trashdir/planted.md",
    "loop/Private/planted.md",
    "private/planted.md",
    "PRIVATE/planted.md",
)
PLAIN = "Notes/plain.md"  # a note every rule lets through


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def link(path: Path, target: str | Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


def outside_folder(tmp_path: Path) -> Path:
    elsewhere = tmp_path / "elsewhere"
    write(
        elsewhere / OUTSIDE_NOTE,
        "---\ntags: [outsidezebra, mcp-tools-prompt]\n---\n# Zebra\n\n"
        "The outsidezebra plan, see [[Welcome]] and [[nowhere outsidezebra]] #outsidezebra\n",
    )
    write(
        elsewhere / "dir" / "inner 日本.md",
        "# Zebra\n\noutsidedirzebra [[Welcome]] #outsidedirzebra\n",
    )
    write(elsewhere / "dir" / "proposal.md", "# Proposal\n\noutsidedirzebra change\n")
    write(elsewhere / ".ssh" / "id.md", "# Zebra\n\nsshzebra [[Welcome]] #sshzebra\n")
    return elsewhere


def build_vault(tmp_path: Path, *, loops: bool = True) -> Path:
    """The fixture vault with every awkward thing the disk can hold, beside ``elsewhere/``."""
    elsewhere = outside_folder(tmp_path)
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    write(vault / KEY_FILE, '{"apiKey": "keyzebra0123456789"}\n')
    write(vault / ".trash" / "old note.md", "# Zebra\n\ntrashzebra [[Welcome]] #trashzebra\n")
    write(vault / "Private" / "secret.md", "# Zebra\n\nprivatezebra [[Welcome]] #privatezebra\n")
    write(vault / "Public" / "normal.md", "# Public\n\nA public note, see [[Welcome]].\n")
    write(vault / PLAIN, "# Plain\n\nA plain note.\n")
    write(vault / "Notes" / "Case.md", "upper case text\n")
    write(vault / "Notes" / "case.md", "lower case text\n")
    write(vault / "Notes" / "deeper" / "real.md", "a deeper note\n")
    write(vault / unicodedata.normalize("NFD", "Café") / "menu.md", "the menu\n")
    write(vault / "Prompts" / "Hello.md", "#mcp-tools-prompt\nHello {{who}}\n")
    link(vault / "Notes" / "flink.md", elsewhere / OUTSIDE_NOTE)
    link(vault / "ext", elsewhere / "dir")
    link(vault / "Notes" / "ssh", elsewhere / ".ssh")
    link(vault / "Notes" / "key.md", "../.obsidian/plugins/obsidian-local-rest-api/data.json")
    link(vault / "Notes" / "trashdir", "../.trash")
    link(vault / "Public" / "alias.md", "../Private/secret.md")
    link(vault / "Notes" / "a.md", "b.md")
    link(vault / "Notes" / "b.md", "a.md")
    link(vault / "Templates" / "linked.md", elsewhere / OUTSIDE_NOTE)
    link(vault / "Daily" / f"{OUTSIDE_DAY}.md", elsewhere / OUTSIDE_NOTE)
    link(vault / "Prompts" / "outside.md", elsewhere / OUTSIDE_NOTE)
    link(vault / "sdd" / "vaultgate" / "changes" / "outside-change", elsewhere / "dir")
    if loops:
        link(vault / "loop", ".")
    return vault


@pytest.fixture
def awkward_vault(tmp_path: Path) -> Path:
    return build_vault(tmp_path)


def disk_state(root: Path) -> dict[str, str]:
    """Every file and link below ``root``, following nothing: a link by its target, a file by
    the digest of its bytes (the folder backend's cache aside)."""
    state: dict[str, str] = {}
    for folder, folders, files in os.walk(root):
        here = Path(folder)
        if here == root:
            folders[:] = [name for name in folders if name != "user-cache"]
        for name in folders + files:
            path = here / name
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                state[key] = f"-> {os.readlink(path)}"
            elif path.is_file():
                state[key] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                state[key] = "folder"
    return state


def changes(before: Mapping[str, str], after: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """What differs between two disk states: each path with its old and new state."""
    return {
        path: (before.get(path, "absent"), after.get(path, "absent"))
        for path in sorted(before.keys() | after.keys())
        if before.get(path) != after.get(path)
    }


@asynccontextmanager
async def serve_disk(vault: Path, backend: str, **env: str) -> AsyncIterator[World]:
    """A server for ``backend`` that knows the vault's folder (the plugin versions too), with
    VAULTGATE_DENY=Private unless ``env`` says otherwise."""
    settings = {"VAULTGATE_DENY": "Private", **env}
    if backend in VERSIONS:
        settings |= {"VAULTGATE_VAULT": str(vault), "VAULTGATE_BACKEND": "obsidian"}
    async with serve(vault, backend, settings) as world:
        yield world


# --- what an answer may show ------------------------------------------------------------------


def no_leak(result: CallToolResult | str, *named: str) -> str:
    """Nothing behind a refused link shows; a word the model itself wrote in a path it named
    (``named``) may be repeated."""
    message = body(result)
    for word in LEAKS:
        if not any(word in f"{path}/" for path in named):
            assert word not in message, f"{word!r} leaked: {message[:400]!r}"
    return message


def clear(result: CallToolResult) -> str:
    """An answer that is not vaultgate's internal error."""
    message = body(result)
    assert "internal error" not in message, message[:400]
    return message


def turned_away(result: CallToolResult, path: str) -> str:
    """The refusal of ``path``, a path that reaches a file through a refused link (or a case
    variant of a denied one): an error that shows nothing behind it."""
    assert result.is_error, f"{path!r} served: {body(result)[:300]}"
    clear(result)
    return no_leak(result, path)


def same_refusal(
    variant: CallToolResult, canonical: CallToolResult, names: tuple[str, str]
) -> None:
    """``variant`` is refused exactly as ``canonical`` is, names swapped."""
    assert canonical.is_error, body(canonical)[:300]
    assert variant.is_error, f"{names[0]!r} served: {body(variant)[:300]}"
    shown, original = names
    expected = body(canonical).replace(original, shown)
    assert body(variant) == expected


# --- the probes: one per single tool ---------------------------------------------------------


async def probe_list(call: Call, world: World) -> None:
    for arguments in (
        {"recursive": True, "limit": 1000, "layout": "flat"},
        {"recursive": True, "layout": "tree", "limit": 1000},
        {"recursive": True, "pattern": "**/*.md", "limit": 1000},
        {"directory": ""},
        {"directory": "Notes"},
        {"directory": "Public"},
    ):
        result = await call(arguments)
        assert not result.is_error, body(result)[:300]
        no_leak(result)
    listed = body(await call({"recursive": True, "limit": 1000, "layout": "flat"}))
    for path in (PLAIN, "Notes/Case.md", "Notes/case.md", "Public/normal.md"):
        assert path in listed, path
    for folder in ("ext", "Notes/ssh", "Notes/trashdir", "loop/Private", "private", "PRIVATE"):
        for recursive in (False, True):
            no_leak(await call({"directory": folder, "recursive": recursive}), folder)


async def probe_read(call: Call, world: World) -> None:
    for note_format in ("markdown", "json", "map"):
        for path in REFUSED:
            turned_away(await call({"filename": path, "format": note_format}), path)
        assert (await call({"filename": FILE_LOOP, "format": note_format})).is_error
        clear(await call({"filename": FILE_LOOP, "format": note_format}))
    for path, text in (("Notes/Case.md", "upper case text"), ("Notes/case.md", "lower case text")):
        twin = await call({"filename": path})
        assert not twin.is_error, body(twin)[:300]
        if not body(twin).startswith("{"):  # the map operation answers the note's outline
            assert body(twin) == f"{text}\n"
    # Welcome.md is linked from every file behind a refused link: its backlinks name none
    welcome = await call({"filename": "Welcome.md", "format": "json", "maxLength": 100_000})
    assert not welcome.is_error, body(welcome)[:300]
    no_leak(welcome)


async def probe_active_read(call: Call, world: World) -> None:
    if not world.obsidian:
        no_leak(await call({}))
        return
    world.open(None)
    nothing_open = await call({})
    # a link vaultgate does not follow is as absent as a hidden note; a link to a denied note
    # is refused as that note is, naming no path
    for path in (*OUTSIDE, *HIDDEN_TARGETS, FILE_LOOP):
        world.open(path)
        for note_format in ("markdown", "json", "map"):
            result = await call({"format": note_format})
            assert body(result) == body(nothing_open), f"{path}: {body(result)[:300]}"
    for path in DENIED_TARGETS:
        world.open(path)
        for note_format in ("markdown", "json", "map"):
            refusal = await call({"format": note_format})
            assert refusal.is_error, f"{path}: {body(refusal)[:300]}"
            no_leak(refusal)
    world.open(None)


async def probe_simple_search(call: Call, world: World) -> None:
    for arguments in (
        {"query": "zebra", "limit": 100},
        {"query": "Welcome", "limit": 100},
        {"query": "apiKey"},
        {"query": "case text"},
    ):
        result = await call(arguments)
        assert not result.is_error, body(result)[:300]
        no_leak(result)
    for folder in ("ext", "Notes/trashdir", "Notes/ssh", "loop", "private"):
        no_leak(await call({"query": "zebra", "directory": folder}), folder)
    found = json.loads(body(await call({"query": "case text", "limit": 100})))
    # both twins are found (3.x also matches the words apart, in other notes)
    assert {hit["filename"] for hit in found["results"]} >= {"Notes/Case.md", "Notes/case.md"}


async def probe_structured_search(call: Call, world: World) -> None:
    queries: list[Any] = [
        {"glob": ["**", {"var": "path"}]},
        {"glob": ["**/*.md", {"var": "path"}]},
        {"in": ["zebra", {"var": "content"}]},
        {"in": ["Notes/", {"var": "path"}]},
        {"var": "frontmatter"},
        {"var": "tags"},
    ]
    if world.features.has("links"):
        queries += [{"var": "backlinks"}, {"var": "links"}]
    for query in queries:
        result = await call({"query": query, "limit": 200})
        assert not result.is_error, body(result)[:300]
        no_leak(result)


async def probe_smart_search(call: Call, world: World) -> None:
    no_leak(await call({"query": "zebra"}))


async def probe_tags(call: Call, world: World) -> None:
    result = await call({"limit": 1000})
    no_leak(result)
    assert not result.is_error or not world.features.has("tags"), body(result)[:300]


async def probe_periodic_read(call: Call, world: World) -> None:
    result = await call({"period": "daily", "date": OUTSIDE_DAY})
    no_leak(result, OUTSIDE_DAY)
    if world.obsidian and world.features.has("periodic_notes"):
        turned_away(result, OUTSIDE_DAY)


async def probe_sdd(call: Call, world: World) -> None:
    for arguments in ({}, {"project": "vaultgate", "detail_level": "standard"}):
        result = await call(arguments)
        assert not result.is_error, body(result)[:300]
        no_leak(result)
    no_leak(await call({"project": "vaultgate", "change": "outside-change"}), "outside-change")


async def probe_sdd_check(call: Call, world: World) -> None:
    result = await call({"change_description": "an outside change proposal zebra"})
    assert not result.is_error, body(result)[:300]
    no_leak(result)


async def probe_create(call: Call, world: World) -> None:
    for path in (*REFUSED, *REFUSED_NEW, FILE_LOOP):
        result = await call({"filename": path, "content": "planted\n", "overwrite": True})
        turned_away(result, path)


async def probe_append(call: Call, world: World) -> None:
    for path in (*REFUSED, FILE_LOOP):
        turned_away(await call({"filename": path, "content": "planted\n"}), path)


# every note behind a refused link has this heading: a patch that got through would succeed
PATCH = {"patchOperation": "append", "targetType": "heading", "target": "Zebra", "content": "x"}


async def probe_patch(call: Call, world: World) -> None:
    for path in (*REFUSED, FILE_LOOP):
        turned_away(await call({"filename": path, **PATCH}), path)


async def probe_delete(call: Call, world: World) -> None:
    for path in (*REFUSED, FILE_LOOP, "ext/", "Notes/trashdir/", "loop/"):
        for permanent in (False, True):
            turned_away(await call({"filename": path, "permanent": permanent}), path)


async def probe_move(call: Call, world: World) -> None:
    report = await call({"source": "Welcome.md", "destination": "Archive/", "dryRun": True})
    no_leak(report)
    if world.obsidian and world.backend != "auto" and world.features.has("move"):
        # Obsidian's rename would rewrite the backlinks behind refused links: counted only
        assert report.is_error, body(report)[:300]
        assert "notes vaultgate may not show" in body(report)
    else:
        assert not report.is_error, body(report)[:300]
    for dry_run in (True, False):
        for path in (*REFUSED, FILE_LOOP):
            moved = await call({"source": path, "destination": "Moved/x.md", "dryRun": dry_run})
            turned_away(moved, path)
        for onto in (*REFUSED, *REFUSED_NEW):
            moved = await call(
                {"source": PLAIN, "destination": onto, "overwrite": True, "dryRun": dry_run}
            )
            turned_away(moved, onto)


async def probe_bulk_delete(call: Call, world: World) -> None:
    for selection in (
        {"pattern": "**/*.md", "directory": "Notes"},
        {"pattern": "**/*.md", "directory": "Public"},
        {"pattern": "**/*zebra*"},
        {"pattern": "**/{flink,key,alias,linked}.md"},
    ):
        dry = await call({**selection, "dryRun": True, "limit": 200})
        assert not dry.is_error, body(dry)[:300]
        no_leak(dry)
    # selections that hold nothing the rules let through: a real run after a dry run deletes
    # nothing (the disk check at the end says so)
    for selection in (
        {"pattern": "**/{flink,key,alias,linked,a,b}.md"},
        {"pattern": "**", "directory": "ext"},
        {"pattern": "**", "directory": "Notes/trashdir"},
        {"pattern": "**", "directory": "Notes/ssh"},
        {"pattern": "**", "directory": "loop"},
        {"pattern": "private/**"},
        {"pattern": "**", "directory": "PRIVATE"},
    ):
        for dry_run in (True, False):
            run = await call({**selection, "dryRun": dry_run, "confirmAll": True})
            clear(run)
            no_leak(run, selection.get("directory", ""))


async def probe_active_writes(call: Call, world: World, arguments: Mapping[str, Any]) -> None:
    if not world.obsidian:
        assert (await call(arguments)).is_error
        return
    for path in (*OUTSIDE, *HIDDEN_TARGETS, *DENIED_TARGETS, FILE_LOOP):
        world.open(path)
        result = await call(arguments)
        assert result.is_error, f"{path}: {body(result)[:300]}"
        clear(result)
        no_leak(result)
    world.open(None)


async def probe_active_update(call: Call, world: World) -> None:
    await probe_active_writes(call, world, {"content": "planted"})


async def probe_active_append(call: Call, world: World) -> None:
    await probe_active_writes(call, world, {"content": "planted"})


async def probe_active_patch(call: Call, world: World) -> None:
    await probe_active_writes(call, world, PATCH)


async def probe_active_delete(call: Call, world: World) -> None:
    await probe_active_writes(call, world, {})


async def probe_open(call: Call, world: World) -> None:
    # Opening shows a note to the user and may create a missing one: never through a link
    # that leaves the vault or reaches a hidden or denied file (the disk check says so).
    for path in (*REFUSED, *REFUSED_NEW):
        clear(result := await call({"filename": path}))
        no_leak(result, path)
    for path in (*DENIED_TARGETS, *CASE_VARIANTS, "private/planted.md", "PRIVATE/planted.md"):
        assert (await call({"filename": path})).is_error, path


async def probe_periodic_append(call: Call, world: World) -> None:
    result = await call({"period": "daily", "content": "planted", "date": OUTSIDE_DAY})
    assert result.is_error, body(result)[:300]
    clear(result)
    no_leak(result, OUTSIDE_DAY)


async def probe_template(call: Call, world: World) -> None:
    turned_away(await call({"name": "Templates/linked.md"}), "Templates/linked.md")
    template = "Templates/Meeting template.md"
    for target in (*REFUSED_NEW, *OUTSIDE, *DENIED_TARGETS):
        result = await call({"name": template, "createFile": True, "targetPath": target})
        turned_away(result, target)


async def probe_read_many(call: Call, world: World) -> None:
    result = await call({"filenames": [*REFUSED, FILE_LOOP, "Welcome.md"]})
    assert not result.is_error, body(result)[:300]
    clear(result)
    no_leak(result, *REFUSED)
    notes = {note["filename"]: note for note in json.loads(texts(result)[0])["notes"]}
    assert "# Welcome" in notes["Welcome.md"]["content"]
    for path in (*REFUSED, FILE_LOOP):
        assert "content" not in notes[path], path


async def probe_recent(call: Call, world: World) -> None:
    for arguments in ({"days": 3650, "limit": 1000}, {"days": 3650, "directory": "Notes"}):
        result = await call(arguments)
        assert not result.is_error, body(result)[:300]
        no_leak(result)
    for folder in ("ext", "Notes/trashdir", "Notes/ssh", "loop", "private"):
        no_leak(await call({"days": 3650, "directory": folder}), folder)


async def probe_backlinks(call: Call, world: World) -> None:
    welcome = await call({"filename": "Welcome.md", "limit": 50})
    assert not welcome.is_error, body(welcome)[:300]
    no_leak(welcome)
    for path in (*REFUSED, FILE_LOOP):
        result = await call({"filename": path})
        assert result.is_error, f"{path}: {body(result)[:300]}"
        clear(result)
        no_leak(result, path)


async def probe_link_health(call: Call, world: World) -> None:
    for arguments in ({"limit": 500}, {"directory": "Notes", "limit": 500}):
        result = await call(arguments)
        assert not result.is_error, body(result)[:300]
        no_leak(result)
    for folder in ("ext", "Notes/trashdir", "loop", "private"):
        no_leak(await call({"directory": folder, "limit": 500}), folder)


async def probe_replace(call: Call, world: World) -> None:
    for arguments in (
        {"find": "zebra", "replacement": "x"},
        {"find": "\\w*zebra\\w*", "replacement": "x", "regex": True, "frontmatter": True},
        {"find": "zebra", "replacement": "x", "directory": "Notes"},
        {"find": "zebra", "replacement": "x", "pattern": "**/*.md"},
    ):
        dry = await call({**arguments, "dryRun": True, "limit": 100})
        assert not dry.is_error, body(dry)[:300]
        no_leak(dry)
        no_leak(await call({**arguments, "dryRun": False}))
    for folder in ("ext", "Notes/trashdir", "Notes/ssh", "loop", "private"):
        no_leak(await call({"find": "zebra", "replacement": "x", "directory": folder}), folder)
    for path in (*REFUSED, FILE_LOOP):
        result = await call({"find": "zebra", "replacement": "x", "filename": path})
        turned_away(result, path)


async def probe_set_property(call: Call, world: World) -> None:
    for path in (*REFUSED, FILE_LOOP):
        turned_away(await call({"filename": path, "key": "status", "value": "x"}), path)


async def probe_delete_property(call: Call, world: World) -> None:
    for path in (*REFUSED, FILE_LOOP):
        turned_away(await call({"filename": path, "key": "tags"}), path)


async def probe_add_tag(call: Call, world: World) -> None:
    for path in (*REFUSED, FILE_LOOP):
        turned_away(await call({"filename": path, "tag": "planted"}), path)


async def probe_remove_tag(call: Call, world: World) -> None:
    for path in (*REFUSED, FILE_LOOP):
        turned_away(await call({"filename": path, "tag": "outsidezebra", "inline": True}), path)


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


def test_every_tool_and_operation_has_a_probe_for_the_disk_rules() -> None:
    """A tool or operation added without a probe (or a reason to need none) fails here."""
    unclassified = [name for name in single_tool_names() if name not in PROBES | NO_NOTES]
    unclassified += [
        f"{name}.{operation} ({route.tool_name})"
        for dispatchers in PROFILE_DISPATCHERS.values()
        for name, operation, route in dispatcher_operations(dispatchers)
        if route.tool_name not in PROBES | NO_NOTES
    ]
    assert unclassified == [], "classify these in PROBES here or NO_NOTES"


async def prompts_show_nothing_behind_a_link(world: World) -> None:
    listed = await world.client.list_prompts()
    names = [prompt.name for prompt in listed.prompts]
    assert "Hello" in names
    assert "outside" not in names
    no_leak(json.dumps([prompt.model_dump(mode="json") for prompt in listed.prompts]))
    for prompt in listed.prompts:
        arguments = {argument.name: "x" for argument in prompt.arguments or []}
        no_leak(str(await world.client.get_prompt(prompt.name, arguments)))


def first_line(exc: Exception) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:500]}"


@pytest.mark.parametrize("profile", list(PROFILE_DISPATCHERS))
@pytest.mark.parametrize("backend", BACKENDS)
async def test_no_tool_or_operation_reaches_through_a_link_a_loop_or_a_case_variant(
    awkward_vault: Path, backend: str, profile: str
) -> None:
    root = awkward_vault.parent
    before = disk_state(root)
    failures: list[str] = []
    async with serve_disk(awkward_vault, backend, VAULTGATE_TOOLS=profile) as world:
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
                failures.append(f"{label}: {first_line(exc)}")
        try:
            await prompts_show_nothing_behind_a_link(world)
        except Exception as exc:
            failures.append(f"prompts: {first_line(exc)}")
    if changed := changes(before, disk_state(root)):
        failures.append(f"the disk changed: {changed}")
    assert failures == [], "\n\n".join(failures)


# --- walks that do not loop -------------------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]
WALK_SECONDS = 20.0  # a walk that follows a link back into the vault never ends: it is cut here


async def every_listed(world: World, arguments: Mapping[str, Any]) -> list[str]:
    """Every path a recursive listing shows, page after page, in either layout."""
    shown: list[str] = []
    offset: int | None = 0
    while offset is not None:
        result = await world.client.call_tool(
            "list_vault_files", {"recursive": True, "limit": 1000, **arguments, "offset": offset}
        )
        assert not result.is_error, body(result)[:300]
        page = json.loads(texts(result)[0])
        if "folders" in page:
            shown += [folder + name for folder, names in page["folders"].items() for name in names]
        else:
            shown += page["files"]
        offset = page["pagination"].get("nextOffset")
    return shown


async def what_walks_show(vault: str, backend: str) -> dict[str, Any]:
    """What every walk of the vault shows, on ``backend``: run in a child process (a walk that
    loops would hang this one)."""
    async with serve_disk(Path(vault), backend) as world:
        searched = await world.client.call_tool("search_vault_simple", {"query": "a deeper note"})
        structured = await world.client.call_tool(
            "search_vault", {"query": {"glob": ["**", {"var": "path"}]}, "limit": 200}
        )
        return {
            "flat": sorted(await every_listed(world, {})),
            "tree": sorted(await every_listed(world, {"layout": "tree"})),
            "search": [hit["filename"] for hit in json.loads(body(searched))["results"]],
            "structured": sorted(
                row["filename"] for row in json.loads(body(structured))["results"]
            ),
        }


def in_child(function: str, *arguments: str) -> Any:
    """``function`` of this module run in a fresh interpreter; a failure if it runs longer
    than ``WALK_SECONDS``."""
    code = (
        "import anyio, json, sys\n"
        "from tests.tools import test_disk_rules as rules\n"
        f"print(json.dumps(anyio.run(rules.{function}, *sys.argv[1:])))\n"
    )
    try:
        run = subprocess.run(
            [sys.executable, "-c", code, *arguments],
            capture_output=True,
            text=True,
            timeout=WALK_SECONDS,
            cwd=REPO,
            env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)},
        )
    except subprocess.TimeoutExpired:
        run = None
    if run is None:
        pytest.fail(f"{function}{arguments} did not end within {WALK_SECONDS:.0f} s: a walk loops")
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_folder_links_back_into_the_vault_do_not_multiply_what_a_walk_shows(
    tmp_path: Path, backend: str
) -> None:
    plain = build_vault(tmp_path / "plain", loops=False)
    looped = build_vault(tmp_path / "looped", loops=False)
    link(looped / "loop", ".")
    link(looped / "Notes" / "deeper" / "loop2", "../..")

    expected = in_child("what_walks_show", str(plain), backend)
    shown = in_child("what_walks_show", str(looped), backend)

    assert "Notes/deeper/real.md" in expected["flat"]
    assert expected["search"] == ["Notes/deeper/real.md"]
    assert shown == expected


@pytest.mark.parametrize("backend", BACKENDS)
async def test_two_notes_that_link_to_each_other_answer_a_clear_error(
    awkward_vault: Path, backend: str
) -> None:
    async with serve_disk(awkward_vault, backend) as world:
        answers = [
            await world.client.call_tool(tool, arguments)
            for path in ("Notes/a.md", "Notes/b.md")
            for tool, arguments in (
                ("get_vault_file", {"filename": path}),
                ("get_vault_file", {"filename": path, "format": "json"}),
                ("append_to_vault_file", {"filename": path, "content": "x"}),
                ("get_vault_files", {"filenames": [path]}),
            )
        ]
        listed = await world.client.call_tool("list_vault_files", {"directory": "Notes"})

    assert not listed.is_error, body(listed)[:300]
    for answer in answers:
        clear(answer)
        assert answer.is_error or '"error"' in body(answer), body(answer)[:300]


# --- letter case and Unicode forms ------------------------------------------------------------


FOLDER_CASES = ("private", "PRIVATE", "pRiVaTe")  # VAULTGATE_DENY=Private; the disk has Private/


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_deny_entry_holds_for_the_path_in_every_letter_case(
    awkward_vault: Path, backend: str
) -> None:
    for folder in FOLDER_CASES:
        write(awkward_vault / "Public" / f"to {folder}.md", "# Moving\n")
    root = awkward_vault.parent
    before = disk_state(root)
    wrong: list[str] = []

    async def compare(tool: str, arguments: Mapping[str, Any], names: tuple[str, str]) -> None:
        variant, canonical = names
        given = {
            key: value.replace(canonical, variant) if isinstance(value, str) else value
            for key, value in arguments.items()
        }
        try:
            same_refusal(
                await world.client.call_tool(tool, given),
                await world.client.call_tool(tool, dict(arguments)),
                names,
            )
        except AssertionError as exc:
            wrong.append(f"{tool}({variant}): {str(exc).splitlines()[0][:300]}")

    async with serve_disk(awkward_vault, backend) as world:
        for folder in FOLDER_CASES:
            secret = (f"{folder}/secret.md", "Private/secret.md")
            planted = (f"{folder}/planted.md", "Private/planted.md")
            moved = (f"{folder}/moved.md", "Private/moved.md")
            await compare("get_vault_file", {"filename": secret[1]}, secret)
            await compare("get_vault_file", {"filename": secret[1], "format": "json"}, secret)
            await compare("create_vault_file", {"filename": planted[1], "content": "x"}, planted)
            await compare("append_to_vault_file", {"filename": secret[1], "content": "x"}, secret)
            await compare("delete_vault_file", {"filename": secret[1]}, secret)
            await compare("delete_vault_file", {"filename": secret[1], "permanent": True}, secret)
            await compare(
                "move_vault_file", {"source": secret[1], "destination": "Public/m.md"}, secret
            )
            onto = {"source": f"Public/to {folder}.md", "destination": moved[1]}
            await compare("move_vault_file", onto, moved)

    if changed := changes(before, disk_state(root)):
        wrong.append(f"the disk changed: {changed}")
    assert wrong == [], "\n".join(wrong)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_deny_entry_in_lower_case_denies_the_folder_as_the_disk_spells_it(
    awkward_vault: Path, backend: str
) -> None:
    async with serve_disk(awkward_vault, backend, VAULTGATE_DENY="private") as world:
        read = await world.client.call_tool("get_vault_file", {"filename": "Private/secret.md"})
        listed = await every_listed(world, {})
        found = await world.client.call_tool("search_vault_simple", {"query": "privatezebra"})

    assert read.is_error, body(read)[:300]
    assert "privatezebra" not in body(read)
    assert not [path for path in listed if path.lower().startswith("private/")]
    assert "privatezebra" not in body(found)


NFC_CAFE = unicodedata.normalize("NFC", "Café")
NFD_CAFE = unicodedata.normalize("NFD", "Café")


@pytest.mark.parametrize(
    ("deny", "stored"),
    [
        pytest.param(NFC_CAFE, NFD_CAFE, id="deny-NFC-folder-NFD"),
        pytest.param(NFD_CAFE, NFC_CAFE, id="deny-NFD-folder-NFC"),
    ],
)
@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_deny_entry_holds_for_either_unicode_form_of_a_name(
    vault: Path, backend: str, deny: str, stored: str
) -> None:
    write(vault / stored / "menu.md", "# Menu\n\nmenuzebra\n")
    async with serve_disk(vault, backend, VAULTGATE_DENY=deny) as world:
        reads = [
            await world.client.call_tool("get_vault_file", {"filename": f"{form}/menu.md"})
            for form in (NFC_CAFE, NFD_CAFE, "CAFÉ", "cafe\u0301")
        ]
        listed = await every_listed(world, {})
        found = await world.client.call_tool("search_vault_simple", {"query": "menuzebra"})
        written = await world.client.call_tool(
            "append_to_vault_file", {"filename": f"{stored}/menu.md", "content": "x"}
        )

    for read in reads:
        assert read.is_error, body(read)[:300]
        assert "menuzebra" not in body(read)
    assert not [path for path in listed if path.endswith("menu.md")]
    assert "menuzebra" not in body(found)
    assert written.is_error, body(written)[:300]
    assert (vault / stored / "menu.md").read_text(encoding="utf-8") == "# Menu\n\nmenuzebra\n"


@pytest.mark.parametrize(
    "deny", [pytest.param("", id="no-deny"), pytest.param("Private", id="deny")]
)
@pytest.mark.parametrize("backend", BACKENDS)
async def test_two_notes_that_differ_only_in_case_both_stay_reachable(
    awkward_vault: Path, backend: str, deny: str
) -> None:
    async with serve_disk(awkward_vault, backend, VAULTGATE_DENY=deny) as world:
        upper = await world.client.call_tool("get_vault_file", {"filename": "Notes/Case.md"})
        lower = await world.client.call_tool("get_vault_file", {"filename": "Notes/case.md"})
        listed = await every_listed(world, {})

    assert body(upper) == "upper case text\n"
    assert body(lower) == "lower case text\n"
    assert {"Notes/Case.md", "Notes/case.md"} <= set(listed)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_link_inside_the_vault_to_a_note_every_rule_allows_is_read_and_written_through(
    awkward_vault: Path, backend: str
) -> None:
    link(awkward_vault / "Public" / "home.md", "../Welcome.md")
    welcome = (awkward_vault / "Welcome.md").read_text(encoding="utf-8")
    async with serve_disk(awkward_vault, backend) as world:
        read = await world.client.call_tool("get_vault_file", {"filename": "Public/home.md"})
        appended = await world.client.call_tool(
            "append_to_vault_file", {"filename": "Public/home.md", "content": "more\n"}
        )

    assert body(read) == welcome
    assert not appended.is_error, body(appended)[:300]
    assert (awkward_vault / "Public" / "home.md").is_symlink()
    assert (awkward_vault / "Welcome.md").read_text(encoding="utf-8") == welcome + "more\n"


# --- names the disk cannot hold ---------------------------------------------------------------

LONG_NAME = "Notes/" + "ü" * 150 + ".md"  # a 303-byte name: 2 bytes a letter in UTF-8


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_name_longer_than_the_disk_holds_answers_a_clear_error(
    awkward_vault: Path, backend: str
) -> None:
    root = awkward_vault.parent
    before = disk_state(root)
    async with serve_disk(awkward_vault, backend) as world:
        answers = {
            "read": await world.client.call_tool("get_vault_file", {"filename": LONG_NAME}),
            "create": await world.client.call_tool(
                "create_vault_file", {"filename": LONG_NAME, "content": "x"}
            ),
            "move": await world.client.call_tool(
                "move_vault_file", {"source": PLAIN, "destination": LONG_NAME}
            ),
            "move (dry run)": await world.client.call_tool(
                "move_vault_file", {"source": PLAIN, "destination": LONG_NAME, "dryRun": True}
            ),
        }

    wrong = [
        f"{action}: {body(answer)[:300]}"
        for action, answer in answers.items()
        if not answer.is_error or "255" not in body(answer) or "internal error" in body(answer)
    ]
    assert wrong == [], "\n".join(wrong)
    assert changes(before, disk_state(root)) == {}


# --- VAULTGATE_FOLLOW_LINKS=all ---------------------------------------------------------------


@pytest.mark.parametrize("backend", ["folder", "5.1.0"])
async def test_following_every_link_serves_outside_files_but_never_a_hidden_or_denied_one(
    awkward_vault: Path, backend: str
) -> None:
    async with serve_disk(awkward_vault, backend, VAULTGATE_FOLLOW_LINKS="all") as world:

        async def read(path: str) -> CallToolResult:
            return await world.client.call_tool("get_vault_file", {"filename": path})

        outside = await read("Notes/flink.md")
        outside_dir = await read("ext/inner 日本.md")
        refused = {path: await read(path) for path in (*HIDDEN_TARGETS, *DENIED_TARGETS)}
        listed = await every_listed(world, {})
        found = await world.client.call_tool("search_vault_simple", {"query": "zebra"})

    assert "outsidezebra" in body(outside)
    assert "outsidedirzebra" in body(outside_dir)
    assert {"Notes/flink.md", "ext/inner 日本.md"} <= set(listed)
    for path, answer in refused.items():
        assert answer.is_error, f"{path} served: {body(answer)[:300]}"
    shown = json.dumps(listed) + body(found) + "".join(body(a) for a in refused.values())
    for word in ("sshzebra", "keyzebra", "trashzebra", "privatezebra"):
        assert word not in shown
    for name in ("id.md", "key.md", "old note.md", "alias.md", "loop/"):
        assert name not in json.dumps(listed, ensure_ascii=False)
