"""Hints name calls the model has: the dispatcher operation in `compact` and `split` (each
its own dispatchers), the single tool in `full`. Every hint is written through vaultgate.calls
(checked over the source), every single tool has a spelling in each profile, and real errors
and navigation lines are read back from every profile."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client
from tests.tools.conftest import EmulatorFactory, error_text, texts

from vaultgate.calls import render_call
from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator
from vaultgate.server import build_server
from vaultgate.tools.registry import profile_dispatchers, select_tools, single_tools
from vaultgate.tools.spelling import OfferedTools

pytestmark = pytest.mark.anyio

SRC = Path(__file__).parents[2] / "src" / "vaultgate"
SINGLE = sorted({tool.__name__ for _, specs in single_tools() for tool, _ in specs} - {"fetch"})
NAMED = re.compile(r"(?<![\w.])(" + "|".join(sorted(SINGLE, key=len, reverse=True)) + r")(?!\w)")
# Text naming a single tool on purpose: the seeds' exact wording where that tool is offered
# (render.open_observation), and the single tools a route answers for (data, not a hint).
# Tables keyed or valued by single tools are data too: the operations earlier releases had and
# the tool each meant (equivalents.FORMER_OPERATIONS), the tool whose top-level folders move
# into its filter (arguments.SMART_TOOL), and the memory dispatchers' operation "timeline",
# which shares its name with seed 002's own tool.
ALLOWED = {
    ("memory/render.py", "mem_get_observation #"),
    # seed 000 FR-003/FR-004's footers, word for word in every profile (docs/seed-contract.md)
    ("memory/render.py", "results. Use limit or mem_get_observation #ID"),
    ("memory/render.py", "observations. Increase limit or use mem_get_observation #ID"),
    ("tools/operations.py", "mem_get"),
    ("tools/arguments.py", "search_vault_smart"),
    *(
        ("tools/equivalents.py", tool)
        for tool in ("get_vault_file", "list_commands", "show_file_in_obsidian", "execute_command")
    ),
    *(
        (f"tools/{module}.py", "timeline")
        for module in ("operations", "dispatch", "dispatch_split")
    ),
    *(
        (f"tools/{module}.py", "timeline: ISO datetime")
        for module in ("dispatch", "dispatch_split")
    ),
}
PROFILES = ("compact", "split", "full")


def offered(profile: str) -> OfferedTools:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": profile})
    names = frozenset(tool.__name__ for tool, _ in select_tools(settings))
    return OfferedTools(names, profile_dispatchers(settings))


def hard_coded_names(path: Path) -> list[str]:
    """String constants naming a single tool, outside docstrings and calls.call(...)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    exempt: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            exempt.add(id(body[0].value))  # a docstring describes, it is not a hint
        if isinstance(node, ast.Call) and node.args:
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in ("call", "offers"):
                exempt.add(id(node.args[0]))
        if isinstance(node, ast.Dict):  # keyed by tool name: data (catalogue examples)
            exempt.update(id(key) for key in node.keys if key is not None)
    relative = path.relative_to(SRC).as_posix()
    return [
        f"{relative}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in exempt
        and NAMED.search(node.value)
        and not any(relative == f and node.value.startswith(p) for f, p in ALLOWED)
    ]


def test_no_hint_hard_codes_a_tool_name() -> None:
    found = [hit for path in sorted(SRC.rglob("*.py")) for hit in hard_coded_names(path)]

    assert found == [], "name the call through vaultgate.calls.call(...):\n" + "\n".join(found)


@pytest.mark.parametrize("tool", SINGLE)
def test_every_single_tool_is_spelled_as_a_call_this_profile_offers(tool: str) -> None:
    full = offered("full")

    assert full.call(tool, {}) == f"{tool}()"
    for profile in ("compact", "split"):
        spelling = offered(profile)
        name, _, rest = spelling.call(tool, {}).partition("(")
        assert name in spelling.names, profile
        assert name != tool
        assert rest.startswith('operation="')
        operation = rest.split('"')[1]
        assert operation in spelling.dispatchers[name].operations, profile


@pytest.mark.parametrize(
    ("tool", "arguments", "compact", "split"),
    [
        (
            "list_vault_files",
            {"directory": "Projects 🚀/日本"},
            'vault(operation="list", directory="Projects 🚀/日本")',
            'vault(operation="list", directory="Projects 🚀/日本")',
        ),
        (
            "get_vault_file",
            {"filename": "a.md", "format": "map"},
            'vault(operation="read", filename="a.md", format="map")',
            'vault(operation="read", filename="a.md", format="map")',
        ),
        (
            "patch_vault_file",
            {"filename": "a.md", "patchOperation": "append"},
            'vault(operation="patch", filename="a.md", patchOperation="append")',
            'vault_edit(operation="patch", filename="a.md", patchOperation="append")',
        ),
        (
            "get_active_file",
            {"maxLength": 5},
            'active_file(operation="read", maxLength=5)',
            'vault(operation="active", maxLength=5)',
        ),
        (
            "delete_active_file",
            {},
            'active_file(operation="delete")',
            'vault_edit(operation="active_delete")',
        ),
        (
            "mem_delete",
            {"id": 1},
            'memory(operation="delete", id=1)',
            'memory_edit(operation="delete", id=1)',
        ),
        (
            "mem_get_observations",
            {"ids": [1, 2]},
            'memory(operation="get", ids=[1, 2])',
            'memory(operation="get", ids=[1, 2])',
        ),
        (
            "sdd_get_context",
            {"change": "x"},
            'memory(operation="sdd_context", change="x")',
            'memory(operation="sdd_context", change="x")',
        ),
    ],
)
def test_arguments_follow_the_operation(
    tool: str, arguments: dict[str, object], compact: str, split: str
) -> None:
    assert offered("compact").call(tool, arguments) == compact
    assert offered("split").call(tool, arguments) == split
    assert offered("full").call(tool, arguments) == render_call(tool, arguments)


