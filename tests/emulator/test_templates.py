"""The companion plugin's POST /templates/execute: prompt tags, file creation, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vaultgate.emulator.templates import prompt_names, render

from .conftest import Api

pytestmark = pytest.mark.anyio

TEMPLATE = """\
# <% tp.mcpTools.prompt("title", "The title") %>

Owner: <% tp.mcpTools.prompt('owner') %>
Due: <%tp.mcpTools.prompt("due", "When")%>
Made <% tp.date.now("YYYY-MM-DD") %>
"""


@pytest.fixture
def template(vault: Path) -> str:
    (vault / "Templates").mkdir()
    (vault / "Templates" / "task.md").write_text(TEMPLATE, encoding="utf-8")
    return "Templates/task.md"


def test_render_replaces_prompts_and_leaves_other_tags() -> None:
    rendered = render(TEMPLATE, {"title": "Ship", "owner": "Ana"})
    assert rendered == '# Ship\n\nOwner: Ana\nDue: \nMade <% tp.date.now("YYYY-MM-DD") %>\n'


def test_prompt_names_in_order() -> None:
    assert prompt_names(TEMPLATE + TEMPLATE) == ["title", "owner", "due"]


async def test_execute_renders_the_template(api: Api, template: str) -> None:
    body = {"name": template, "arguments": {"title": "Ship", "owner": "Ana", "due": "Fri"}}
    async with api(extensions=True) as http:
        response = await http.post("/templates/execute", json=body)
    assert response.status_code == 200
    assert response.json() == {
        "message": "Prompt executed without creating a file",
        "content": render(TEMPLATE, body["arguments"]),  # type: ignore[arg-type]
    }


@pytest.mark.parametrize(
    "target", ["T/a 🗓 #1.md", "T/no extension 日本", "T/Cafe\u0301 50%.md"], ids=str
)
async def test_create_file_writes_the_result_at_exactly_the_target_path(
    api: Api, vault: Path, template: str, target: str
) -> None:
    """The companion calls app.vault.create(targetPath): no '.md' added, no name picked."""
    body = {"name": template, "arguments": {"title": "A"}, "createFile": True, "targetPath": target}
    async with api(extensions=True) as http:
        first = await http.post("/templates/execute", json=body)
    assert first.status_code == 200
    assert first.json()["message"] == "Prompt executed and file created successfully"
    assert (vault / target).read_text(encoding="utf-8").startswith("# A\n")
    assert sorted(p.name for p in (vault / "T").iterdir()) == [target.removeprefix("T/")]


async def test_create_file_onto_a_taken_path_fails_and_writes_nothing(
    api: Api, vault: Path, template: str
) -> None:
    """vault.create throws on an existing file; the companion's catch-all answers 503."""
    (vault / "T").mkdir()
    (vault / "T" / "a.md").write_text("mine", encoding="utf-8")
    body = {"name": template, "arguments": {}, "createFile": True, "targetPath": "T/a.md"}
    async with api(extensions=True) as http:
        response = await http.post("/templates/execute", json=body)
    assert response.status_code == 503
    assert response.json() == {"error": "An error occurred while processing the prompt"}
    assert (vault / "T" / "a.md").read_text(encoding="utf-8") == "mine"
    assert sorted(p.name for p in (vault / "T").iterdir()) == ["a.md"]


async def test_a_missing_template_is_404(api: Api) -> None:
    async with api(extensions=True) as http:
        response = await http.post("/templates/execute", json={"name": "nope.md", "arguments": {}})
    assert response.status_code == 404
    assert response.json() == {"error": "File not found: nope.md"}


@pytest.mark.parametrize(
    ("body", "summary"),
    [
        pytest.param([], "must be an object (was an array)", id="not-an-object"),
        pytest.param({"arguments": {}}, "name must be a non-empty string (was null)", id="name"),
        pytest.param({"name": "t.md"}, "arguments must be an object (was null)", id="arguments"),
        pytest.param(
            {"name": "t.md", "arguments": {"a": 1}},
            "arguments.a must be a string (was number)",
            id="argument-value",
        ),
        pytest.param(
            {"name": "t.md", "arguments": {}, "createFile": "true"},
            "createFile must be boolean (was string)",
            id="create-file",
        ),
    ],
)
async def test_bad_bodies_are_400(api: Api, body: Any, summary: str) -> None:
    async with api(extensions=True) as http:
        response = await http.post("/templates/execute", json=body)
    assert response.status_code == 400
    assert response.json() == {"error": "Invalid request body", "summary": summary}


async def test_templates_need_the_extensions_flag(api: Api, template: str) -> None:
    async with api() as http:
        response = await http.post("/templates/execute", json={"name": template, "arguments": {}})
    assert response.status_code == 404
    assert response.json()["errorCode"] == 40400
