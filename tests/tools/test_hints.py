"""Hints name calls the model has: the dispatcher operation in `compact`, the single tool in
`full`. Every hint is written through vaultgate.calls (checked over the source), every single
tool has a spelling in each profile, and real errors and navigation lines are read back from
both profiles."""

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

from vaultgate.config import Settings
from vaultgate.emulator.runner import RunningEmulator
from vaultgate.server import build_server
from vaultgate.tools.registry import select_tools, single_tools
from vaultgate.tools.spelling import OfferedTools

pytestmark = pytest.mark.anyio

SRC = Path(__file__).parents[2] / "src" / "vaultgate"
SINGLE = sorted({tool.__name__ for _, specs in single_tools() for tool, _ in specs} - {"fetch"})
NAMED = re.compile(r"(?<![\w.])(" + "|".join(sorted(SINGLE, key=len, reverse=True)) + r")(?!\w)")
# Text naming a single tool on purpose: the seeds' exact wording where that tool is offered
# (render.open_observation), the single tools a route answers for (data, not a hint), and the
# memory dispatcher's operation "timeline", which shares its name with seed 002's own tool.
ALLOWED = {
    ("memory/render.py", "mem_get_observation #"),
    ("tools/dispatch.py", "mem_get"),
    ("tools/dispatch.py", "timeline"),
}


def offered(profile: str) -> OfferedTools:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": profile})
    return OfferedTools(frozenset(tool.__name__ for tool, _ in select_tools(settings)))


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
    compact, full = offered("compact"), offered("full")

    assert full.call(tool, {}) == f"{tool}()"
    name, _, rest = compact.call(tool, {}).partition("(")
    assert name in compact.names
    assert name != tool
    assert rest.startswith('operation="')


@pytest.mark.parametrize(
    ("tool", "arguments", "compact", "full"),
    [
        (
            "list_vault_files",
            {"folder": "Projects 🚀/日本"},
            'vault(operation="list", folder="Projects 🚀/日本")',
            'list_vault_files(folder="Projects 🚀/日本")',
        ),
        (
            "get_vault_file",
            {"filename": "a.md", "format": "map"},
            'vault(operation="read", filename="a.md", format="map")',
            'get_vault_file(filename="a.md", format="map")',
        ),
        (
            "patch_vault_file",
            {"filename": "a.md", "patchOperation": "append"},
            'vault_edit(operation="patch", filename="a.md", patchOperation="append")',
            'patch_vault_file(filename="a.md", patchOperation="append")',
        ),
        (
            "mem_get_observations",
            {"ids": [1, 2]},
            'memory(operation="get", ids=[1, 2])',
            "mem_get_observations(ids=[1, 2])",
        ),
        (
            "sdd_get_context",
            {"change": "x"},
            'memory(operation="sdd_context", change="x")',
            'sdd_get_context(change="x")',
        ),
    ],
)
def test_arguments_follow_the_operation(
    tool: str, arguments: dict[str, object], compact: str, full: str
) -> None:
    assert offered("compact").call(tool, arguments) == compact
    assert offered("full").call(tool, arguments) == full


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


# (dispatcher, operation) → the single tool the full profile calls for it
SINGLE_FOR = {
    ("vault", "read"): "get_vault_file",
    ("vault_edit", "create"): "create_vault_file",
    ("memory", "save"): "mem_save",
    ("memory", "search"): "mem_search",
}


async def ask(client: Client, profile: str, dispatcher: str, operation: str, **args: object) -> str:
    """One operation, as each profile calls it; the answer's text or error."""
    if profile == "compact":
        result = await client.call_tool(dispatcher, {"operation": operation, **args})
    else:
        result = await client.call_tool(SINGLE_FOR[dispatcher, operation], args)
    return error_text(result) if result.is_error else "\n".join(texts(result))


async def test_errors_and_navigation_name_calls_of_the_profile_in_use(
    emulator_factory: EmulatorFactory, tmp_path: Path
) -> None:
    emulator = emulator_factory()
    seen: dict[str, list[str]] = {}
    for profile in ("compact", "full"):
        async with connected(emulator, profile, tmp_path / f"{profile}.db") as client:
            for n in range(3):
                await ask(client, profile, "memory", "save", title=f"Cache {n}", content="cache")
            seen[profile] = [
                await ask(client, profile, "vault", "read", filename="Projects/Nope.md"),
                await ask(client, profile, "vault", "read", filename="Projects"),
                await ask(
                    client, profile, "vault_edit", "create", filename="Welcome.md", content="x"
                ),
                await ask(client, profile, "memory", "search", query="cache", limit=1),
            ]

    compact, full = seen["compact"], seen["full"]
    # the whole error: no "Error executing tool vault: " before it, one call that helps
    assert compact[0] == (
        "'Projects/Nope.md' was not found. "
        'vault(operation="list", folder="Projects") shows what exists.'
    )
    assert full[0] == (
        "'Projects/Nope.md' was not found. list_vault_files(folder=\"Projects\") shows what exists."
    )
    assert 'vault_edit(operation="bulk_delete", pattern="Projects/**", dryRun=true)' in compact[1]
    assert 'bulk_delete_files(pattern="Projects/**", dryRun=true)' in full[1]
    assert 'vault_edit(operation="append", filename="Welcome.md", content=<text>)' in compact[2]
    assert 'append_to_vault_file(filename="Welcome.md", content=<text>)' in full[2]
    assert 'Use limit or memory(operation="get", id=ID) for more.' in compact[3]
    assert "Use limit or mem_get_observation #ID for more." in full[3]  # seed 000, verbatim
    for answer in compact:
        assert not NAMED.search(answer), answer
    assert json.dumps(compact, ensure_ascii=False) != json.dumps(full, ensure_ascii=False)


async def test_discover_describes_operations_with_the_names_of_the_profile(tmp_path: Path) -> None:
    described = {}
    for profile in ("compact", "full"):
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

    assert 'Call: memory(operation="search", query=' in described["compact"]
    assert "then memory.timeline on a hit" in described["compact"]
    assert not NAMED.search(described["compact"])
    assert "then mem_timeline on a hit" in described["full"]
