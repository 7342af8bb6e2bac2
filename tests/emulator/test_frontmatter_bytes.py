"""A frontmatter PATCH rewrites only the target key's lines, at every plugin version (issue 27).

The plugin's engines (markdown-patch 0.4/1.x/2.0) re-serialise the whole block with
``yaml.stringify``: comments go, quotes and list styles change. The emulator departs from that
on purpose (docs/design.md); what it keeps from the plugin is each version's request format
and the value a key ends up with, written plain where it reads back plain (3.6.2's engine
leaves ``updated: 2026-11-19`` unquoted, and so does the emulator).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from vaultgate.markdown import parse_frontmatter

from .conftest import Api

pytestmark = pytest.mark.anyio

PATH = "Notes/Issue #27 100%.md"
URL = "/vault/" + quote(PATH)
NOTE = (
    "---\r\n"
    "# written by me 🚀\r\n"
    'title: "Quoted title"\r\n'
    "status: draft\r\n"
    "completed: 2026-11-15\r\n"
    "aliases: [one, two]\r\n"
    "rating: 4.50\r\n"
    "tags:\r\n"
    "  - 日本\r\n"
    "  - beta/gamma\r\n"
    "notes: |\r\n"
    "  first\r\n"
    "  second\r\n"
    "---\r\n"
    "# Body\r\n"
)
VERSIONS = [
    pytest.param("3.6.2", {}, id="3.6.2"),
    pytest.param("4.1.7", {}, id="4.1.7"),
    pytest.param("5.1.0", {"Markdown-Patch-Version": "1"}, id="5.1.0-headers"),
]


@pytest.fixture
def note(vault: Path) -> Path:
    path = vault / PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(NOTE.encode("utf-8"))
    return path


def text(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def headers(operation: str, key: str, content_type: str, **more: str) -> dict[str, str]:
    return {
        "Content-Type": content_type,
        "Operation": operation,
        "Target-Type": "frontmatter",
        "Target": quote(key),
        **more,
    }


@pytest.mark.parametrize(("version", "extra"), VERSIONS)
@pytest.mark.parametrize(
    ("operation", "key", "body", "content_type", "expected"),
    [
        pytest.param(
            "replace",
            "updated",
            "2026-11-19",
            "text/markdown",
            NOTE.replace("---\r\n# Body", "updated: 2026-11-19\r\n---\r\n# Body"),
            id="new-date-unquoted",
        ),
        pytest.param(
            "replace",
            "status",
            '"done ✅"',
            "application/json",
            NOTE.replace("status: draft", "status: done ✅"),
            id="replace-scalar",
        ),
        pytest.param(
            "append",
            "tags",
            '["新しい"]',
            "application/json",
            NOTE.replace("  - beta/gamma\r\n", "  - beta/gamma\r\n  - 新しい\r\n"),
            id="append-block-list",
        ),
        pytest.param(
            "prepend",
            "aliases",
            '["zero"]',
            "application/json",
            NOTE.replace("[one, two]", "[zero, one, two]"),
            id="prepend-inline-list",
        ),
        pytest.param(
            "replace",
            "notes",
            '"just one line"',
            "application/json",
            NOTE.replace("notes: |\r\n  first\r\n  second", "notes: just one line"),
            id="replace-block-scalar",
        ),
    ],
)
async def test_a_header_patch_changes_only_the_keys_lines(
    api: Api,
    note: Path,
    version: str,
    extra: dict[str, str],
    operation: str,
    key: str,
    body: str,
    content_type: str,
    expected: str,
) -> None:
    sent = headers(operation, key, content_type, **extra, **{"Create-Target-If-Missing": "true"})
    async with api(version) as http:
        response = await http.patch(URL, content=body.encode("utf-8"), headers=sent)

    assert response.status_code == 200, response.text
    assert text(note) == expected


@pytest.mark.parametrize(("version", "extra"), VERSIONS)
async def test_a_flow_style_block_fails_the_patch_saying_why(
    api: Api, vault: Path, version: str, extra: dict[str, str]
) -> None:
    flow = vault / "flow.md"
    flow.write_bytes(b"---\n{status: draft, n: 1}\n---\nBody\n")
    async with api(version) as http:
        response = await http.patch(
            "/vault/flow.md",
            content=b"done",
            headers=headers("replace", "status", "text/markdown", **extra),
        )

    assert response.status_code == 400
    assert response.json()["errorCode"] == 40080
    assert "flow-style mapping" in response.json()["message"]
    assert flow.read_bytes() == b"---\n{status: draft, n: 1}\n---\nBody\n"


def instruction(**fields: Any) -> dict[str, Any]:
    return {"targetType": "frontmatter", **fields}


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        pytest.param(
            instruction(target="status", operation="delete", scope="markerAndContent"),
            NOTE.replace("status: draft\r\n", ""),
            id="delete-key",
        ),
        pytest.param(
            instruction(target="notes", operation="delete", scope="markerAndContent"),
            NOTE.replace("notes: |\r\n  first\r\n  second\r\n", ""),
            id="delete-block-scalar",
        ),
        pytest.param(
            instruction(target="status", operation="replace", scope="marker", content="état"),
            NOTE.replace("status: draft", "état: draft"),
            id="rename-key",
        ),
        pytest.param(
            instruction(target="tags", operation="replace", value=["beta/gamma"]),
            NOTE.replace("  - 日本\r\n", ""),
            id="remove-an-item",
        ),
        pytest.param(
            instruction(target="rating", operation="replace", value=4.5),
            NOTE,
            id="same-number-keeps-its-spelling",
        ),
        pytest.param(
            instruction(target="rating", operation="replace", value=5),
            NOTE.replace("rating: 4.50", "rating: 5"),
            id="replace-number",
        ),
    ],
)
async def test_a_json_instruction_changes_only_the_keys_lines(
    api: Api, note: Path, sent: dict[str, Any], expected: str
) -> None:
    async with api("5.1.0") as http:
        response = await http.patch(
            URL, content=json.dumps(sent), headers={"Content-Type": "application/json"}
        )

    assert response.status_code == 200, response.text
    assert text(note) == expected
    assert parse_frontmatter(text(note)).valid
