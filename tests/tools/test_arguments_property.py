"""Every tool, any arguments: an answer or an error the model can read, never the SDK's bare
"Error executing tool X", never pydantic's validation dump and never vaultgate's last-resort
"internal error".

Arguments are drawn from each tool's published inputSchema, so a new tool is covered as soon as
it is registered. Values are hostile on purpose: out-of-range and huge integers, floats, very
long strings, NUL, lone surrogates, emoji, '..', hidden paths, None, wrong types, unknown
arguments, and what real hosts add (strict mode's empty fills, Gemini CLI's
wait_for_previous). The server runs in the ``full`` profile (which includes the default
profile's dispatchers), and in the ``split`` one for its own dispatchers, in-process through
the SDK's Client, against the emulator serving a copy of the
fixture vault that is restored before each tool.

Bounded for CI: HYPOTHESIS_EXAMPLES examples per tool (about 35 s in all on two cores);
derandomized, so a run is repeatable. Set VAULTGATE_PROPERTY_EXAMPLES and
VAULTGATE_PROPERTY_SEED to explore further by hand.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.types import TextContent, Tool
from tests.tools.conftest import FIXTURE_VAULT, settings_for

from vaultgate.config import MemorySettings, Settings
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.server import build_server
from vaultgate.tools.base import INTERNAL_ERROR
from vaultgate.tools.registry import select_tools

HYPOTHESIS_EXAMPLES = int(os.environ.get("VAULTGATE_PROPERTY_EXAMPLES", "40"))
SEED = os.environ.get("VAULTGATE_PROPERTY_SEED")

TOOL_NAMES = sorted(
    tool.__name__ for tool, _ in select_tools(Settings.from_env({"VAULTGATE_TOOLS": "full"}))
)
SPLIT_DISPATCHERS = ["vault", "vault_edit", "memory", "memory_edit"]

HUGE_INTEGERS = [
    0,
    -1,
    1,
    2**31,
    2**53 + 1,
    2**63 - 1,
    2**63,
    -(2**63) - 1,
    2**64,
    10**30,
    -(10**30),
]
NOTES = [
    "Welcome.md",
    "Daily/2026-11-21.md",
    "Projects/Overview.md",
    "Projects/Personal/🚀 Launch plan.md",
    "Resources/Languages/日本語メモ.md",
    "Areas/Career/Résumé notes.md",
    "Attachments/diagram.png",
    "Templates/Meeting template.md",
]
HOSTILE_STRINGS = [
    "",
    " ",
    "..",
    "../Welcome.md",
    "Daily/../../etc/passwd",
    ".obsidian/app.json",
    ".obsidian/x",
    ".trash/",
    "/Welcome.md",
    "C:\\Windows\\x.md",
    "Daily",
    "Daily/",
    "*",
    "**/*",
    "[",
    "{a,b",
    "%",
    "%2e%2e/x",
    "#",
    "?",
    "\x00",
    "a\x00b.md",
    "\ud800",
    "x\udfffy",
    "🙂" * 50,
    "Heading::Sub",
    "^block",
    "\r\n",
    "x" * 100_001,
    "é" * 3_000,
    "\u202e\u200b\ufeff",
    "true",
    "null",
    "0",
    "-1",
    "[1, 2]",
    "[9223372036854775808]",
    '{"a": 1}',
    "2026-02-30",
    "9999-12-31",
]
# fetch must never reach the network: every URL is refused or fails before a connection, or
# is so malformed that it has no scheme.
URLS = [
    "http://127.0.0.1/",
    "http://localhost:1/",
    "http://[::1]/",
    "http://[fec0::1]/",
    "http://[fe80::1%25eth0]/",
    "http://10.0.0.1/admin",
    "http://169.254.169.254/latest/meta-data/",
    "http://2130706433/",
    "http://0/",
    "https://" + "a" * 64 + ".example/",
    "https://" + "a." * 130 + "example/",
    "https://a..example/",
    "https://user:pw@example.com/",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "http://[::1",
    "http://exa\x00mple.com/",
    "https://é" + "a" * 70 + ".com/",
    "https://example.com/" + "a" * 70_000,
    "http://xn--a/",
]


def json_scalars() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.none(),
        st.booleans(),
        st.sampled_from(HUGE_INTEGERS),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(HOSTILE_STRINGS),
        st.text(max_size=40),
    )


def any_json() -> st.SearchStrategy[Any]:
    return st.recursive(
        json_scalars(),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
        max_leaves=8,
    )


def strings_for(name: str) -> st.SearchStrategy[str]:
    if name == "url":
        return st.sampled_from(URLS) | st.text(max_size=60)
    pools: list[st.SearchStrategy[str]] = [st.sampled_from(HOSTILE_STRINGS), st.text(max_size=80)]
    lowered = name.lower()
    if any(word in lowered for word in ("file", "path", "source", "destination", "directory")):
        pools.append(st.sampled_from(NOTES))
        pools.append(st.sampled_from(NOTES).map(lambda note: note + "/x"))
    return st.one_of(*pools)


def value_for(name: str, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A value that usually fits ``schema`` (often at or beyond its limits), sometimes not."""
    fitting: list[st.SearchStrategy[Any]] = []
    variants = schema.get("anyOf") or schema.get("oneOf")
    if variants:
        fitting.extend(value_for(name, variant) for variant in variants)
    if "enum" in schema:
        fitting.append(st.sampled_from(schema["enum"]))
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    for each in kinds:
        match each:
            case "integer":
                fitting.append(st.sampled_from(HUGE_INTEGERS) | st.integers(-5, 300))
                for bound in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
                    if bound in schema:
                        edge = int(schema[bound])
                        fitting.append(st.sampled_from([edge - 1, edge, edge + 1]))
            case "number":
                fitting.append(st.floats(allow_nan=False, allow_infinity=False))
            case "string":
                fitting.append(strings_for(name))
            case "boolean":
                fitting.append(st.booleans())
            case "array":
                items = schema.get("items", {})
                fitting.append(st.lists(value_for(name, items), max_size=12))
            case "object":
                fitting.append(st.dictionaries(st.text(max_size=12), json_scalars(), max_size=4))
            case "null":
                fitting.append(st.none())
    if not fitting:
        fitting.append(any_json())
    return st.one_of(st.one_of(*fitting), st.one_of(*fitting), any_json())


