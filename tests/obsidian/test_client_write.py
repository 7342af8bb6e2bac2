"""The client's writes: request shapes per plugin version, version gates, error translation,
and no retry of anything that may already have been applied."""

from __future__ import annotations

import datetime
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
import respx
from obsidian_fakes import API_KEY, serve_version

from vaultgate.backend import Note
from vaultgate.errors import (
    DestinationExists,
    FeatureUnavailable,
    InvalidArgument,
    InvalidPath,
    MalformedAnswer,
    NotFound,
    ObsidianAPIError,
    ObsidianError,
    ObsidianUnreachable,
    PatchRejected,
)
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.patch_request import PatchRequest

pytestmark = pytest.mark.anyio

Call = Callable[[ObsidianClient], Awaitable[Any]]

VERSIONS = ["3.6.2", "4.1.7", "5.1.0"]
UPDATED = "# Plan\n\n## Goals\n\n- ship it\n- Été 🚀\n"


def error(status: int, code: int, message: str) -> httpx.Response:
    return httpx.Response(status, json={"message": message, "errorCode": code})


def heading_patch(**changes: Any) -> PatchRequest:
    values: dict[str, Any] = {
        "operation": "append",
        "target_type": "heading",
        "target": ("Plan", "Goals"),
        "content": "- Été 🚀",
    }
    values.update(changes)
    return PatchRequest(**values)


# --- whole-note writes ------------------------------------------------------------------------

NOTE_PATHS = [
    pytest.param("Projects/plan.md", "/vault/Projects/plan.md", id="plain"),
    pytest.param("Café/naïve #1.md", "/vault/Caf%C3%A9/na%C3%AFve%20%231.md", id="unicode"),
    pytest.param("100%/why?.md", "/vault/100%25/why%3F.md", id="reserved"),
    pytest.param(None, "/active/", id="active-file"),
]


@pytest.mark.parametrize(("path", "raw_path"), NOTE_PATHS)
@pytest.mark.parametrize(
    ("write", "method"),
    [
        pytest.param(lambda c, p, t: c.write_note(p, t), "PUT", id="write_note"),
        pytest.param(lambda c, p, t: c.append_note(p, t), "POST", id="append_note"),
    ],
)
async def test_whole_note_writes_send_markdown_text_to_the_encoded_path(
    client: ObsidianClient,
    router: respx.Router,
    write: Callable[[ObsidianClient, str | None, str], Awaitable[None]],
    method: str,
    path: str | None,
    raw_path: str,
) -> None:
    root = serve_version(router, "5.1.0")
    route = router.route(method=method, path__regex=r"^/(vault|active)/").respond(204)

    assert await write(client, path, "# Été 🚀\n") is None

    request = route.calls.last.request
    assert request.url.raw_path == raw_path.encode("ascii")
    assert request.headers["Content-Type"] == "text/markdown"
    assert request.content == "# Été 🚀\n".encode()
    assert request.headers["Authorization"] == f"Bearer {API_KEY}"
    assert root.call_count == 0  # the same request on every plugin version


HALF_EMOJI = "\ud83d"  # JSON can carry it ("\\ud83d"); UTF-8 cannot


@pytest.mark.parametrize(
    ("call", "named"),
    [
        pytest.param(lambda c: c.write_note("a.md", f"x{HALF_EMOJI}"), "content", id="put"),
        pytest.param(lambda c: c.append_note("a.md", HALF_EMOJI), "content", id="post"),
        pytest.param(lambda c: c.write_note(f"{HALF_EMOJI}.md", "x"), "path", id="path"),
        pytest.param(
            lambda c: c.patch_note("a.md", heading_patch(content=HALF_EMOJI)),
            "content",
            id="patch-content",
        ),
        pytest.param(
            lambda c: c.patch_note("a.md", heading_patch(target=("A", HALF_EMOJI))),
            "target",
            id="patch-target",
        ),
        pytest.param(lambda c: c.search_simple(HALF_EMOJI, 10), "query", id="search"),
        pytest.param(
            lambda c: c.search_smart(HALF_EMOJI, folders=None, exclude_folders=None, limit=5),
            "query",
            id="smart-search",
        ),
        pytest.param(lambda c: c.execute_command(f"x:{HALF_EMOJI}"), "commandId", id="command"),
    ],
)
async def test_half_a_character_is_refused_before_anything_is_sent(
    client: ObsidianClient,
    router: respx.Router,
    call: Callable[[ObsidianClient], Awaitable[object]],
    named: str,
) -> None:
    serve_version(router, "5.1.0")
    sent = router.route(method__in=["PUT", "POST", "PATCH"]).respond(204)

    with pytest.raises(InvalidArgument, match="half of a character") as caught:
        await call(client)

    assert named in str(caught.value)
    assert not sent.called


