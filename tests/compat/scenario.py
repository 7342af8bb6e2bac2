"""What every framework in tests/compat/ does with vaultgate, framework-free (stdlib only): the
server it starts, the calls a scripted model makes in each profile, and how each host fills a
call (strict mode, Gemini CLI). Each test module drives these through one framework's own MCP
client, conversion and tool wrapper."""

from __future__ import annotations

import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
FIXTURE_VAULT = REPO / "fixtures" / "vault"
PROFILES = ("compact", "full")
# The tools each profile must list (full lists about 55: every single tool besides).
LISTED = {
    "compact": {"discover", "vault", "active_file", "memory", "fetch"},
    "full": {
        "discover",
        "vault",
        "memory",
        "get_vault_file",
        "list_vault_files",
        "search_vault_simple",
        "set_note_property",
        "mem_save",
        "mem_search",
    },
}
FULL_AT_LEAST = 50


def server_python() -> str:
    """The interpreter that serves vaultgate: VAULTGATE_COMPAT_PYTHON, else the project's
    .venv (the frameworks' venvs may hold an mcp 1.x that vaultgate cannot run on)."""
    chosen = os.environ.get("VAULTGATE_COMPAT_PYTHON")
    if chosen:
        return chosen
    venv = REPO / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


@dataclass
class Server:
    """``python -m vaultgate serve`` over stdio on a copy of the fixture vault."""

    vault: Path
    profile: str
    # ":memory:", or a file for clients that start the server anew for every call
    memory: str = ":memory:"
    command: str = field(default_factory=server_python)
    args: list[str] = field(default_factory=lambda: ["-m", "vaultgate", "serve"])

    @classmethod
    def on_copy(cls, folder: Path, profile: str, *, memory: str = ":memory:") -> Server:
        vault = folder / "vault"
        shutil.copytree(FIXTURE_VAULT, vault)
        return cls(vault, profile, memory)

    @property
    def env(self) -> dict[str, str]:
        """The server's whole environment: the folder backend, memory in RAM, this
        checkout's code, the vault index in a cache folder of the test's own."""
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
        return {
            **keep,
            "PYTHONPATH": str(REPO / "src"),
            "XDG_CACHE_HOME": str(self.vault.parent / "cache"),
            "VAULTGATE_VAULT": str(self.vault),
            "VAULTGATE_BACKEND": "folder",
            "VAULTGATE_MEMORY_DB": self.memory,
            "VAULTGATE_TOOLS": self.profile,
        }

    def frontmatter_line(self, key: str) -> str | None:
        text = (self.vault / "Welcome.md").read_text(encoding="utf-8")
        head = text.split("---", 2)[1]
        found = re.search(rf"^{key}:\s*(.*)$", head, re.MULTILINE)
        return found.group(1).strip() if found else None


@dataclass(frozen=True)
class Call:
    what: str  # read, list, search, change, memory save, memory search, discover
    tool: str
    arguments: dict[str, Any]
    expect: str  # a piece of the answer's text


NUMBER_KEY = "priority"


def calls(profile: str) -> list[Call]:
    """The scripted model's calls, in order (the memory search finds the memory saved)."""
    if profile == "compact":
        return [
            Call("discover", "discover", {}, "vault"),
            Call("list", "vault", {"operation": "list", "directory": "Projects"}, "Overview.md"),
            Call("read", "vault", {"operation": "read", "filename": "Welcome.md"}, "# Welcome"),
            Call("search", "vault", {"operation": "search", "query": "Acme"}, "Acme"),
            Call(
                "change",
                "vault",
                {
                    "operation": "set_property",
                    "filename": "Welcome.md",
                    "key": NUMBER_KEY,
                    "value": 3,
                },
                NUMBER_KEY,
            ),
            Call(
                "memory save",
                "memory",
                {"operation": "save", "title": "Compat run", "content": "A scripted model."},
                "#1",
            ),
            Call("memory search", "memory", {"operation": "search", "query": "scripted"}, "Compat"),
        ]
    return [
        Call("discover", "discover", {}, "vault"),
        Call("list", "list_vault_files", {"directory": "Projects"}, "Overview.md"),
        Call("read", "get_vault_file", {"filename": "Welcome.md"}, "# Welcome"),
        Call("search", "search_vault_simple", {"query": "Acme"}, "Acme"),
        Call(
            "change",
            "set_note_property",
            {"filename": "Welcome.md", "key": NUMBER_KEY, "value": 3},
            NUMBER_KEY,
        ),
        Call(
            "memory save", "mem_save", {"title": "Compat run", "content": "A scripted model."}, "#1"
        ),
        Call("memory search", "mem_search", {"query": "scripted"}, "Compat"),
    ]


