"""PATCH (1.x headers and the 5.x JSON instruction) and targeted PUT/POST, per version."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import anyio
import httpx
import pytest

from vaultgate.markdown import parse_frontmatter, parse_headings

from .conftest import PLAN, Api

pytestmark = pytest.mark.anyio

NOTE = "/vault/Projects/plan.md"
MD = {"Content-Type": "text/markdown"}
V1 = {"Markdown-Patch-Version": "1"}
V2 = {"Markdown-Patch-Version": "2"}
DEPRECATION = 'true; sunset-version="6.0"'
UNICODE = "# Café ☕\n\n## Tâches\n\nFaire.\n\n| City | Pop |\n| --- | --- |\n| Oslo | 1 |\n\n^t1\n"


def header_patch(operation: str, target_type: str, target: str, **more: str) -> dict[str, str]:
    return {
        **MD,
        "Operation": operation,
        "Target-Type": target_type,
        "Target": quote(target),
        **more,
    }


def plan(vault: Path) -> str:
    return (vault / "Projects" / "plan.md").read_text(encoding="utf-8")


def code(response: httpx.Response) -> int:
    value: int = response.json()["errorCode"]
    return value


def reason(response: httpx.Response) -> str:
    message: str = response.json()["message"]
    return message.split("\n", 1)[1]


@pytest.fixture
def unicode_note(vault: Path) -> str:
    (vault / "Unicode.md").write_text(UNICODE, encoding="utf-8")
    return "/vault/Unicode.md"


# --- 1.x header PATCH -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "extra"),
    [
        pytest.param("3.6.2", {}, id="3.6.2"),
        pytest.param("4.1.7", {}, id="4.1.7"),
        pytest.param("5.1.0", V1, id="5.1.0-with-version-1"),
    ],
)
async def test_a_full_heading_path_patches_and_returns_the_whole_note(
    api: Api, vault: Path, version: str, extra: dict[str, str]
) -> None:
    headers = header_patch("append", "heading", "Plan::Log", **extra)
    async with api(version) as http:
        response = await http.patch(NOTE, content="Second entry.\n", headers=headers)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.text == plan(vault) == PLAN + "Second entry.\n"


async def test_5x_refuses_1x_headers_without_a_version(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.patch(
            NOTE, content="x\n", headers=header_patch("append", "heading", "Plan::Log")
        )
    assert response.status_code == 400
    assert code(response) == 40084
    assert plan(vault) == PLAN


async def test_5x_marks_every_1x_answer_deprecated(api: Api) -> None:
    async with api() as http:
        ok = await http.patch(
            NOTE, content="x\n", headers=header_patch("append", "heading", "Plan::Log", **V1)
        )
        failed = await http.patch(
            NOTE, content="x\n", headers=header_patch("append", "heading", "Nope", **V1)
        )
    assert ok.headers["deprecation"] == failed.headers["deprecation"] == DEPRECATION


async def test_4x_answers_carry_no_deprecation(api: Api) -> None:
    async with api("4.1.7") as http:
        response = await http.patch(
            NOTE, content="x\n", headers=header_patch("append", "heading", "Plan::Log")
        )
    assert "deprecation" not in response.headers


@pytest.mark.parametrize(
    ("drop", "change", "expected"),
    [
        pytest.param("Target-Type", {}, 40053, id="no-target-type"),
        pytest.param("", {"Target-Type": "paragraph"}, 40054, id="bad-target-type"),
        pytest.param("Target", {}, 40055, id="no-target"),
        pytest.param("Operation", {}, 40056, id="no-operation"),
        pytest.param("", {"Operation": "upsert"}, 40057, id="bad-operation"),
        pytest.param("", {"Content-Type": "text/plain"}, 40012, id="not-markdown-or-json"),
        pytest.param(
            "", {"Content-Type": "text/markdown; charset=utf-8"}, 40012, id="charset-added"
        ),
    ],
)
@pytest.mark.parametrize("version", ["3.6.2", "4.1.7", "5.1.0"])
async def test_header_validation(
    api: Api, version: str, drop: str, change: dict[str, str], expected: int
) -> None:
    headers = {**header_patch("append", "heading", "Plan::Log", **V1), **change}
    headers.pop(drop, None)
    async with api(version) as http:
        response = await http.patch(NOTE, content="x", headers=headers)
    assert response.status_code == 400
    assert code(response) == expected


# --- 3.x's deprecated Heading PATCH (issue 36, difference 1) ------------------------------
# 3.6.2's _vaultPatch hands a PATCH with Heading and no Target-Type to _vaultPatchV2.

HEADING_LINK = (
    "<https://github.com/coddingtonbear/obsidian-local-rest-api/wiki/"
    'Changes-to-PATCH-requests-between-versions-2.0-and-3.0>; rel="alternate"'
)


@pytest.mark.parametrize(
    ("headers", "before", "after"),
    [
        pytest.param({"Heading": "Log"}, "First entry.\n", "First entry.\n\nx", id="end-of-note"),
        pytest.param(
            {"Heading": "Log", "Content-Insertion-Ignore-Newline": "TRUE"},
            "First entry.\n",
            "First entry.\nx\n",
            id="end-above-blank-lines",
        ),
        pytest.param(
            {"Heading": "Plan::Goals"},
            "More details here.\n\n## Log",
            "More details here.\n\nx\n## Log",
            id="before-the-next-heading-of-its-level",
        ),
        pytest.param(
            {"Heading": "Goals", "Content-Insertion-Ignore-Newline": "true"},
            "More details here.\n\n## Log",
            "More details here.\nx\n\n## Log",
            id="a-bare-name-matches-the-path-tail",
        ),
        pytest.param(
            {"Heading": "Plan|Goals", "Heading-Boundary": "|"},
            "More details here.\n\n## Log",
            "More details here.\n\nx\n## Log",
            id="own-boundary",
        ),
        pytest.param(
            {"Heading": "::Goals::", "Content-Insertion-Position": "beginning"},
            "## Goals\n\nShip",
            "## Goals\nx\n\nShip",
            id="beginning-empty-parts-dropped",
        ),
    ],
)
async def test_3x_applies_the_deprecated_heading_patch(
    api: Api, vault: Path, headers: dict[str, str], before: str, after: str
) -> None:
    async with api("3.6.2") as http:
        response = await http.patch(NOTE, content="x", headers={**MD, **headers})
    expected = PLAN.replace(before, after)
    assert expected != PLAN
    assert response.status_code == 200
    assert response.text == expected
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["deprecation"] == 'true; sunset-version="4.0"'
    assert response.headers["link"] == HEADING_LINK
    assert plan(vault) == expected


async def test_3x_heading_patch_takes_a_json_string_body(api: Api, vault: Path) -> None:
    async with api("3.6.2") as http:
        response = await http.patch(
            NOTE, content='"- item"', headers={"Content-Type": "application/json", "Heading": "Log"}
        )
    assert response.status_code == 200
    assert plan(vault) == PLAN + "\n- item"


@pytest.mark.parametrize(
    ("url", "headers", "status", "expected"),
    [
        pytest.param(NOTE, {**MD, "Heading": "Nope"}, 400, 40052, id="no-such-heading"),
        pytest.param(NOTE, {**MD, "Heading": "Nope::Goals"}, 400, 40052, id="wrong-parent"),
        pytest.param(
            NOTE,
            {**MD, "Heading": "Log", "Content-Insertion-Position": "middle"},
            400,
            40050,
            id="bad-position",
        ),
        pytest.param(NOTE, {**MD, "Heading": "::"}, 400, 40051, id="empty-heading-path"),
        pytest.param(NOTE, {"Heading": "Log"}, 400, 40010, id="body-not-text"),
        pytest.param("/vault/missing.md", {**MD, "Heading": "Log"}, 404, 40400, id="no-file"),
        pytest.param("/vault/Projects/", {**MD, "Heading": "Log"}, 405, 40510, id="a-folder"),
    ],
)
async def test_3x_heading_patch_errors_are_its_own(
    api: Api, vault: Path, url: str, headers: dict[str, str], status: int, expected: int
) -> None:
    async with api("3.6.2") as http:
        response = await http.patch(url, content="x", headers=headers)
    assert response.status_code == status
    assert code(response) == expected
    assert plan(vault) == PLAN


async def test_3x_heading_patch_on_a_note_without_headings_is_never_answered(
    api: Api, vault: Path
) -> None:
    answered = False
    with anyio.move_on_after(0.3):
        async with api("3.6.2") as http:
            await http.patch(
                "/vault/Notes/space name.md", content="x", headers={**MD, "Heading": "A"}
            )
            answered = True
    assert not answered  # Obsidian's cache has no headings list: the handler throws


@pytest.mark.parametrize("version", ["4.1.7", "5.1.0"])
async def test_from_4_0_1_a_heading_header_is_no_patch(api: Api, vault: Path, version: str) -> None:
    async with api(version) as http:
        response = await http.patch(NOTE, content="x", headers={**MD, **V1, "Heading": "Log"})
    assert code(response) == 40053
    assert plan(vault) == PLAN


# --- a Target that does not percent-decode (issue 36, difference 3) ------------------------
# The 1.x handler decodes Target with no try around it (3.6.2 _vaultPatchV3, 4.1.7
# _vaultPatch, 5.1.0's 1.x branch): URIError. 4.0+'s error handler makes that a 500 for
# /vault/; 3.x's async handlers, and /active/'s dropped promise, never answer.

UNDECODABLE = {**header_patch("append", "heading", "Plan::Log", **V1), "Target": "%ZZ"}


@pytest.mark.parametrize(
    ("version", "deprecation"),
    [pytest.param("4.1.7", None, id="4.1.7"), pytest.param("5.1.0", DEPRECATION, id="5.1.0-v1")],
)
async def test_an_undecodable_target_is_the_error_handlers_500(
    api: Api, vault: Path, version: str, deprecation: str | None
) -> None:
    async with api(version) as http:
        response = await http.patch(NOTE, content="x", headers=UNDECODABLE)
    assert response.status_code == 500
    assert response.json() == {
        "message": "Internal Server Error\nURI malformed",
        "errorCode": 50000,
    }
    assert response.headers.get("deprecation") == deprecation
    assert plan(vault) == PLAN


@pytest.mark.parametrize(
    ("version", "url"),
    [
        pytest.param("3.6.2", NOTE, id="3.6.2-vault"),
        pytest.param("3.6.2", "/vault/missing.md", id="3.6.2-before-the-file-is-looked-up"),
        pytest.param("4.1.7", "/active/", id="4.1.7-active"),
        pytest.param("4.1.7", "/periodic/daily/", id="4.1.7-periodic"),
        pytest.param("5.1.0", "/active/", id="5.1.0-active"),
    ],
)
async def test_an_undecodable_target_is_never_answered(
    api: Api, vault: Path, version: str, url: str
) -> None:
    answered = False
    with anyio.move_on_after(0.3):
        async with api(version, active_file="Projects/plan.md") as http:
            await http.patch(url, content="x", headers=UNDECODABLE)
            answered = True
    assert not answered
    assert plan(vault) == PLAN


async def test_raw_content_mode_still_answers_40058_for_an_undecodable_target(api: Api) -> None:
    headers = {**MD, "Operation": "append", "Target-Type": "heading", "Target": "%ZZ"}
    async with api() as http:
        response = await http.patch(NOTE, content="x", headers={**headers, **V2})
    assert code(response) == 40058


async def test_before_3_6_1_any_text_type_is_markdown(api: Api, vault: Path) -> None:
    headers = header_patch("append", "heading", "Plan::Log", **{"Content-Type": "text/plain"})
    async with api("3.6.0") as http:
        response = await http.patch(NOTE, content="Appended.\n", headers=headers)
    assert response.status_code == 200
    assert plan(vault).endswith("Appended.\n")


async def test_a_bare_sub_heading_is_an_invalid_target(api: Api, vault: Path) -> None:
    async with api("4.1.7") as http:
        response = await http.patch(
            NOTE, content="x\n", headers=header_patch("append", "heading", "Goals")
        )
    assert response.status_code == 400
    assert code(response) == 40080
    assert reason(response) == "invalid-target"
    assert plan(vault) == PLAN


async def test_create_if_missing_with_a_bare_name_appends_a_duplicate_heading(
    api: Api, vault: Path
) -> None:
    headers = header_patch("append", "heading", "Goals", **{"Create-Target-If-Missing": "true"})
    async with api("4.1.7") as http:
        response = await http.patch(NOTE, content="Oops.\n", headers=headers)
    assert response.status_code == 200
    assert plan(vault) == PLAN + "# Goals\nOops.\n"
    assert [h.full_path for h in parse_headings(plan(vault))].count("Goals") == 1
    assert [h.text for h in parse_headings(plan(vault))].count("Goals") == 2


async def test_unicode_targets_arrive_percent_encoded(
    api: Api, vault: Path, unicode_note: str
) -> None:
    headers = header_patch("append", "heading", "Café ☕::Tâches")
    async with api("4.1.7") as http:
        response = await http.patch(unicode_note, content="Écrire.\n", headers=headers)
    assert response.status_code == 200
    assert response.text.endswith("^t1\nÉcrire.\n")


async def test_trim_target_whitespace(api: Api, vault: Path) -> None:
    headers = header_patch(
        "prepend", "heading", "Plan::Goals", **{"Trim-Target-Whitespace": "true"}
    )
    async with api("4.1.7") as http:
        response = await http.patch(NOTE, content="Top goal.\n", headers=headers)
    assert response.status_code == 200
    assert "## Goals\nTop goal.\nShip the alpha. ^goal1" in plan(vault)


async def test_a_custom_delimiter(api: Api, vault: Path) -> None:
    headers = header_patch("append", "heading", "Plan|Log", **{"Target-Delimiter": "|"})
    async with api("4.1.7") as http:
        response = await http.patch(NOTE, content="Second.\n", headers=headers)
    assert response.status_code == 200
    assert plan(vault).endswith("First entry.\nSecond.\n")


@pytest.mark.parametrize(
    ("version", "headers", "fails"),
    [
        pytest.param("3.6.2", {}, True, id="3x-guard-on-by-default"),
        pytest.param("3.6.2", {"Apply-If-Content-Preexists": "true"}, False, id="3x-opt-out"),
        pytest.param("4.1.7", {}, False, id="4x-guard-off-by-default"),
        pytest.param("4.1.7", {"Reject-If-Content-Preexists": "true"}, True, id="4x-opt-in"),
        pytest.param("5.1.0", {**V1, "Reject-If-Content-Preexists": "true"}, True, id="5x-v1"),
    ],
)
async def test_the_content_exists_guard_by_version(
    api: Api, version: str, headers: dict[str, str], fails: bool
) -> None:
    request = header_patch("append", "heading", "Plan::Log", **headers)
    async with api(version) as http:
        response = await http.patch(NOTE, content="First entry.", headers=request)
    if fails:
        assert code(response) == 40080
        assert reason(response) == "content-already-preexists-in-target"
    else:
        assert response.status_code == 200


async def test_target_scope_is_checked_from_4_0(api: Api) -> None:
    headers = header_patch("append", "heading", "Plan::Log", **{"Target-Scope": "everything"})
    async with api("4.1.7") as http:
        checked = await http.patch(NOTE, content="x\n", headers=headers)
    async with api("3.6.2") as http:
        ignored = await http.patch(NOTE, content="x\n", headers=headers)
    assert code(checked) == 40059
    assert ignored.status_code == 200


@pytest.mark.parametrize(
    "value",
    ["text", 42, 1.5, True, None, ["x", 1], {"nested": {"deep": [1]}}],
    ids=["string", "integer", "float", "boolean", "null", "list", "object"],
)
async def test_json_frontmatter_values_keep_their_type(api: Api, vault: Path, value: Any) -> None:
    headers = header_patch(
        "replace", "frontmatter", "status", **{"Content-Type": "application/json"}
    )
    async with api("4.1.7") as http:
        response = await http.patch(NOTE, content=json.dumps(value), headers=headers)
        read = await http.get(f"{NOTE}/frontmatter/status")
    assert response.status_code == 200
    assert parse_frontmatter(plan(vault)).data["status"] == value
    assert read.json() == value


@pytest.mark.parametrize(
    ("operation", "body", "expected"),
    [
        pytest.param("append", ["new"], ["project", "work/tasks", "new"], id="list-concat"),
        pytest.param("prepend", ["new"], ["new", "project", "work/tasks"], id="list-prepend"),
    ],
)
async def test_json_lists_merge(
    api: Api, vault: Path, operation: str, body: Any, expected: Any
) -> None:
    headers = header_patch(operation, "frontmatter", "tags", **{"Content-Type": "application/json"})
    async with api("4.1.7") as http:
        await http.patch(NOTE, content=json.dumps(body), headers=headers)
    assert parse_frontmatter(plan(vault)).data["tags"] == expected


async def test_a_mismatched_merge_is_content_not_mergeable(api: Api) -> None:
    headers = header_patch("append", "frontmatter", "tags", **{"Content-Type": "application/json"})
    async with api("4.1.7") as http:
        response = await http.patch(NOTE, content='"scalar"', headers=headers)
    assert reason(response) == "content-not-mergeable"


async def test_json_rows_extend_a_labelled_table(api: Api, vault: Path, unicode_note: str) -> None:
    headers = header_patch("append", "block", "t1", **{"Content-Type": "application/json"})
    async with api("4.1.7") as http:
        added = await http.patch(unicode_note, content='[["Rome", "2"]]', headers=headers)
        wrong = await http.patch(unicode_note, content='[["Rome"]]', headers=headers)
    assert added.status_code == 200
    assert "| Oslo | 1 |\n| Rome | 2 |\n\n^t1\n" in added.text
    assert reason(wrong) == "table-content-incorrect-column-count"


async def test_unparseable_json_is_40015(api: Api) -> None:
    headers = header_patch("append", "frontmatter", "tags", **{"Content-Type": "application/json"})
    async with api("4.1.7") as http:
        response = await http.patch(NOTE, content="[unclosed", headers=headers)
    assert code(response) == 40015


@pytest.mark.parametrize(
    ("version", "status", "expected"),
    [
        pytest.param("4.1.4", 500, 50000, id="before-4.1.5"),
        pytest.param("4.1.5", 400, 40005, id="from-4.1.5"),
    ],
)
async def test_broken_frontmatter(
    api: Api, vault: Path, version: str, status: int, expected: int
) -> None:
    (vault / "broken.md").write_text("---\nk: [unclosed\n---\n# A\n", encoding="utf-8")
    async with api(version) as http:
        response = await http.patch(
            "/vault/broken.md", content="x\n", headers=header_patch("append", "heading", "A")
        )
    assert response.status_code == status
    assert code(response) == expected


@pytest.mark.parametrize("version", ["3.6.2", "4.1.7"])
async def test_patching_a_missing_note_is_404(api: Api, version: str) -> None:
    async with api(version) as http:
        response = await http.patch(
            "/vault/missing.md", content="x", headers=header_patch("append", "heading", "A")
        )
    assert response.status_code == 404


async def test_patching_a_folder_is_40510(api: Api) -> None:
    async with api("4.1.7") as http:
        response = await http.patch(
            "/vault/Projects/", content="x", headers=header_patch("append", "heading", "A")
        )
    assert code(response) == 40510


# Before 5.0 a PATCH never reads a target from its URL: the whole decoded path is the file's
# ('plan.md/heading/Plan/Log', which does not exist). 4.x checks its headers first, 3.6.x
# looks the file up first (the real handlers' answers, cases 83-87 of the differential run).
@pytest.mark.parametrize(
    ("version", "url", "headers", "status", "error_code"),
    [
        pytest.param(
            "4.1.7",
            f"{NOTE}/heading/Plan/Log",
            header_patch("append", "heading", "Plan"),
            404,
            40400,
            id="4.1.7-headers-too",
        ),
        pytest.param(
            "4.1.7",
            f"{NOTE}/heading/Plan/Log",
            {**MD, "Operation": "append"},
            400,
            40053,
            id="4.1.7-no-target-type",
        ),
        pytest.param(
            "4.1.7",
            f"{NOTE}/heading/Plan/Log",
            {**MD, **V1, "Operation": "append"},
            400,
            40053,
            id="4.1.7-version-1",
        ),
        pytest.param(
            "4.1.7",
            f"{NOTE}/heading/Plan/Log",
            {"Content-Type": "application/vnd.olrapi.patch-instruction+json"},
            400,
            40053,
            id="4.1.7-instruction-type",
        ),
        pytest.param(
            "4.1.7",
            "/vault/missing.md/heading/A",
            {**MD, "Operation": "append"},
            400,
            40053,
            id="4.1.7-missing-note",
        ),
        pytest.param(
            "3.6.2",
            f"{NOTE}/heading/Plan/Log",
            header_patch("append", "heading", "Plan"),
            404,
            40400,
            id="3.6.2-headers-too",
        ),
        pytest.param(
            "3.6.2",
            f"{NOTE}/heading/Plan/Log",
            {**MD, **V1, "Operation": "append"},
            404,
            40400,
            id="3.6.2-version-1",
        ),
        pytest.param(
            "3.6.2",
            f"{NOTE}/heading/Plan/Log",
            {"Content-Type": "application/vnd.olrapi.patch-instruction+json"},
            404,
            40400,
            id="3.6.2-instruction-type",
        ),
    ],
)
async def test_before_5_a_patch_takes_its_whole_path_as_the_file(
    api: Api,
    vault: Path,
    version: str,
    url: str,
    headers: dict[str, str],
    status: int,
    error_code: int,
) -> None:
    async with api(version) as http:
        response = await http.patch(url, content="Second.\n", headers=headers)
    assert (response.status_code, code(response)) == (status, error_code)
    assert plan(vault) == PLAN  # never applied to the note the URL begins with


@pytest.mark.parametrize("version", ["3.6.2", "4.1.7"])
async def test_before_5_an_active_patch_ignores_its_url_suffix(
    api: Api, vault: Path, version: str
) -> None:
    async with api(version, active_file="Projects/plan.md") as http:
        response = await http.patch(
            "/active/heading/Nowhere",
            content="Second.",
            headers=header_patch("append", "heading", "Plan::Log"),
        )
    assert response.status_code == 200
    assert plan(vault) != PLAN


async def test_5x_version_1_refuses_a_url_target(api: Api) -> None:
    async with api() as http:
        response = await http.patch(
            f"{NOTE}/heading/Plan/Log", content="x", headers={**MD, **V1, "Operation": "append"}
        )
    assert code(response) == 40082
    assert "path-element targeting" in response.json()["message"]


# --- 5.x JSON instruction -------------------------------------------------------------------


@pytest.mark.parametrize(
    "content_type", ["application/json", "application/vnd.olrapi.patch-instruction+json"]
)
async def test_a_json_instruction_patches(api: Api, vault: Path, content_type: str) -> None:
    instruction = {
        "targetType": "heading",
        "target": ["Plan", "Log"],
        "operation": "append",
        "content": "Second entry.",
    }
    async with api() as http:
        response = await http.patch(
            NOTE, content=json.dumps(instruction), headers={"Content-Type": content_type}
        )
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    assert "deprecation" not in response.headers
    assert response.text == plan(vault) == PLAN + "\nSecond entry.\n"


@pytest.mark.parametrize(
    ("instruction", "status", "expected_code"),
    [
        pytest.param(
            {"targetType": "heading", "target": ["Goals"], "operation": "append", "content": "x"},
            404,
            40400,
            id="bare-leaf-not-found",
        ),
        pytest.param(
            {"targetType": "heading", "target": "Plan::Log", "operation": "append", "content": "x"},
            400,
            40081,
            id="1x-style-target",
        ),
        pytest.param(
            {
                "targetType": "heading",
                "target": ["Plan", "Log"],
                "operation": "append",
                "content": "First entry.",
                "rejectIfContentPreexists": True,
            },
            409,
            40900,
            id="reject-if-content-preexists",
        ),
        pytest.param(
            {
                "targetType": "heading",
                "target": ["Plan"],
                "operation": "append",
                "content": "x",
                "ifMatch": "stale",
            },
            412,
            41200,
            id="if-match",
        ),
        pytest.param(
            {"targetType": "frontmatter", "target": "tags", "operation": "append", "value": "x"},
            400,
            40080,
            id="merge-mismatch",
        ),
    ],
)
async def test_instruction_failures(
    api: Api, vault: Path, instruction: dict[str, Any], status: int, expected_code: int
) -> None:
    async with api() as http:
        response = await http.patch(NOTE, json=instruction)
    assert response.status_code == status
    assert code(response) == expected_code
    assert plan(vault) == PLAN


async def test_a_markdown_body_without_targeting_is_not_an_instruction(api: Api) -> None:
    async with api() as http:
        response = await http.patch(NOTE, content="just text", headers=MD)
    assert code(response) == 40081
    assert "Markdown-Patch-Version: 1" in response.json()["message"]


async def test_json_frontmatter_instruction_creates_a_key(api: Api, vault: Path) -> None:
    instruction = {
        "targetType": "frontmatter",
        "target": "reviewed",
        "operation": "replace",
        "value": {"by": "me", "ok": True},
        "createTargetIfMissing": True,
    }
    async with api() as http:
        response = await http.patch(NOTE, json=instruction)
    assert response.status_code == 200
    assert parse_frontmatter(plan(vault)).data["reviewed"] == {"by": "me", "ok": True}


async def test_raw_content_mode_with_a_url_target(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.patch(
            f"{NOTE}/heading/Plan/Log", content="Second.", headers={**MD, "Operation": "append"}
        )
        missing_operation = await http.patch(f"{NOTE}/heading/Plan/Log", content="x", headers=MD)
    assert response.status_code == 200
    assert plan(vault).endswith("First entry.\n\nSecond.\n")
    assert code(missing_operation) == 40056


async def test_raw_content_mode_with_header_targets_needs_version_2(api: Api, vault: Path) -> None:
    target = quote(json.dumps(["Plan", "Log"]))
    headers = {**MD, "Operation": "append", "Target-Type": "heading", "Target": target}
    async with api() as http:
        ambiguous = await http.patch(NOTE, content="x", headers=headers)
        explicit = await http.patch(
            NOTE, content="Second.", headers={**headers, "Markdown-Patch-Version": "2"}
        )
        not_json = await http.patch(
            NOTE,
            content="x",
            headers={**headers, "Markdown-Patch-Version": "2", "Target": "Plan::Log"},
        )
    assert code(ambiguous) == 40084
    assert explicit.status_code == 200
    assert code(not_json) == 40058


@pytest.mark.parametrize(
    ("url", "headers"),
    [
        pytest.param(
            f"{NOTE}/heading/Plan",
            {**MD, "Operation": "append", "Target-Type": "heading", "Target": "Plan"},
            id="url-and-headers",
        ),
        pytest.param(
            f"{NOTE}/heading/Plan",
            {"Content-Type": "application/vnd.olrapi.patch-instruction+json"},
            id="url-and-instruction-body",
        ),
    ],
)
async def test_two_target_specifications_conflict(
    api: Api, url: str, headers: dict[str, str]
) -> None:
    async with api() as http:
        response = await http.patch(url, content="{}", headers=headers)
    assert response.status_code == 422
    assert code(response) == 42200


async def test_a_bad_markdown_patch_version_is_40082(api: Api) -> None:
    async with api() as http:
        response = await http.patch(NOTE, json={}, headers={"Markdown-Patch-Version": "3"})
    assert code(response) == 40082


async def test_warnings_travel_percent_encoded(api: Api, vault: Path) -> None:
    (vault / "deep.md").write_text("# 1\n## 2\n### 3\n#### 4\n##### 5\n###### Ü\n", "utf-8")
    instruction = {
        "targetType": "heading",
        "target": ["1", "2", "3", "4", "5", "Ü"],
        "operation": "append",
        "content": "# Sieben",
    }
    async with api() as http:
        response = await http.patch("/vault/deep.md", json=instruction)
    warnings = json.loads(unquote(response.headers["markdown-patch-warnings"]))
    assert warnings[0]["code"] == "heading-depth-overflow"


# --- PUT / POST aimed at a target -----------------------------------------------------------


async def test_5x_put_to_a_heading_replaces_it_and_creates_a_missing_one(
    api: Api, vault: Path
) -> None:
    async with api() as http:
        replaced = await http.put(f"{NOTE}/heading/Plan/Goals", content="Replaced.", headers=MD)
        created = await http.put(f"{NOTE}/heading/Plan/Risks", content="None.", headers=MD)
    assert replaced.status_code == created.status_code == 200
    assert replaced.headers["content-type"] == "text/markdown; charset=utf-8"
    text = plan(vault)
    assert "## Goals\n\nReplaced.\n\n## Log" in text
    assert text.endswith("First entry.\n\n## Risks\nNone.\n")


async def test_5x_post_appends_to_a_block_and_put_sets_frontmatter(api: Api, vault: Path) -> None:
    async with api() as http:
        block = await http.post(f"{NOTE}/block/goal1", content=" Soon.", headers=MD)
        value = await http.put(
            f"{NOTE}/frontmatter/priority",
            content="7",
            headers={"Content-Type": "application/json"},
        )
        text = await http.put(f"{NOTE}/frontmatter/status", content="done", headers=MD)
    assert block.status_code == value.status_code == text.status_code == 200
    assert "Ship the alpha. Soon. ^goal1" in plan(vault)
    data = parse_frontmatter(plan(vault)).data
    assert data["priority"] == 7
    assert data["status"] == "done"


async def test_4x_url_targeted_writes_use_the_1x_engine(api: Api, vault: Path) -> None:
    async with api("4.1.7") as http:
        response = await http.post(f"{NOTE}/heading/Plan/Log", content="Second.\n", headers=MD)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert plan(vault).endswith("First entry.\nSecond.\n")


async def test_header_targeted_writes_need_version_1_on_5x(api: Api, vault: Path) -> None:
    headers = {**MD, "Target-Type": "heading", "Target": "Plan::Log"}
    async with api() as http:
        refused = await http.post(NOTE, content="x\n", headers=headers)
        accepted = await http.post(NOTE, content="Second.\n", headers={**headers, **V1})
    assert code(refused) == 40083
    assert accepted.status_code == 200
    assert accepted.headers["deprecation"] == DEPRECATION
    assert plan(vault).endswith("First entry.\nSecond.\n")


async def test_header_targeted_put_on_3_6_replaces_a_section(api: Api, vault: Path) -> None:
    headers = {**MD, "Target-Type": "heading", "Target": "Plan::Log"}
    async with api("3.6.2") as http:
        response = await http.put(NOTE, content="Rewritten.\n", headers=headers)
    assert response.status_code == 200
    assert plan(vault).endswith("## Log\nRewritten.\n")


async def test_url_and_header_targets_conflict_on_put(api: Api) -> None:
    headers = {**MD, "Target-Type": "heading", "Target": "Plan"}
    async with api() as http:
        response = await http.put(f"{NOTE}/heading/Plan", content="x", headers=headers)
    assert code(response) == 42200


async def test_1x_only_headers_on_a_5x_url_target_need_version_1(api: Api) -> None:
    async with api() as http:
        response = await http.put(
            f"{NOTE}/heading/Plan", content="x", headers={**MD, "Target-Scope": "content"}
        )
    assert code(response) == 40083


# --- checks the plugin makes before its engines ---------------------------------------------


@pytest.mark.parametrize("scope", ["marker", "markerAndContent"])
async def test_5x_1x_frontmatter_takes_no_marker_scope(api: Api, vault: Path, scope: str) -> None:
    headers = {
        **V1,
        **header_patch("replace", "frontmatter", "status", **{"Target-Scope": scope}),
        "Content-Type": "application/json",
    }
    async with api() as http:
        response = await http.patch(NOTE, content=b'"x"', headers=headers)
    assert response.status_code == 400
    assert response.json() == {
        "message": "The target scope you specified was invalid.",
        "errorCode": 40059,
    }
    assert response.headers["deprecation"] == DEPRECATION
    assert plan(vault) == PLAN


async def test_4x_frontmatter_with_a_marker_scope_reaches_the_engine(api: Api) -> None:
    headers = {
        **header_patch("replace", "frontmatter", "status", **{"Target-Scope": "marker"}),
        "Content-Type": "application/json",
    }
    async with api("4.1.7") as http:
        response = await http.patch(NOTE, content=b'"x"', headers=headers)
    assert response.status_code == 200


async def test_4x_an_invalid_scope_is_the_canned_sentence_alone(api: Api) -> None:
    headers = header_patch("append", "heading", "Plan", **{"Target-Scope": "parent"})
    async with api("4.1.7") as http:
        response = await http.patch(NOTE, content=b"x", headers=headers)
    assert response.json() == {
        "message": "The 'Target-Scope' header you provided was invalid. Valid values are "
        "'content', 'marker', and 'markerAndContent'.",
        "errorCode": 40059,
    }


RAW = {
    "Markdown-Patch-Version": "2",
    "Target-Type": "heading",
    "Target": quote(json.dumps(["Plan", "Goals"])),
    "Operation": "append",
    "Content-Type": "text/markdown",
}


@pytest.mark.parametrize("within", [b"1x", b"", b" ", b"1.0", b"+1", b"0x1", "١".encode()])
async def test_raw_mode_refuses_a_within_that_is_not_one_integer(
    api: Api, vault: Path, within: bytes
) -> None:
    headers: dict[str, str | bytes] = {**RAW, "Within": within}
    async with api() as http:
        response = await http.patch(NOTE, content="日本 🚀".encode(), headers=headers)
    assert response.status_code == 400
    assert response.json() == {
        "message": "The 'Within' header must be a single integer, e.g. 0 or -1.",
        "errorCode": 40023,
    }
    assert plan(vault) == PLAN


@pytest.mark.parametrize("within", ["0", "-1", " 2 "])
async def test_raw_mode_passes_a_valid_within_to_the_engine(
    api: Api, vault: Path, within: str
) -> None:
    async with api() as http:
        response = await http.patch(NOTE, content=b"x", headers={**RAW, "Within": within})
    assert code(response) == 40081  # the emulated engine does not do `within`
    assert "within is not emulated" in response.json()["message"]
    assert plan(vault) == PLAN


async def test_raw_mode_bad_destination_says_what_the_header_must_be(api: Api) -> None:
    headers = {k: v for k, v in RAW.items() if k != "Content-Type"}
    headers.update({"Operation": "replace", "Target-Scope": "parent", "Destination": "not-json"})
    async with api() as http:
        response = await http.patch(NOTE, headers=headers)
    assert response.json()["errorCode"] == 40022
    assert (
        response.json()["message"]
        .split("\n")[1]
        .startswith("The 'Destination' header must be percent-encoded JSON, e.g. %7B%22parent%22")
    )


async def test_raw_mode_octet_stream_message_names_the_bodyless_uses(api: Api) -> None:
    headers = {**RAW, "Content-Type": "application/octet-stream"}
    async with api() as http:
        response = await http.patch(NOTE, content=b"\x00", headers=headers)
    assert code(response) == 40012
    assert response.json()["message"].endswith(
        "or no body at all (a delete, or a move via the Destination header)."
    )


async def test_a_patch_without_body_or_content_type_is_judged_by_the_schema(api: Api) -> None:
    async with api() as http:
        response = await http.patch(NOTE)
    assert code(response) == 40081
    message = response.json()["message"]
    assert "targetType: Required" in message
    assert "A PATCH expects a JSON instruction object" not in message