@pytest.mark.parametrize(
    "content",
    [
        pytest.param("", id="empty"),
        pytest.param('{"looks": ["like", "json"]}', id="json-looking"),
        pytest.param("line\r\nwith CRLF 日本 🚀", id="crlf-cjk-emoji"),
    ],
)
@pytest.mark.parametrize(
    ("write", "version"),
    [
        pytest.param(lambda c, t: c.write_note("a.md", t), "5.1.0", id="put"),
        pytest.param(lambda c, t: c.append_note("a.md", t), "5.1.0", id="post"),
        pytest.param(lambda c, t: c.append_periodic("daily", t, None), "4.1.7", id="periodic"),
    ],
)
async def test_every_write_with_a_body_says_the_body_is_markdown(
    client: ObsidianClient,
    router: respx.Router,
    write: Callable[[ObsidianClient, str], Awaitable[None]],
    version: str,
    content: str,
) -> None:
    # Without a Content-Type the real plugin stores '{}' in place of the note; with
    # application/json it stores the body re-serialised.
    serve_version(router, version)
    route = router.route(method__in=["PUT", "POST"]).respond(204)

    await write(client, content)

    request = route.calls.last.request
    assert request.headers["Content-Type"] == "text/markdown"
    assert request.content == content.encode("utf-8")


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda c: c.write_note("../escape.md", "x"), id="write"),
        pytest.param(lambda c: c.append_note("/abs.md", "x"), id="append"),
        pytest.param(lambda c: c.patch_note("a\\b.md", heading_patch()), id="patch"),
        pytest.param(lambda c: c.delete_note("a//b.md", permanent=True), id="delete"),
        pytest.param(lambda c: c.move_note("../a.md", "b.md", overwrite=False), id="move-source"),
        pytest.param(lambda c: c.move_note("a.md", "/b.md", overwrite=False), id="move-dest"),
        pytest.param(lambda c: c.note_size("./a.md"), id="note_size"),
        pytest.param(lambda c: c.open_note("", new_leaf=False), id="open"),
    ],
)
async def test_bad_paths_are_refused_before_any_request(
    client: ObsidianClient, router: respx.Router, write: Call
) -> None:
    anything = router.route().respond(204)

    with pytest.raises(InvalidPath):
        await write(client)
    assert anything.call_count == 0


# --- PATCH ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "headers"),
    [
        pytest.param(
            "3.6.2",
            {
                "Operation": "append",
                "Target-Type": "heading",
                "Target": "Plan::Goals",
                "Target-Delimiter": "::",
                "Create-Target-If-Missing": "false",
                "Content-Type": "text/markdown",
                "Markdown-Patch-Version": "1",
                "Apply-If-Content-Preexists": "true",
            },
            id="3.6.2",
        ),
        pytest.param(
            "4.1.7",
            {
                "Operation": "append",
                "Target-Type": "heading",
                "Target": "Plan::Goals",
                "Target-Delimiter": "::",
                "Create-Target-If-Missing": "false",
                "Content-Type": "text/markdown",
                "Markdown-Patch-Version": "1",
            },
            id="4.1.7",
        ),
    ],
)
async def test_patch_before_5_0_sends_1x_headers_and_a_markdown_body(
    client: ObsidianClient, router: respx.Router, version: str, headers: dict[str, str]
) -> None:
    serve_version(router, version)
    route = router.patch("/vault/Plan.md").respond(200, text=UPDATED)

    assert await client.patch_note("Plan.md", heading_patch()) == UPDATED

    request = route.calls.last.request
    sent = {name: request.headers[name] for name in headers}
    assert sent == headers
    assert "Reject-If-Content-Preexists" not in request.headers
    assert ("Apply-If-Content-Preexists" in request.headers) is version.startswith("3.")
    assert request.content == "- Été 🚀".encode()


async def test_patch_on_5x_sends_the_json_instruction(
    client: ObsidianClient, router: respx.Router
) -> None:
    serve_version(router, "5.1.0")
    route = router.patch("/vault/Plan.md").respond(200, text=UPDATED)

    assert await client.patch_note("Plan.md", heading_patch()) == UPDATED

    request = route.calls.last.request
    assert request.headers["Content-Type"] == "application/json"
    for header in ("Markdown-Patch-Version", "Operation", "Target-Type", "Target"):
        assert header not in request.headers
    assert json.loads(request.content) == {
        "targetType": "heading",
        "target": ["Plan", "Goals"],
        "operation": "append",
        "content": "- Été 🚀",
        "createTargetIfMissing": False,
    }


@pytest.mark.parametrize("version", VERSIONS)
async def test_patch_of_the_active_file_goes_to_active(
    client: ObsidianClient, router: respx.Router, version: str
) -> None:
    serve_version(router, version)
    route = router.patch("/active/").respond(200, text=UPDATED)

    assert await client.patch_note(None, heading_patch(operation="replace")) == UPDATED
    assert route.call_count == 1


@pytest.mark.parametrize("version", VERSIONS)
async def test_non_ascii_headings_are_encoded_as_each_version_needs(
    client: ObsidianClient, router: respx.Router, version: str
) -> None:
    serve_version(router, version)
    route = router.patch("/vault/Caf%C3%A9.md").respond(200, text=UPDATED)

    await client.patch_note("Café.md", heading_patch(target=("Résumé", "Ünïcode 🚀")))

    request = route.calls.last.request
    if version == "5.1.0":
        assert "Résumé".encode() in request.content
        assert json.loads(request.content)["target"] == ["Résumé", "Ünïcode 🚀"]
    else:
        assert request.headers["Target"] == "R%C3%A9sum%C3%A9::%C3%9Cn%C3%AFcode %F0%9F%9A%80"


JSON_CONTENT = [
    pytest.param('"in progress"', "in progress", id="string"),
    pytest.param("42", 42, id="number"),
    pytest.param("false", False, id="bool"),
    pytest.param("null", None, id="null"),
    pytest.param('["a", "b"]', ["a", "b"], id="list"),
    pytest.param('{"owner": "Zoë"}', {"owner": "Zoë"}, id="object"),
]