@asynccontextmanager
async def connected(emulator: RunningEmulator, profile: str, db: Path) -> AsyncIterator[Client]:
    assert emulator.https_url is not None
    settings = Settings.from_env(
        {
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
            "OBSIDIAN_CERT": str(emulator.certificate_path),
            "VAULTGATE_TOOLS": profile,
            "VAULTGATE_MEMORY_DB": str(db),
        }
    )
    async with Client(build_server(settings)) as client:
        yield client


# (dispatcher, operation) as the default profile calls it → the split profile's call, and the
# single tool the full profile calls
CALLS = {
    ("vault", "read"): (("vault", "read"), "get_vault_file"),
    ("vault", "create"): (("vault_edit", "create"), "create_vault_file"),
    ("memory", "save"): (("memory", "save"), "mem_save"),
    ("memory", "search"): (("memory", "search"), "mem_search"),
}


async def ask(client: Client, profile: str, dispatcher: str, operation: str, **args: object) -> str:
    """One operation, as each profile calls it; the answer's text or error."""
    split, single = CALLS[dispatcher, operation]
    if profile == "compact":
        result = await client.call_tool(dispatcher, {"operation": operation, **args})
    elif profile == "split":
        result = await client.call_tool(split[0], {"operation": split[1], **args})
    else:
        result = await client.call_tool(single, args)
    return error_text(result) if result.is_error else "\n".join(texts(result))


async def test_errors_and_navigation_name_calls_of_the_profile_in_use(
    emulator_factory: EmulatorFactory, tmp_path: Path
) -> None:
    emulator = emulator_factory()
    seen: dict[str, list[str]] = {}
    for profile in PROFILES:
        async with connected(emulator, profile, tmp_path / f"{profile}.db") as client:
            for n in range(3):
                await ask(client, profile, "memory", "save", title=f"Cache {n}", content="cache")
            seen[profile] = [
                await ask(client, profile, "vault", "read", filename="Projects/Nope.md"),
                await ask(client, profile, "vault", "read", filename="Projects"),
                await ask(client, profile, "vault", "create", filename="Welcome.md", content="x"),
                await ask(client, profile, "memory", "search", query="cache", limit=1),
            ]

    compact, split, full = seen["compact"], seen["split"], seen["full"]
    # the whole error: no "Error executing tool vault: " before it, one call that helps
    for dispatched in (compact, split):
        assert dispatched[0] == (
            "'Projects/Nope.md' was not found. "
            'vault(operation="list", directory="Projects") shows what exists.'
        )
        assert (
            'Use limit or mem_get_observation #ID for more. Here: memory(operation="get", id=ID).'
            in dispatched[3]
        )
    assert full[0] == (
        "'Projects/Nope.md' was not found. "
        'list_vault_files(directory="Projects") shows what exists.'
    )
    assert 'vault(operation="bulk_delete", pattern="Projects/**", dryRun=true)' in compact[1]
    assert 'vault_edit(operation="bulk_delete", pattern="Projects/**", dryRun=true)' in split[1]
    assert 'bulk_delete_files(pattern="Projects/**", dryRun=true)' in full[1]
    assert 'vault(operation="append", filename="Welcome.md", content=<text>)' in compact[2]
    assert 'vault_edit(operation="append", filename="Welcome.md", content=<text>)' in split[2]
    assert 'append_to_vault_file(filename="Welcome.md", content=<text>)' in full[2]
    assert "Use limit or mem_get_observation #ID for more." in full[3]  # seed 000, verbatim
    for answer in compact + split:
        # the seed's footer words stay verbatim (docs/seed-contract.md); no other single tool
        seed_words = "Use limit or mem_get_observation #ID for more."
        assert not NAMED.search(answer.replace(seed_words, "")), answer
    assert json.dumps(compact, ensure_ascii=False) != json.dumps(full, ensure_ascii=False)


async def test_discover_describes_operations_with_the_names_of_the_profile(tmp_path: Path) -> None:
    described = {}
    for profile in PROFILES:
        settings = Settings.from_env(
            {
                "OBSIDIAN_API_KEY": "k",
                "OBSIDIAN_PROTOCOL": "http",
                "OBSIDIAN_PORT": "9",
                "VAULTGATE_TOOLS": profile,
                "VAULTGATE_MEMORY_DB": str(tmp_path / "memory.db"),
            }
        )
        async with Client(build_server(settings)) as client:
            result = await client.call_tool("discover", {"operation": "memory.search"})
        described[profile] = texts(result)[0]

    for profile in ("compact", "split"):
        assert 'Call: memory(operation="search", query=' in described[profile]
        assert "then memory.timeline on a hit" in described[profile]
        assert not NAMED.search(described[profile])
    assert "then mem_timeline on a hit" in described["full"]