@st.composite
def arguments_for(draw: st.DrawFn, tool: Tool) -> dict[str, Any]:
    schema = tool.input_schema
    required = set(schema.get("required", []))
    arguments: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        if name in required or draw(st.booleans()):
            arguments[name] = draw(value_for(name, prop))
        else:
            match draw(st.integers(0, 9)):
                case 0:
                    arguments[name] = None  # many hosts send every optional field
                case 1:
                    arguments[name] = ""  # OpenAI's strict mode fills unused text fields
                case _:
                    pass
    if required and draw(st.integers(0, 14)) == 0:
        arguments.pop(draw(st.sampled_from(sorted(required))))
    if draw(st.integers(0, 14)) == 0:
        arguments[draw(st.text(min_size=1, max_size=10))] = draw(json_scalars())
    if draw(st.integers(0, 4)) == 0:
        arguments["wait_for_previous"] = draw(st.booleans())  # Gemini CLI's own key
    return arguments


@dataclass
class Harness:
    portal: BlockingPortal
    client: Client
    tools: dict[str, Tool]
    vault: Path


def serve(tmp_path_factory: pytest.TempPathFactory, profile: str) -> Iterator[Harness]:
    base = tmp_path_factory.mktemp(f"property-{profile}")
    vault = base / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    emulator: RunningEmulator
    with start_emulator(vault, active_file="Daily/2026-11-21.md") as emulator:
        settings = dataclasses.replace(
            settings_for(emulator, VAULTGATE_TOOLS=profile),
            memory=MemorySettings(db=str(base / "memory.db")),
        )
        with (
            start_blocking_portal() as portal,
            portal.wrap_async_context_manager(Client(build_server(settings))) as client,
        ):
            listed = portal.call(client.list_tools)
            yield Harness(portal, client, {tool.name: tool for tool in listed.tools}, vault)


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    yield from serve(tmp_path_factory, "full")


@pytest.fixture(scope="module")
def split_harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    yield from serve(tmp_path_factory, "split")


def restore(vault: Path) -> None:
    """The fixture vault as it was, so each tool starts from notes that exist."""
    shutil.rmtree(vault)
    shutil.copytree(FIXTURE_VAULT, vault)


def test_every_registered_tool_is_exercised(harness: Harness) -> None:
    assert sorted(harness.tools) == TOOL_NAMES


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_any_arguments_get_an_answer_or_a_readable_error(harness: Harness, name: str) -> None:
    walk(harness, name)


@pytest.mark.parametrize("name", SPLIT_DISPATCHERS)
def test_the_split_dispatchers_too(split_harness: Harness, name: str) -> None:
    assert sorted(split_harness.tools) == sorted([*SPLIT_DISPATCHERS, "discover", "fetch"])
    walk(split_harness, name)


def walk(harness: Harness, name: str) -> None:
    tool = harness.tools[name]
    restore(harness.vault)

    @settings(
        max_examples=HYPOTHESIS_EXAMPLES,
        deadline=None,
        derandomize=SEED is None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(arguments=arguments_for(tool))
    def check(arguments: dict[str, Any]) -> None:
        result = harness.portal.call(harness.client.call_tool, name, arguments)
        if not result.is_error:
            return
        text = " ".join(b.text for b in result.content if isinstance(b, TextContent)).strip()
        assert text, f"{name}: an error without text"
        assert text != f"Error executing tool {name}", f"{name}: the SDK's bare error"
        assert INTERNAL_ERROR not in text, f"{name}: reached the last-resort net: {text}"
        assert "errors.pydantic.dev" not in text, f"{name}: pydantic's dump: {text}"
        assert "wait_for_previous" not in text, f"{name}: a host's own key refused: {text}"

    if SEED is not None:
        check = seed(int(SEED))(check)
    check()