@pytest.mark.parametrize(("text", "value"), JSON_CONTENT)
@pytest.mark.parametrize("version", VERSIONS)
async def test_json_frontmatter_values_keep_their_type_on_every_version(
    client: ObsidianClient, router: respx.Router, version: str, text: str, value: Any
) -> None:
    serve_version(router, version)
    route = router.patch("/vault/Plan.md").respond(200, text=UPDATED)
    patch = PatchRequest(
        operation="replace",
        target_type="frontmatter",
        target="status",
        content=text,
        content_type="json",
        create_target_if_missing=True,
    )

    await client.patch_note("Plan.md", patch)

    request = route.calls.last.request
    assert request.headers["Content-Type"] == "application/json"
    if version == "5.1.0":
        assert json.loads(request.content)["value"] == value
        assert json.loads(request.content)["createTargetIfMissing"] is True
    else:
        assert json.loads(request.content) == value
        assert request.headers["Target-Type"] == "frontmatter"
        assert request.headers["Create-Target-If-Missing"] == "true"


async def test_patch_with_invalid_json_content_sends_nothing(
    client: ObsidianClient, router: respx.Router
) -> None:
    anything = router.route().respond(200)

    with pytest.raises(InvalidArgument, match="contentType='json'"):
        await client.patch_note("Plan.md", heading_patch(content="{oops", content_type="json"))
    assert anything.call_count == 0


PATCH_REASONS = [
    pytest.param("invalid-target", "format='map' to see the heading paths", id="invalid-target"),
    pytest.param(
        "content-already-preexists-in-target", "already in the target", id="content-exists"
    ),
    pytest.param(
        "table-content-incorrect-column-count", "as many cells as", id="table-column-count"
    ),
    pytest.param("content-type-invalid", "markdown text, or JSON", id="content-type-invalid"),
    pytest.param(
        "content-type-invalid-for-target", "cannot be used on this target", id="invalid-for-target"
    ),
    pytest.param(
        "content-not-mergeable",
        "The frontmatter value has another type; replace it instead of appending",
        id="not-mergeable",
    ),
    pytest.param("something-new", "format='map' to check the target", id="unknown-reason"),
]


@pytest.mark.parametrize(("reason", "hint"), PATCH_REASONS)
@pytest.mark.parametrize("version", ["3.6.2", "4.1.7"])
async def test_a_failed_patch_names_its_reason_and_what_to_do(
    client: ObsidianClient, router: respx.Router, version: str, reason: str, hint: str
) -> None:
    serve_version(router, version)
    router.patch("/vault/Plan.md").mock(
        return_value=error(
            400,
            40080,
            f"The patch you provided could not be applied to the target content.\n{reason}",
        )
    )

    with pytest.raises(PatchRejected) as caught:
        await client.patch_note("Plan.md", heading_patch())

    assert caught.value.reason == reason
    assert (caught.value.status, caught.value.error_code) == (400, 40080)
    assert hint in str(caught.value)
    assert reason in str(caught.value)


async def test_a_failed_patch_without_a_reason_line_still_says_what_to_do(
    client: ObsidianClient, router: respx.Router
) -> None:
    serve_version(router, "4.1.7")
    router.patch("/vault/Plan.md").mock(return_value=error(400, 40080, "Patch failed"))

    with pytest.raises(PatchRejected, match="format='map'") as caught:
        await client.patch_note("Plan.md", heading_patch())
    assert caught.value.reason is None


PATCH_ERRORS = [
    pytest.param(
        "5.1.0",
        error(400, 40081, "The patch instruction was malformed.\ntarget: Required"),
        ObsidianAPIError,
        {"error_code": 40081},
        "the message names the field",
        id="40081-invalid-instruction",
    ),
    pytest.param(
        "5.1.0",
        error(400, 40084, "Header-based PATCH targeting is ambiguous."),
        ObsidianAPIError,
        {"error_code": 40084},
        "needs Markdown-Patch-Version",
        id="40084-needs-the-version-header",
    ),
    pytest.param(
        "4.1.7",
        error(400, 40005, "Document frontmatter could not be parsed."),
        ObsidianAPIError,
        {"error_code": 40005},
        "YAML frontmatter cannot be parsed",
        id="40005-bad-frontmatter",
    ),
    pytest.param(
        "3.6.2",
        error(405, 40510, "Request method is valid only for file paths, not directories."),
        ObsidianAPIError,
        {"status": 405, "error_code": 40510},
        "That path is a folder",
        id="40510-a-folder",
    ),
    pytest.param(
        "5.1.0",
        error(409, 40900, "Conflict"),
        PatchRejected,
        {"status": 409, "reason": None},
        "already in the target, or a frontmatter key of that name exists",
        id="409-content-exists-on-5x",
    ),
    pytest.param(
        "5.1.0",
        error(412, 41200, "Precondition Failed"),
        ObsidianAPIError,
        {"status": 412},
        "changed while this was applied",
        id="412-changed-meanwhile",
    ),
    pytest.param(
        "5.1.0",
        error(404, 40400, "Not Found"),
        NotFound,
        {"path": "Plan.md"},
        "Either the note or its heading 'Plan::Goals' is missing",
        id="404-on-5x-note-or-target",
    ),
    pytest.param(
        "4.1.7",
        error(404, 40400, "Not Found"),
        NotFound,
        {"path": "Plan.md"},
        'list_vault_files(directory="")',
        id="404-on-4x-the-note",
    ),
]