def _options(schema: dict[str, Any]) -> list[dict[str, Any]]:
    options = schema.get("anyOf") or schema.get("oneOf") or [schema]
    found = []
    for option in options:
        kinds = option.get("type")
        for kind in kinds if isinstance(kinds, list) else [kinds]:
            found.append({**option, "type": kind})
    return found


def strict_fill(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """Every property of ``schema`` present, as OpenAI's strict mode forces a model to send
    them: the default where there is one, ``null`` where the schema allows it, else the empty
    value of its type (``""``, ``[]``, ``{}``); ``null`` where nothing empty fits (a number
    or a boolean: a model forced to send one there would send a real value)."""
    filled: dict[str, Any] = {}
    for name, property_schema in schema.get("properties", {}).items():
        if name in arguments:
            continue
        kinds = [option["type"] for option in _options(property_schema)]
        if "default" in property_schema:
            filled[name] = property_schema["default"]
        elif "null" in kinds:
            filled[name] = None
        elif "string" in kinds:
            filled[name] = ""
        elif "array" in kinds:
            filled[name] = []
        elif "object" in kinds:
            filled[name] = {}
        else:
            filled[name] = None
    return {**filled, **arguments}


def gemini_cli(arguments: dict[str, Any]) -> dict[str, Any]:
    """Gemini CLI's own key, added to every call (the model is told to set it)."""
    return {**arguments, "wait_for_previous": True}


def check_answers(answers: dict[str, tuple[bool, str]], profile: str, server: Server) -> None:
    """Every scripted call answered without an error and with what it should say."""
    wrong = {
        call.what: answer
        for call in calls(profile)
        if (answer := answers[call.what])[0] or call.expect not in answer[1]
    }
    assert not wrong, wrong


def number_arrived(server: Server) -> bool:
    """The number set through ``value`` is in the note's frontmatter as a number."""
    return server.frontmatter_line(NUMBER_KEY) == "3"


def about_the_tools(caught: list[Any]) -> list[str]:
    """The warnings raised while listing and converting, less a framework's notices about its
    own API (DeprecationWarning and the like) and its unclosed streams (ResourceWarning)."""
    own = (DeprecationWarning, PendingDeprecationWarning, FutureWarning, ResourceWarning)
    return [
        f"{w.category.__name__}: {w.message}" for w in caught if not issubclass(w.category, own)
    ]


class Runs:
    """One run of a framework per profile (and kind), shared by the tests that look at it:
    starting servers is what takes the time."""

    def __init__(self) -> None:
        self.done: dict[str, tuple[Server, Any]] = {}

    async def get(
        self, factory: Any, key: str, start: Any, profile: str, **server: Any
    ) -> tuple[Server, Any]:
        if key not in self.done:
            folder = factory.mktemp(key.replace(" ", "-"))
            on_copy = Server.on_copy(folder, profile, **server)
            self.done[key] = on_copy, await start(on_copy)
        return self.done[key]


def untyped_gemini(schema: Any, where: str) -> list[str]:
    """Every node of a Gemini ``parameters`` schema (google-genai's ``types.Schema``) with
    neither a type nor typed options: what Gemini refuses in that form."""

    def bare(node: Any) -> bool:
        kind = getattr(node.type, "value", node.type)
        return kind in (None, "TYPE_UNSPECIFIED")

    found = []
    for name, child in (schema.properties or {}).items():
        if bare(child) and not child.any_of:
            found.append(f"{where}.{name}")
        found.extend(untyped_gemini(child, f"{where}.{name}"))
    if schema.items is not None:
        found.extend(untyped_gemini(schema.items, f"{where}[]"))
    found.extend(f"{where} (anyOf option)" for option in schema.any_of or [] if bare(option))
    return found