@pytest.mark.parametrize(("version", "answer", "expected", "fields", "hint"), PATCH_ERRORS)
async def test_patch_errors_become_clear_errors(
    client: ObsidianClient,
    router: respx.Router,
    version: str,
    answer: httpx.Response,
    expected: type[ObsidianError],
    fields: dict[str, Any],
    hint: str,
) -> None:
    serve_version(router, version)
    router.patch("/vault/Plan.md").mock(return_value=answer)

    with pytest.raises(expected) as caught:
        await client.patch_note("Plan.md", heading_patch())

    assert type(caught.value) is expected
    for name, value in fields.items():
        assert getattr(caught.value, name) == value
    assert hint in str(caught.value)


async def test_a_missing_4x_note_hint_does_not_blame_the_target(
    client: ObsidianClient, router: respx.Router
) -> None:
    serve_version(router, "4.1.7")
    router.patch("/vault/Plan.md").mock(return_value=error(404, 40400, "Not Found"))

    with pytest.raises(NotFound) as caught:
        await client.patch_note("Plan.md", heading_patch())
    assert "heading" not in str(caught.value)


@pytest.mark.parametrize(
    ("patch", "shown"),
    [
        pytest.param(heading_patch(target_type="block", target="intro"), "'^intro'", id="block"),
        pytest.param(
            heading_patch(target_type="frontmatter", target="status"), "'status'", id="key"
        ),
    ],
)
async def test_a_5x_404_names_a_block_or_key_target(
    client: ObsidianClient, router: respx.Router, patch: PatchRequest, shown: str
) -> None:
    serve_version(router, "5.1.0")
    router.patch("/active/").mock(return_value=error(404, 40400, "Not Found"))

    with pytest.raises(NotFound) as caught:
        await client.patch_note(None, patch)
    assert f"its {patch.target_type} {shown} is missing" in str(caught.value)
    assert "No note is open in Obsidian" in str(caught.value)


# --- DELETE -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "permanent", "query"),
    [
        pytest.param("3.6.2", False, b"", id="3.6.2-always-permanent"),
        pytest.param("3.6.2", True, b"", id="3.6.2-permanent"),
        pytest.param("4.1.7", False, b"", id="4.1.7-always-permanent"),
        pytest.param("4.1.7", True, b"", id="4.1.7-permanent"),
        pytest.param("5.1.0", False, b"", id="5.1.0-to-the-trash"),
        pytest.param("5.1.0", True, b"permanent=true", id="5.1.0-permanent"),
        pytest.param("5.0.0", True, b"permanent=true", id="5.0.0-permanent"),
    ],
)
@pytest.mark.parametrize(("path", "raw_path"), NOTE_PATHS)
async def test_delete_asks_for_permanence_only_where_the_plugin_trashes(
    client: ObsidianClient,
    router: respx.Router,
    version: str,
    permanent: bool,
    query: bytes,
    path: str | None,
    raw_path: str,
) -> None:
    serve_version(router, version)
    route = router.delete(path__regex=r"^/(vault|active)/").respond(204)

    assert await client.delete_note(path, permanent=permanent) is None

    request = route.calls.last.request
    assert request.url.raw_path == raw_path.encode("ascii") + (b"?" + query if query else b"")
    assert request.content == b""


@pytest.mark.parametrize(
    ("answer", "expected", "hint"),
    [
        pytest.param(
            error(404, 40400, "Not Found"),
            NotFound,
            r'list_vault_files\(directory="Projects"\)',
            id="404-missing",
        ),
        pytest.param(
            error(405, 40500, "Method Not Allowed"),
            ObsidianAPIError,
            "Only whole notes can be deleted",
            id="405-a-section",
        ),
        pytest.param(
            error(405, 40510, "Request method is valid only for file paths"),
            ObsidianAPIError,
            "That path is a folder",
            id="405-a-folder",
        ),
    ],
)
async def test_delete_errors(
    client: ObsidianClient,
    router: respx.Router,
    answer: httpx.Response,
    expected: type[ObsidianError],
    hint: str,
) -> None:
    serve_version(router, "5.1.0")
    router.delete("/vault/Projects/plan.md").mock(return_value=answer)

    with pytest.raises(expected, match=hint):
        await client.delete_note("Projects/plan.md", permanent=False)


# --- MOVE -------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["4.1.0", "4.1.7", "5.1.0"])
@pytest.mark.parametrize(
    ("destination", "header"),
    [
        pytest.param("Archive/plan.md", "Archive/plan.md", id="plain"),
        pytest.param(
            "Archive/Résumé 🚀.md", "Archive/R%C3%A9sum%C3%A9 %F0%9F%9A%80.md", id="unicode"
        ),
        pytest.param("Archive/100%.md", "Archive/100%25.md", id="percent"),
        pytest.param("Archive/", "Archive/", id="into-a-folder"),
    ],
)
@pytest.mark.parametrize("overwrite", [False, True])
async def test_move_sends_the_encoded_destination(
    client: ObsidianClient,
    router: respx.Router,
    version: str,
    destination: str,
    header: str,
    overwrite: bool,
) -> None:
    serve_version(router, version)
    route = router.route(method="MOVE", path__regex=r"^/vault/").respond(
        204, headers={"Content-Location": "Archive/plan.md"}
    )

    assert await client.move_note("Inbox/plàn.md", destination, overwrite=overwrite) is None

    request = route.calls.last.request
    assert request.url.raw_path == b"/vault/Inbox/pl%C3%A0n.md"
    assert request.headers["Destination"] == header
    assert request.headers.get("Allow-Overwrite") == ("true" if overwrite else None)
    assert request.content == b""


@pytest.mark.parametrize("version", ["3.6.2", "4.0.0", "4.0.9"])
async def test_move_before_4_1_is_refused_before_sending(
    client: ObsidianClient, router: respx.Router, version: str
) -> None:
    serve_version(router, version)
    move = router.route(method="MOVE").respond(204)

    with pytest.raises(FeatureUnavailable, match=rf">= 4\.1\.0; you run {version}") as caught:
        await client.move_note("a.md", "b.md", overwrite=False)
    assert caught.value.feature == "move"
    assert move.call_count == 0


async def test_move_onto_an_existing_note_is_destination_exists(
    client: ObsidianClient, router: respx.Router
) -> None:
    serve_version(router, "4.1.7")
    router.route(method="MOVE", path="/vault/a.md").mock(
        return_value=error(409, 40920, "Destination file already exists.")
    )

    with pytest.raises(DestinationExists) as caught:
        await client.move_note("a.md", "Archive/a.md", overwrite=False)

    assert caught.value.path == "Archive/a.md"
    assert str(caught.value) == (
        "'Archive/a.md' already exists. Pass overwrite=true to replace it, or choose another "
        "destination."
    )


@pytest.mark.parametrize(
    ("answer", "expected", "hint"),
    [
        pytest.param(error(404, 40400, "Not Found"), NotFound, "list_vault_files", id="404"),
        pytest.param(
            error(400, 40022, "The 'Destination' header could not be parsed."),
            ObsidianAPIError,
            "vault-relative path such as 'Archive/plan.md'",
            id="40022",
        ),
        pytest.param(
            error(400, 40021, "Path traversal is not allowed."),
            ObsidianAPIError,
            "leaves the vault",
            id="40021",
        ),
        pytest.param(
            error(500, 50020, "File operation failed."),
            ObsidianAPIError,
            "developer console",
            id="50020",
        ),
    ],
)
async def test_move_errors(
    client: ObsidianClient,
    router: respx.Router,
    answer: httpx.Response,
    expected: type[ObsidianError],
    hint: str,
) -> None:
    serve_version(router, "5.1.0")
    router.route(method="MOVE", path="/vault/a.md").mock(return_value=answer)

    with pytest.raises(expected, match=hint) as caught:
        await client.move_note("a.md", "b.md", overwrite=True)
    if expected is NotFound:
        assert caught.value.path == "a.md"  # type: ignore[attr-defined]


# --- note_size, open ----------------------------------------------------------------------------


async def test_note_size_counts_characters_not_bytes(
    client: ObsidianClient, router: respx.Router
) -> None:
    route = router.get("/vault/Caf%C3%A9.md").respond(200, text="Été 🚀")

    assert await client.note_size("Café.md") == 5
    assert route.calls.last.request.headers["Accept"] == "text/markdown"


async def test_note_size_of_a_missing_note_is_none(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.get("/vault/nope.md").mock(return_value=error(404, 40400, "Not Found"))

    assert await client.note_size("nope.md") is None


async def test_note_size_of_an_empty_note_is_zero(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.get("/vault/empty.md").respond(200, text="")

    assert await client.note_size("empty.md") == 0


async def test_note_size_passes_other_failures_on(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.get("/vault/Projects/").mock(return_value=error(405, 40510, "Only files"))

    with pytest.raises(ObsidianAPIError, match="folder"):
        await client.note_size("Projects/")


@pytest.mark.parametrize(("new_leaf", "flag"), [(False, "false"), (True, "true")])
async def test_open_note_posts_to_open_with_new_leaf(
    client: ObsidianClient, router: respx.Router, new_leaf: bool, flag: str
) -> None:
    route = router.post(path__regex=r"^/open/").respond(200)

    assert await client.open_note("Daily/Été 1.md", new_leaf=new_leaf) is None

    request = route.calls.last.request
    assert request.url.raw_path == f"/open/Daily/%C3%89t%C3%A9%201.md?newLeaf={flag}".encode()


# --- commands ---------------------------------------------------------------------------------


async def test_list_commands_returns_ids_and_names(
    client: ObsidianClient, router: respx.Router
) -> None:
    commands = [
        {"id": "global-search:open", "name": "Search: Search in all files"},
        {"id": "editor:toggle-bold", "name": "Toggle bold", "icon": "bold"},
    ]
    router.get("/commands/").respond(200, json={"commands": commands})

    assert await client.list_commands() == [
        {"id": "global-search:open", "name": "Search: Search in all files"},
        {"id": "editor:toggle-bold", "name": "Toggle bold"},
    ]


@pytest.mark.parametrize(
    "answer", [{"commands": [{"id": 3}]}, {"cmds": []}, [{"id": "a", "name": "b"}]]
)
async def test_a_command_list_of_another_shape_is_malformed(
    client: ObsidianClient, router: respx.Router, answer: Any
) -> None:
    router.get("/commands/").respond(200, json=answer)

    with pytest.raises(MalformedAnswer, match="command list was malformed"):
        await client.list_commands()


@pytest.mark.parametrize(
    ("command_id", "raw_path"),
    [
        pytest.param("editor:toggle-bold", "/commands/editor:toggle-bold/", id="colon-kept"),
        pytest.param(
            "my plugin:do/thing?", "/commands/my%20plugin:do%2Fthing%3F/", id="one-segment"
        ),
        pytest.param("plugïn:été", "/commands/plug%C3%AFn:%C3%A9t%C3%A9/", id="unicode"),
    ],
)
async def test_execute_command_encodes_the_id_as_one_segment(
    client: ObsidianClient, router: respx.Router, command_id: str, raw_path: str
) -> None:
    route = router.post(path__regex=r"^/commands/").respond(204)

    assert await client.execute_command(command_id) is None
    assert route.calls.last.request.url.raw_path == raw_path.encode("ascii")


async def test_an_unknown_command_says_to_list_them(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.post("/commands/nope:x/").mock(return_value=error(404, 40400, "Not Found"))

    with pytest.raises(NotFound) as caught:
        await client.execute_command("nope:x")
    assert caught.value.path == "nope:x"
    assert str(caught.value) == "'nope:x' was not found. list_commands() lists the command ids."


async def test_a_command_that_throws_is_not_worth_a_blind_retry(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.post("/commands/a:b/").mock(return_value=error(500, 50000, "Internal Server Error"))

    with pytest.raises(ObsidianAPIError, match="command failed inside Obsidian"):
        await client.execute_command("a:b")


@pytest.mark.parametrize("command_id", ["", "  ", ".", ".."])
async def test_an_empty_or_dot_command_id_is_refused(
    client: ObsidianClient, router: respx.Router, command_id: str
) -> None:
    anything = router.route().respond(204)

    with pytest.raises(InvalidArgument, match="list_commands"):
        await client.execute_command(command_id)
    assert anything.call_count == 0


# --- periodic notes ---------------------------------------------------------------------------

MARCH_7 = datetime.date(2026, 3, 7)


@pytest.mark.parametrize("version", ["3.6.2", "4.1.7", "5.0.1"])
@pytest.mark.parametrize(
    ("date", "raw_path"),
    [
        pytest.param(None, "/periodic/daily/", id="current"),
        pytest.param(MARCH_7, "/periodic/daily/2026/3/7/", id="dated"),
    ],
)
async def test_read_periodic_gets_the_note_and_its_path(
    client: ObsidianClient,
    router: respx.Router,
    version: str,
    date: datetime.date | None,
    raw_path: str,
) -> None:
    serve_version(router, version)
    route = router.get(path__regex=r"^/periodic/").respond(
        200, text="# Été\n", headers={"Content-Location": "Daily/2026-03-07%20%C3%A9t%C3%A9.md"}
    )

    note = await client.read_periodic("daily", date)

    assert note == Note(path="Daily/2026-03-07 été.md", content="# Été\n")
    request = route.calls.last.request
    assert request.url.raw_path == raw_path.encode("ascii")
    assert request.headers["Accept"] == "text/markdown"


@pytest.mark.parametrize("period", ["daily", "weekly", "monthly", "quarterly", "yearly"])
@pytest.mark.parametrize("date", [None, MARCH_7])
async def test_append_periodic_posts_markdown(
    client: ObsidianClient, router: respx.Router, period: str, date: datetime.date | None
) -> None:
    serve_version(router, "4.1.7")
    route = router.post(path__regex=r"^/periodic/").respond(204)

    assert await client.append_periodic(period, "- Été", date) is None

    request = route.calls.last.request
    suffix = "" if date is None else "2026/3/7/"
    assert request.url.raw_path == f"/periodic/{period}/{suffix}".encode()
    assert request.headers["Content-Type"] == "text/markdown"
    assert request.content == "- Été".encode()


async def test_a_period_name_is_matched_without_case(
    client: ObsidianClient, router: respx.Router
) -> None:
    serve_version(router, "4.1.7")
    route = router.get("/periodic/weekly/").respond(200, text="x")

    await client.read_periodic(" Weekly ", None)
    assert route.call_count == 1


@pytest.mark.parametrize("version", ["5.0.2", "5.1.0"])
@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda c: c.read_periodic("daily", None), id="read"),
        pytest.param(lambda c: c.read_periodic("daily", MARCH_7), id="read-dated"),
        pytest.param(lambda c: c.append_periodic("daily", "x", None), id="append"),
    ],
)
async def test_periodic_notes_after_their_removal_are_refused_naming_5_0_2(
    client: ObsidianClient, router: respx.Router, version: str, call: Call
) -> None:
    serve_version(router, version)
    periodic = router.route(path__regex=r"^/periodic/").respond(200, text="x")

    with pytest.raises(FeatureUnavailable) as caught:
        await call(client)

    message = str(caught.value)
    assert caught.value.feature == "periodic_notes"
    assert "removed its /periodic/ routes in 5.0.2" in message
    assert f"you run {version}" in message
    assert "vault path" in message
    assert periodic.call_count == 0


@pytest.mark.parametrize("version", ["3.0.4", "2.5.0"])
async def test_a_dated_periodic_note_needs_3_1(
    client: ObsidianClient, router: respx.Router, version: str
) -> None:
    serve_version(router, version)
    periodic = router.route(path__regex=r"^/periodic/").respond(200, text="x")

    with pytest.raises(FeatureUnavailable, match=r">= 3\.1\.0") as caught:
        await client.append_periodic("daily", "x", MARCH_7)
    assert caught.value.feature == "periodic_dated"
    assert periodic.call_count == 0


async def test_a_current_periodic_note_works_before_3_1(
    client: ObsidianClient, router: respx.Router
) -> None:
    serve_version(router, "3.0.4")
    route = router.get("/periodic/daily/").respond(200, text="x")

    assert (await client.read_periodic("daily", None)).content == "x"
    assert route.call_count == 1


async def test_an_unknown_period_is_refused_before_sending(
    client: ObsidianClient, router: respx.Router
) -> None:
    anything = router.route().respond(200)

    with pytest.raises(InvalidArgument, match="daily, weekly, monthly, quarterly, yearly"):
        await client.read_periodic("hourly", None)
    assert anything.call_count == 0


@pytest.mark.parametrize(
    ("answer", "expected", "message"),
    [
        pytest.param(
            error(404, 40460, "Specified period does not exist."),
            NotFound,
            "'the daily period' was not found. Use one of: daily",
            id="40460-unknown-period",
        ),
        pytest.param(
            error(404, 40461, "Periodic note does not exist for the specified period."),
            NotFound,
            "'the daily note for 2026-03-07' was not found. It has not been created yet; "
            'append_to_periodic_note(period="daily", content=<text>) creates it.',
            id="40461-no-note-yet",
        ),
        pytest.param(
            error(400, 40060, "Period is not enabled."),
            FeatureUnavailable,
            "The daily period is not enabled in Obsidian",
            id="40060-period-disabled",
        ),
        pytest.param(
            error(404, 40400, "Not Found"),
            FeatureUnavailable,
            "no /periodic/ route",
            id="40400-no-route",
        ),
    ],
)
async def test_periodic_errors(
    client: ObsidianClient,
    router: respx.Router,
    answer: httpx.Response,
    expected: type[ObsidianError],
    message: str,
) -> None:
    serve_version(router, "4.1.7")
    router.get("/periodic/daily/2026/3/7/").mock(return_value=answer)

    with pytest.raises(expected) as caught:
        await client.read_periodic("daily", MARCH_7)
    assert message in str(caught.value)


# --- templates --------------------------------------------------------------------------------

TEMPLATE_RESULT = {"message": "Prompt executed without creating a file", "content": "# Zoë\n"}


@pytest.mark.parametrize(
    ("create_file", "target_path", "body"),
    [
        pytest.param(
            False,
            None,
            {"name": "Templates/Meeting.md", "arguments": {"who": "Zoë"}, "createFile": False},
            id="render-only",
        ),
        pytest.param(
            True,
            "Meetings/Été.md",
            {
                "name": "Templates/Meeting.md",
                "arguments": {"who": "Zoë"},
                "createFile": True,
                "targetPath": "Meetings/Été.md",
            },
            id="create-file",
        ),
        pytest.param(
            True,
            "Meetings/Stand-up 🗓 #3",
            {
                "name": "Templates/Meeting.md",
                "arguments": {"who": "Zoë"},
                "createFile": True,
                # the companion writes exactly this path (app.vault.create): the note's name
                "targetPath": "Meetings/Stand-up 🗓 #3.md",
            },
            id="create-file-md-added",
        ),
    ],
)
async def test_execute_template_posts_json(
    client: ObsidianClient,
    router: respx.Router,
    create_file: bool,
    target_path: str | None,
    body: dict[str, Any],
) -> None:
    route = router.post("/templates/execute").respond(200, json=TEMPLATE_RESULT)

    result = await client.execute_template(
        "Templates/Meeting.md", {"who": "Zoë"}, create_file=create_file, target_path=target_path
    )

    assert result == TEMPLATE_RESULT
    request = route.calls.last.request
    assert request.headers["Content-Type"] == "application/json"
    assert json.loads(request.content) == body
    assert "Zoë".encode() in request.content


async def test_create_file_without_a_target_path_is_refused_before_sending(
    client: ObsidianClient, router: respx.Router
) -> None:
    route = router.post("/templates/execute").respond(200, json=TEMPLATE_RESULT)

    with pytest.raises(InvalidArgument, match="targetPath"):
        await client.execute_template("T.md", {}, create_file=True, target_path=None)
    with pytest.raises(InvalidPath):
        await client.execute_template("T.md", {}, create_file=True, target_path="../x.md")
    assert route.call_count == 0


@pytest.mark.parametrize(
    ("answer", "expected", "fields", "parts"),
    [
        pytest.param(
            error(404, 40400, "Not Found"),
            FeatureUnavailable,
            {"feature": "templates"},
            ["'MCP Tools'", "jacksteamdev/obsidian-mcp-tools", "Templater"],
            id="404-no-companion-plugin",
        ),
        pytest.param(
            httpx.Response(404, json={"error": "Template not found"}),
            NotFound,
            {"path": "Templates/Meeting.md"},
            ["template's vault path"],
            id="404-template-not-found",
        ),
        pytest.param(
            httpx.Response(404, json={"error": "File not found: Templates/Meeting.md"}),
            NotFound,
            {"path": "Templates/Meeting.md"},
            ["list_vault_files"],
            id="404-file-not-found",
        ),
        pytest.param(
            httpx.Response(
                400,
                json={
                    "error": "Invalid request body",
                    "body": {"name": 3},
                    "summary": "name must be a string",
                },
            ),
            ObsidianAPIError,
            {"status": 400, "api_message": "Invalid request body: name must be a string"},
            ["Check name"],
            id="400-invalid-body",
        ),
        pytest.param(
            httpx.Response(503, json={"error": "Templater plugin is not available"}),
            FeatureUnavailable,
            {"feature": "templates"},
            ["Templater plugin is not available", "Templater installed and enabled"],
            id="503-no-templater",
        ),
        pytest.param(
            httpx.Response(503, json={"error": "An error occurred while processing the prompt"}),
            FeatureUnavailable,
            {"feature": "templates"},
            ["processing the prompt", "targetPath must not exist"],
            id="503-template-failed",
        ),
    ],
)
async def test_execute_template_errors(
    client: ObsidianClient,
    router: respx.Router,
    answer: httpx.Response,
    expected: type[ObsidianError],
    fields: dict[str, Any],
    parts: list[str],
) -> None:
    router.post("/templates/execute").mock(return_value=answer)

    with pytest.raises(expected) as caught:
        await client.execute_template(
            "Templates/Meeting.md", {}, create_file=False, target_path=None
        )

    assert type(caught.value) is expected
    for name, value in fields.items():
        assert getattr(caught.value, name) == value
    for part in parts:
        assert part in str(caught.value)


async def test_a_template_result_that_is_not_an_object_is_malformed(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.post("/templates/execute").respond(200, json=["x"])

    with pytest.raises(MalformedAnswer, match="template result was malformed"):
        await client.execute_template("T.md", {}, create_file=False, target_path=None)


# --- no write is ever retried -----------------------------------------------------------------

DROPS = [
    pytest.param(lambda: httpx.RemoteProtocolError("Server disconnected"), id="remote-protocol"),
    pytest.param(lambda: httpx.ReadError("connection reset"), id="read-error"),
    pytest.param(lambda: httpx.ConnectError("connection refused"), id="connect-error"),
]

WRITES = [
    pytest.param(lambda c: c.write_note("a.md", "x"), "PUT", "/vault/a.md", id="PUT"),
    pytest.param(lambda c: c.append_note(None, "x"), "POST", "/active/", id="POST"),
    pytest.param(
        lambda c: c.patch_note("a.md", heading_patch()), "PATCH", "/vault/a.md", id="PATCH"
    ),
    pytest.param(
        lambda c: c.delete_note("a.md", permanent=True), "DELETE", "/vault/a.md", id="DELETE"
    ),
    pytest.param(
        lambda c: c.move_note("a.md", "b.md", overwrite=False), "MOVE", "/vault/a.md", id="MOVE"
    ),
    pytest.param(lambda c: c.open_note("a.md", new_leaf=False), "POST", "/open/a.md", id="open"),
    pytest.param(lambda c: c.execute_command("a:b"), "POST", "/commands/a:b/", id="command"),
    pytest.param(
        lambda c: c.append_periodic("daily", "x", None), "POST", "/periodic/daily/", id="periodic"
    ),
    pytest.param(
        lambda c: c.execute_template("T.md", {}, create_file=False, target_path=None),
        "POST",
        "/templates/execute",
        id="template",
    ),
]


@pytest.mark.parametrize("drop", DROPS)
@pytest.mark.parametrize(("call", "method", "path"), WRITES)
@pytest.mark.parametrize("version", ["4.1.7", "5.0.1"])
async def test_a_write_is_never_retried_after_a_dropped_connection(
    client: ObsidianClient,
    router: respx.Router,
    version: str,
    call: Call,
    method: str,
    path: str,
    drop: Callable[[], Exception],
) -> None:
    serve_version(router, version)
    route = router.route(method=method, path=path).mock(
        side_effect=[drop(), httpx.Response(204), httpx.Response(204)]
    )

    with pytest.raises(ObsidianUnreachable):
        await call(client)
    assert route.call_count == 1


# --- the key stays secret ---------------------------------------------------------------------


async def test_no_write_error_or_log_line_contains_the_key(
    client: ObsidianClient, router: respx.Router, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    serve_version(router, "5.0.1")
    answers = [
        error(400, 40080, "Patch failed\ninvalid-target"),
        error(409, 40920, "Destination file already exists."),
        error(404, 40461, "Periodic note does not exist"),
        httpx.Response(503, json={"error": "Templater plugin is not available"}),
        error(500, 50000, "Internal Server Error"),
    ]
    errors: list[ObsidianError] = []
    for answer in answers:
        router.route(method__in=["PATCH", "MOVE", "GET", "POST"], path__regex=r"^/.+").mock(
            return_value=answer
        )
        for call in (
            lambda c: c.patch_note("a.md", heading_patch()),
            lambda c: c.move_note("a.md", "b.md", overwrite=False),
            lambda c: c.read_periodic("daily", None),
            lambda c: c.execute_template("T.md", {}, create_file=False, target_path=None),
            lambda c: c.execute_command("a:b"),
        ):
            with pytest.raises(ObsidianError) as caught:
                await call(client)
            errors.append(caught.value)

    texts = [text for exc in errors for text in (str(exc), repr(exc), *map(str, exc.args))]
    assert len(errors) == 25
    assert [text for text in texts if API_KEY in text] == []
    assert caplog.records
    assert API_KEY not in caplog.text
    assert "Bearer" not in caplog.text
