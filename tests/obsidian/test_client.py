"""The Local REST API client: request shapes, answers, error translation, retries, versions."""

from __future__ import annotations

import json
import logging
import re
import ssl
from collections.abc import Awaitable, Callable
from typing import Any, cast

import httpcore
import httpx
import pytest
import respx
from obsidian_fakes import API_KEY, root_answer, serve_version

from vaultgate import markdown
from vaultgate.backend import Note, ServerStatus
from vaultgate.config import ObsidianSettings
from vaultgate.errors import (
    AuthenticationFailed,
    FeatureUnavailable,
    InvalidArgument,
    InvalidPath,
    MalformedAnswer,
    NotFound,
    ObsidianAPIError,
    ObsidianError,
    ObsidianTimeout,
    ObsidianTLSError,
    ObsidianUnreachable,
)
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.features import Version
from vaultgate.obsidian.transport import build_http_client

pytestmark = pytest.mark.anyio

Call = Callable[[ObsidianClient], Awaitable[Any]]

NOTE_TEXT = "---\ntags: [a]\n---\n# Plan\n\nSome text ^intro\n\n## Steps\n\n- one\n"


def error(status: int, code: int, message: str) -> httpx.Response:
    return httpx.Response(status, json={"message": message, "errorCode": code})


# --- GET / ----------------------------------------------------------------------------------


async def test_status_reads_versions_key_state_and_certificate(
    client: ObsidianClient, router: respx.Router
) -> None:
    answer = root_answer("5.1.0")
    answer["apiExtensions"] = [
        {"id": "mcp-tools", "name": "MCP Tools", "version": "0.2.31"},
        {"manifest": {"id": "templater-ext", "name": "Templater"}, "routes": []},
        {"manifest": {"name": "Nameless"}},
        "bare-id",
        42,
    ]
    route = router.get("/").respond(200, json=answer)

    status = await client.status()

    assert status == ServerStatus(
        authenticated=True,
        plugin_version=Version(5, 1, 0),
        obsidian_version="1.9.10",
        service="Obsidian Local REST API",
        certificate_days_left=200.5,
        extensions=["mcp-tools", "templater-ext", "Nameless", "bare-id"],
    )
    assert route.calls.last.request.headers["Authorization"] == f"Bearer {API_KEY}"


async def test_status_of_a_rejected_key_has_no_certificate_or_extensions(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.get("/").respond(200, json=root_answer("3.6.2", authenticated=False))

    status = await client.status()

    assert status.authenticated is False
    assert status.plugin_version == Version(3, 6, 2)
    assert status.certificate_days_left is None
    assert status.extensions == []


async def test_status_is_cached_until_refreshed(
    client: ObsidianClient, router: respx.Router
) -> None:
    route = router.get("/").mock(
        side_effect=[
            httpx.Response(200, json=root_answer("4.1.7")),
            httpx.Response(200, json=root_answer("5.1.0")),
        ]
    )

    assert (await client.status()).plugin_version == Version(4, 1, 7)
    assert (await client.features()).version == Version(4, 1, 7)
    assert route.call_count == 1
    assert (await client.refresh_status()).plugin_version == Version(5, 1, 0)
    assert (await client.status()).plugin_version == Version(5, 1, 0)
    assert route.call_count == 2


@pytest.mark.parametrize(
    "response",
    [
        pytest.param(httpx.Response(200, text="<html>router login</html>"), id="html"),
        pytest.param(httpx.Response(200, json={"status": "OK"}), id="no-versions"),
        pytest.param(httpx.Response(200, json=[1, 2]), id="a-list"),
        pytest.param(httpx.Response(200, json=root_answer("banana")), id="bad-version"),
    ],
)
async def test_status_from_something_else_says_so_and_points_at_the_port(
    client: ObsidianClient, router: respx.Router, response: httpx.Response
) -> None:
    router.get("/").mock(return_value=response)

    with pytest.raises(MalformedAnswer, match="OBSIDIAN_PORT") as caught:
        await client.status()
    assert caught.value.foreign


# --- listing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("directory", "raw_path"),
    [
        pytest.param("", "/vault/", id="root"),
        pytest.param("/", "/vault/", id="root-slash"),
        pytest.param("Projects", "/vault/Projects/", id="folder"),
        pytest.param("Projects/", "/vault/Projects/", id="folder-with-slash"),
        pytest.param("My Notes/Sub", "/vault/My%20Notes/Sub/", id="space"),
        pytest.param("Café/漢字", "/vault/Caf%C3%A9/%E6%BC%A2%E5%AD%97/", id="unicode"),
        pytest.param("🎉 party", "/vault/%F0%9F%8E%89%20party/", id="emoji"),
        pytest.param("C#/100%/why?/R&D", "/vault/C%23/100%25/why%3F/R%26D/", id="reserved"),
    ],
)
async def test_list_directory_encodes_each_segment(
    client: ObsidianClient, router: respx.Router, directory: str, raw_path: str
) -> None:
    route = router.get(path__regex=r"^/vault/").respond(200, json={"files": ["a.md", "Sub/"]})

    assert await client.list_directory(directory) == ["a.md", "Sub/"]
    assert route.calls.last.request.url.raw_path == raw_path.encode("ascii")


async def test_missing_folder_is_not_found_and_names_the_parent(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.get("/vault/Projects/Old/").mock(return_value=error(404, 40400, "Not Found"))

    with pytest.raises(NotFound, match=r'list_vault_files\(directory="Projects"\)') as caught:
        await client.list_directory("Projects/Old")
    assert caught.value.path == "Projects/Old"
    assert "list_vault_files" in str(caught.value)


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        pytest.param("3.5.0", [], id="before-3.6.1-an-empty-root-is-404"),
        pytest.param("3.6.0", [], id="3.6.0"),
        pytest.param("3.6.1", NotFound, id="from-3.6.1-a-root-404-is-real"),
    ],
)
async def test_a_404_for_the_vault_root_depends_on_the_version(
    client: ObsidianClient, router: respx.Router, version: str, expected: object
) -> None:
    serve_version(router, version)
    router.get("/vault/").mock(return_value=error(404, 40400, "Not Found"))

    if expected is NotFound:
        with pytest.raises(NotFound):
            await client.list_directory("")
    else:
        assert await client.list_directory("") == expected


async def test_a_404_for_a_folder_is_never_an_empty_listing(
    client: ObsidianClient, router: respx.Router
) -> None:
    root = serve_version(router, "3.5.0")
    router.get("/vault/Empty/").mock(return_value=error(404, 40400, "Not Found"))

    with pytest.raises(NotFound):
        await client.list_directory("Empty")
    assert root.call_count == 0


# --- reading --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "raw_path"),
    [
        pytest.param("Plan.md", "/vault/Plan.md", id="plain"),
        pytest.param("Daily Notes/2024 01.md", "/vault/Daily%20Notes/2024%2001.md", id="spaces"),
        pytest.param("Café/naïve.md", "/vault/Caf%C3%A9/na%C3%AFve.md", id="unicode"),
        pytest.param(
            "🎉/👩\u200d💻.md",
            "/vault/%F0%9F%8E%89/%F0%9F%91%A9%E2%80%8D%F0%9F%92%BB.md",
            id="emoji",
        ),
        pytest.param("C#/notes #1.md", "/vault/C%23/notes%20%231.md", id="hash"),
        pytest.param("100%/done%20.md", "/vault/100%25/done%2520.md", id="percent"),
        pytest.param("Why?/what?.md", "/vault/Why%3F/what%3F.md", id="question-mark"),
        pytest.param("R&D/a&b.md", "/vault/R%26D/a%26b.md", id="ampersand"),
    ],
)
async def test_read_note_encodes_the_path_and_asks_for_markdown(
    client: ObsidianClient, router: respx.Router, path: str, raw_path: str
) -> None:
    route = router.get(path__regex=r"^/vault/").respond(
        200, text=NOTE_TEXT, headers={"Content-Type": "text/markdown; charset=utf-8"}
    )

    note = await client.read_note(path)

    assert note == Note(path=path, content=NOTE_TEXT)
    request = route.calls.last.request
    assert request.url.raw_path == raw_path.encode("ascii")
    assert request.headers["Accept"] == "text/markdown"
    assert request.headers["Authorization"] == f"Bearer {API_KEY}"


async def test_read_note_decodes_utf8_whatever_the_content_type_says(
    client: ObsidianClient, router: respx.Router
) -> None:
    text = "# Été 🎉\n"
    router.get("/vault/a.md").respond(
        200, content=text.encode("utf-8"), headers={"Content-Type": "false"}
    )

    assert (await client.read_note("a.md")).content == text


async def test_active_note_path_comes_from_content_location(
    client: ObsidianClient, router: respx.Router
) -> None:
    route = router.get("/active/").respond(
        200,
        text=NOTE_TEXT,
        headers={"Content-Location": "Daily/2026-10-01%20%C3%A9t%C3%A9%20%23log.md"},
    )

    note = await client.read_note(None)

    assert note.path == "Daily/2026-10-01 été #log.md"
    assert note.content == NOTE_TEXT
    assert route.calls.last.request.headers["Accept"] == "text/markdown"


async def test_active_note_without_content_location_has_an_empty_path(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.get("/active/").respond(200, text=NOTE_TEXT)

    assert (await client.read_note(None)).path == ""


async def test_read_note_json_asks_for_the_note_json(
    client: ObsidianClient, router: respx.Router
) -> None:
    body = {"path": "a b.md", "content": NOTE_TEXT, "frontmatter": {"tags": ["a"]}, "tags": ["a"]}
    route = router.get("/vault/a%20b.md").respond(200, json=body)

    assert await client.read_note_json("a b.md") == body
    assert route.calls.last.request.headers["Accept"] == "application/vnd.olrapi.note+json"


async def test_read_note_json_of_the_active_file(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.get("/active/").respond(200, json={"path": "x.md", "content": ""})

    assert (await client.read_note_json(None))["path"] == "x.md"


async def test_note_json_that_is_not_an_object_is_malformed_not_a_connection_problem(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.get("/vault/a.md").respond(200, json=["not", "an", "object"])

    with pytest.raises(MalformedAnswer, match="the note JSON was malformed") as caught:
        await client.read_note_json("a.md")
    assert "OBSIDIAN_PORT" not in str(caught.value)
    assert "connection itself worked" in str(caught.value)


async def test_missing_note_is_not_found_and_names_its_folder(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.get("/vault/Projects/x.md").mock(return_value=error(404, 40400, "Not Found"))

    with pytest.raises(NotFound) as caught:
        await client.read_note("Projects/x.md")
    assert caught.value.path == "Projects/x.md"
    assert 'list_vault_files(directory="Projects")' in str(caught.value)


async def test_no_active_file_is_not_found_with_a_hint(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.get("/active/").mock(return_value=error(404, 40400, "Not Found"))

    with pytest.raises(NotFound, match="No note is open in Obsidian"):
        await client.read_note(None)


INVALID_PATHS = [
    pytest.param("../secret.md", id="dotdot"),
    pytest.param("notes/../../x.md", id="inner-dotdot"),
    pytest.param("/etc/passwd", id="leading-slash"),
    pytest.param("notes\\x.md", id="backslash"),
    pytest.param("a//b.md", id="empty-segment"),
    pytest.param("", id="empty"),
]

NOTE_READS: list[Any] = [
    pytest.param(lambda c, p: c.read_note(p), id="read_note"),
    pytest.param(lambda c, p: c.read_note_json(p), id="read_note_json"),
    pytest.param(lambda c, p: c.read_document_map(p), id="read_document_map"),
]


@pytest.mark.parametrize("path", INVALID_PATHS)
@pytest.mark.parametrize("read", NOTE_READS)
async def test_invalid_note_paths_are_refused_before_any_request(
    client: ObsidianClient,
    router: respx.Router,
    read: Callable[[ObsidianClient, str], Awaitable[Any]],
    path: str,
) -> None:
    serve_version(router, "5.1.0")

    with pytest.raises(InvalidPath):
        await read(client, path)
    assert router.calls.call_count == 0


@pytest.mark.parametrize(
    "directory",
    [
        pytest.param("..", id="dotdot"),
        pytest.param("a/../b", id="inner-dotdot"),
        pytest.param("/abs", id="leading-slash"),
        pytest.param("a\\b", id="backslash"),
    ],
)
async def test_invalid_folders_are_refused_before_any_request(
    client: ObsidianClient, router: respx.Router, directory: str
) -> None:
    with pytest.raises(InvalidPath):
        await client.list_directory(directory)
    assert router.calls.call_count == 0


# --- document map ---------------------------------------------------------------------------


async def test_document_map_1x_shape_is_kept_as_is(
    client: ObsidianClient, router: respx.Router
) -> None:
    serve_version(router, "4.1.7")
    route = router.get("/vault/Plan.md").respond(
        200,
        json={
            "headings": ["Plan", "Plan::Steps", "Plan::Steps::Later"],
            "blocks": ["intro"],
            "frontmatterFields": ["tags"],
        },
    )

    doc_map = await client.read_document_map("Plan.md")

    assert doc_map == markdown.DocumentMap(
        headings=["Plan", "Plan::Steps", "Plan::Steps::Later"],
        blocks=["intro"],
        frontmatter_fields=["tags"],
    )
    request = route.calls.last.request
    assert request.headers["Accept"] == "application/vnd.olrapi.document-map+json"
    assert "Markdown-Patch-Version" not in request.headers


@pytest.mark.parametrize(
    ("repeat_2", "repeat_3"),
    [
        pytest.param("\U000fc750\U000f6440", "\U000fc750\U000f6441", id="markdown-patch-suffix"),
        pytest.param("\u2063", "\u2063\u2063", id="invisible-separator"),
    ],
)
async def test_document_map_5x_tree_is_flattened_without_duplicate_markers(
    client: ObsidianClient, router: respx.Router, repeat_2: str, repeat_3: str
) -> None:
    serve_version(router, "5.1.0")
    router.get("/active/").respond(
        200,
        json={
            "headings": {
                "Overview": {"Known quirks": {}},
                "Logs": {
                    "2026-07-18": {"Notes": {}},
                    f"2026-07-18{repeat_2}": {"Notes": {}},
                    f"2026-07-18{repeat_3}": {},
                    "a::b": {},
                },
                "": {"Deep": {}},
            },
            "blocks": ["thesis", f"thesis{repeat_2}", "quirks"],
            "frontmatterFields": ["status", "reviewers"],
            "version": "a1b2c3",
        },
    )

    doc_map = await client.read_document_map(None)

    assert doc_map.headings == [
        "Overview",
        "Overview::Known quirks",
        "Logs",
        "Logs::2026-07-18",
        "Logs::2026-07-18::Notes",
        "Logs::a::b",
        "",
        "::Deep",
    ]
    assert doc_map.blocks == ["thesis", "quirks"]
    assert doc_map.frontmatter_fields == ["status", "reviewers"]


@pytest.mark.parametrize("version", ["3.3.0", "2.5.4"])
async def test_document_map_before_3_4_is_built_from_the_markdown(
    client: ObsidianClient, router: respx.Router, version: str
) -> None:
    serve_version(router, version)
    route = router.get("/vault/Plan.md").respond(200, text=NOTE_TEXT)

    doc_map = await client.read_document_map("Plan.md")

    assert doc_map == markdown.document_map(NOTE_TEXT)
    assert doc_map.headings == ["Plan", "Plan::Steps"]
    assert route.call_count == 1
    assert route.calls.last.request.headers["Accept"] == "text/markdown"


async def test_document_map_with_a_wrong_shape_names_the_field(
    client: ObsidianClient, router: respx.Router
) -> None:
    serve_version(router, "5.1.0")
    router.get("/vault/a.md").respond(200, json={"headings": 3})

    with pytest.raises(MalformedAnswer, match="document map was malformed: headings: "):
        await client.read_document_map("a.md")


# --- searching ------------------------------------------------------------------------------


SIMPLE_RESULT = [
    {
        "filename": "Plan.md",
        "score": -0.5,
        "matches": [{"match": {"start": 3, "end": 7, "source": "content"}, "context": "a plan"}],
    }
]


async def test_search_simple_sends_query_parameters_and_the_search_timeout(
    client: ObsidianClient, router: respx.Router
) -> None:
    route = router.post("/search/simple/").respond(200, json=SIMPLE_RESULT)

    assert await client.search_simple("café & co?", 40) == SIMPLE_RESULT

    request = route.calls.last.request
    assert dict(request.url.params) == {"query": "café & co?", "contextLength": "40"}
    assert request.content == b""
    assert request.extensions["timeout"]["read"] == 30.0


async def test_search_answer_with_half_an_emoji_is_read_with_a_replacement_character(
    client: ObsidianClient, router: respx.Router
) -> None:
    # Plugin <= 5.1.0 cuts contexts by UTF-16 code units: a lone surrogate escape is valid JSON.
    body = (
        b'[{"filename": "\xf0\x9f\x9a\x80 a.md", "score": -1, "matches": [{"match": '
        b'{"start": 101, "end": 103}, "context": "\\ude80aaa zz \xe6\x97\xa5\xe6\x9c\xac '
        b'\\ud83d"}]}]'
    )
    router.post("/search/simple/").respond(
        200, content=body, headers={"Content-Type": "application/json"}
    )

    [hit] = await client.search_simple("zz", 100)

    assert hit["filename"] == "🚀 a.md"
    assert hit.get("matches", [])[0]["context"] == "\ufffdaaa zz 日本 \ufffd"


async def test_an_escaped_whole_emoji_is_kept_next_to_a_half_one(
    client: ObsidianClient, router: respx.Router
) -> None:
    body = (
        b'[{"filename": "a.md", "matches": [{"match": {"start": 0, "end": 2}, '
        b'"context": "\\uD83D\\uDE80 zz \\uD83D"}]}]'
    )
    router.post("/search/simple/").respond(200, content=body)

    [hit] = await client.search_simple("zz", 100)

    assert hit.get("matches", [])[0]["context"] == "🚀 zz \ufffd"


@pytest.mark.parametrize(
    ("hits", "where"),
    [
        pytest.param([{"score": 1, "matches": []}], "[0].filename", id="no-filename"),
        pytest.param(
            [{"filename": "a.md"}, {"filename": "b.md", "matches": [{"context": "x"}]}],
            "[1].matches[0].match",
            id="match-without-span",
        ),
        pytest.param({"results": []}, "the top level", id="not-a-list"),
    ],
)
async def test_malformed_search_answer_names_the_result_and_field(
    client: ObsidianClient, router: respx.Router, hits: object, where: str
) -> None:
    router.post("/search/simple/").respond(200, json=hits)

    with pytest.raises(MalformedAnswer) as caught:
        await client.search_simple("x", 10)
    assert where in str(caught.value)
    assert "OBSIDIAN_HOST" not in str(caught.value)


@pytest.mark.parametrize(
    "query", [pytest.param("a" * 100_000, id="100k-ascii"), pytest.param("日" * 3_000, id="cjk")]
)
async def test_a_query_too_long_for_the_url_is_refused_before_sending(
    client: ObsidianClient, router: respx.Router, query: str
) -> None:
    route = router.post("/search/simple/").respond(200, json=[])

    with pytest.raises(InvalidArgument, match="few distinctive words"):
        await client.search_simple(query, 10)
    assert not route.called


async def test_a_path_too_long_for_a_url_is_an_invalid_argument(
    client: ObsidianClient, router: respx.Router
) -> None:
    # no name a disk holds comes near a URL's limit: the name's own limit refuses it first
    with pytest.raises(InvalidArgument, match=r"a name can hold at most 255 bytes"):
        await client.read_note("a" * 70_000 + ".md")
    assert not router.calls


async def test_search_jsonlogic_sends_the_query_as_jsonlogic(
    client: ObsidianClient, router: respx.Router
) -> None:
    query = {"glob": ["Projects/**", {"var": "path"}]}
    rows = [{"filename": "Projects/a.md", "result": True}]
    route = router.post("/search/").respond(200, json=rows)

    assert await client.search_jsonlogic(query) == rows

    request = route.calls.last.request
    assert request.headers["Content-Type"] == "application/vnd.olrapi.jsonlogic+json"
    assert json.loads(request.content) == query
    assert request.extensions["timeout"]["read"] == 30.0


async def test_search_dql_sends_dql_text_on_plugins_that_have_it(
    client: ObsidianClient, router: respx.Router
) -> None:
    serve_version(router, "3.6.2")
    rows = [{"filename": "Projects/a.md", "result": {"status": "open"}}]
    route = router.post("/search/").respond(200, json=rows)

    assert await client.search_dql('TABLE status FROM "Projects"') == rows

    request = route.calls.last.request
    assert request.headers["Content-Type"] == "application/vnd.olrapi.dataview.dql+txt"
    assert request.content == b'TABLE status FROM "Projects"'


async def test_search_dql_on_5x_is_refused_before_sending(
    client: ObsidianClient, router: respx.Router
) -> None:
    serve_version(router, "5.1.0")
    search = router.post("/search/").respond(200, json=[])

    with pytest.raises(FeatureUnavailable) as caught:
        await client.search_dql("TABLE x")

    message = str(caught.value)
    assert caught.value.feature == "dataview_search"
    assert "needs Local REST API" in message
    assert "< 4.0.0" in message
    assert "you run 5.1.0" in message
    assert "jsonlogic" in message
    assert search.call_count == 0


async def test_search_smart_sends_json_as_markdown_text(
    client: ObsidianClient, router: respx.Router
) -> None:
    results = [{"path": "a.md", "text": "…", "score": 0.9, "breadcrumbs": "a > Intro"}]
    route = router.post("/search/smart").respond(200, json={"results": results})

    found = await client.search_smart(
        "gardening plans", folders=["Projects/"], exclude_folders=["Archive/"], limit=5
    )

    assert found == results
    request = route.calls.last.request
    assert request.headers["Content-Type"] == "text/markdown"
    assert json.loads(request.content) == {
        "query": "gardening plans",
        "filter": {"folders": ["Projects/"], "excludeFolders": ["Archive/"], "limit": 5},
    }
    assert request.extensions["timeout"]["read"] == 30.0


async def test_search_smart_leaves_out_folder_filters_not_given(
    client: ObsidianClient, router: respx.Router
) -> None:
    route = router.post("/search/smart").respond(200, json={"results": []})

    assert await client.search_smart("x", folders=None, exclude_folders=[], limit=3) == []
    assert json.loads(route.calls.last.request.content) == {"query": "x", "filter": {"limit": 3}}


async def test_search_smart_without_the_companion_plugin_is_unavailable(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.post("/search/smart").mock(return_value=error(404, 40400, "Not Found"))

    with pytest.raises(FeatureUnavailable) as caught:
        await client.search_smart("x", folders=None, exclude_folders=None, limit=3)
    assert caught.value.feature == "smart_search"
    assert "MCP Tools" in str(caught.value)
    assert "jacksteamdev/obsidian-mcp-tools" in str(caught.value)
    assert "Smart Connections" in str(caught.value)


async def test_search_smart_without_smart_connections_is_unavailable(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.post("/search/smart").respond(
        503, json={"error": "Smart Connections plugin is not available"}
    )

    with pytest.raises(FeatureUnavailable, match="Smart Connections") as caught:
        await client.search_smart("x", folders=None, exclude_folders=None, limit=3)
    assert caught.value.feature == "smart_search"


async def test_search_smart_bad_request_keeps_the_routes_own_error(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.post("/search/smart").respond(
        400, json={"error": "Invalid request body", "summary": "query: must not be empty"}
    )

    with pytest.raises(ObsidianAPIError) as caught:
        await client.search_smart("", folders=None, exclude_folders=None, limit=3)
    assert caught.value.status == 400
    assert caught.value.error_code is None
    assert caught.value.api_message == "Invalid request body: query: must not be empty"


@pytest.mark.parametrize(
    "search",
    [
        pytest.param(lambda c: c.search_simple("x", 10), id="simple"),
        pytest.param(lambda c: c.search_jsonlogic({"var": "path"}), id="jsonlogic"),
    ],
)
async def test_search_results_that_are_not_a_list_of_objects_are_malformed(
    client: ObsidianClient, router: respx.Router, search: Call
) -> None:
    router.post(path__regex=r"^/search/").respond(200, json={"oops": True})

    with pytest.raises(MalformedAnswer, match="search results was malformed"):
        await search(client)


# --- tags -----------------------------------------------------------------------------------


async def test_list_tags_from_3_5(client: ObsidianClient, router: respx.Router) -> None:
    serve_version(router, "3.5.0")
    tags = [{"name": "project", "count": 3}, {"name": "project/a", "count": 1}]
    router.get("/tags/").respond(200, json={"tags": tags})

    assert await client.list_tags() == tags


async def test_list_tags_before_3_5_is_refused_before_sending(
    client: ObsidianClient, router: respx.Router
) -> None:
    serve_version(router, "3.4.0")
    route = router.get("/tags/").respond(200, json={"tags": []})

    with pytest.raises(FeatureUnavailable, match=r">= 3\.5\.0; you run 3\.4\.0") as caught:
        await client.list_tags()
    assert caught.value.feature == "tags"
    assert route.call_count == 0


# --- error translation ----------------------------------------------------------------------


# Each outcome is made fresh per request: an exception instance is never raised twice.
ERROR_CASES = [
    pytest.param(lambda: httpx.ConnectError("refused"), ObsidianUnreachable, {}, id="connect"),
    pytest.param(lambda: httpx.ReadError("reset"), ObsidianUnreachable, {}, id="read-error"),
    pytest.param(lambda: httpx.RemoteProtocolError("eof"), ObsidianUnreachable, {}, id="dropped"),
    pytest.param(lambda: httpx.WriteError("broken pipe"), ObsidianUnreachable, {}, id="write"),
    pytest.param(lambda: httpx.ProxyError("proxy"), ObsidianUnreachable, {}, id="proxy"),
    pytest.param(
        lambda: httpx.ConnectTimeout("slow"),
        ObsidianTimeout,
        {"seconds": 2.0},
        id="connect-timeout",
    ),
    pytest.param(
        lambda: httpx.ReadTimeout("slow"), ObsidianTimeout, {"seconds": 2.0}, id="read-timeout"
    ),
    pytest.param(
        lambda: error(401, 40101, "Authorization required.  Find your API Key in the settings."),
        AuthenticationFailed,
        {},
        id="401",
    ),
    pytest.param(
        lambda: error(404, 40400, "Not Found"), NotFound, {"path": "Notes/a.md"}, id="404"
    ),
    pytest.param(
        lambda: error(405, 40510, "Request method valid only for files"),
        ObsidianAPIError,
        {"status": 405, "error_code": 40510},
        id="405-folder",
    ),
    pytest.param(
        lambda: error(405, 40500, "Method Not Allowed"),
        ObsidianAPIError,
        {"status": 405, "error_code": 40500},
        id="405-other",
    ),
    pytest.param(
        lambda: error(400, 40021, "Path traversal not allowed"),
        ObsidianAPIError,
        {"status": 400, "error_code": 40021},
        id="400-traversal",
    ),
    pytest.param(
        lambda: error(400, 40070, "Invalid filter query\nUnrecognized operation foo"),
        ObsidianAPIError,
        {"error_code": 40070, "api_message": "Invalid filter query: Unrecognized operation foo"},
        id="400-filter-query",
    ),
    pytest.param(
        lambda: error(400, 40090, "Invalid search"),
        ObsidianAPIError,
        {"error_code": 40090},
        id="400-search",
    ),
    pytest.param(
        lambda: error(400, 40011, "Content-Type specification required"),
        ObsidianAPIError,
        {"error_code": 40011},
        id="400-content-type-missing",
    ),
    pytest.param(
        lambda: error(400, 40012, "Invalid content type"),
        ObsidianAPIError,
        {"error_code": 40012},
        id="400-content-type-invalid",
    ),
    pytest.param(
        lambda: error(400, 40099, "Something new."),
        ObsidianAPIError,
        {"error_code": 40099, "api_message": "Something new"},
        id="400-unknown-code",
    ),
    pytest.param(
        lambda: error(412, 41200, "Precondition Failed"),
        ObsidianAPIError,
        {"status": 412, "error_code": 41200},
        id="412",
    ),
    pytest.param(
        lambda: error(500, 50000, "Internal Server Error"),
        ObsidianAPIError,
        {"status": 500, "error_code": 50000},
        id="500",
    ),
    pytest.param(
        lambda: httpx.Response(502, text="<html><body>Bad gateway</body></html>"),
        ObsidianAPIError,
        {"status": 502, "error_code": None, "api_message": "Bad Gateway"},
        id="502-html",
    ),
    pytest.param(
        lambda: httpx.Response(500),
        ObsidianAPIError,
        {"status": 500, "error_code": None, "api_message": "Internal Server Error"},
        id="500-empty",
    ),
    pytest.param(
        lambda: httpx.Response(400, json={"message": 3, "errorCode": "40021"}),
        ObsidianAPIError,
        {"error_code": None, "api_message": "Bad Request"},
        id="400-wrong-types",
    ),
    pytest.param(
        lambda: httpx.Response(400, json={"message": "m", "errorCode": True}),
        ObsidianAPIError,
        {"error_code": None, "api_message": "m"},
        id="400-boolean-code",
    ),
    pytest.param(
        lambda: httpx.Response(400, content=b"\xff\xfe\x00garbage"),
        ObsidianAPIError,
        {"error_code": None, "api_message": "Bad Request"},
        id="400-not-utf8",
    ),
    pytest.param(
        lambda: httpx.Response(409, json=["not", "an", "object"]),
        ObsidianAPIError,
        {"status": 409, "error_code": None, "api_message": "Conflict"},
        id="409-not-an-object",
    ),
    pytest.param(
        lambda: httpx.Response(302, headers={"Location": "/login"}),
        ObsidianAPIError,
        {"status": 302},
        id="redirect",
    ),
]


@pytest.mark.parametrize(("make", "expected", "fields"), ERROR_CASES)
async def test_failures_become_obsidian_errors(
    client: ObsidianClient,
    router: respx.Router,
    make: Callable[[], Any],
    expected: type[ObsidianError],
    fields: dict[str, Any],
) -> None:
    outcome = make()
    router.get("/vault/Notes/a.md").mock(side_effect=[outcome, make()])

    with pytest.raises(expected) as caught:
        await client.read_note("Notes/a.md")

    for name, value in fields.items():
        assert getattr(caught.value, name) == value
    if isinstance(outcome, Exception):  # translated once, with `raise ... from exc`
        assert isinstance(caught.value.__cause__, httpx.TransportError)


def certificate_failure() -> ssl.SSLError:
    failure = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED]")
    failure.verify_message = "self-signed certificate"
    return failure


def handshake_failure() -> ssl.SSLError:
    failure = ssl.SSLError(1, "[SSL: WRONG_VERSION_NUMBER] wrong version number")
    failure.reason = "WRONG_VERSION_NUMBER"
    return failure


class TLSFailingTransport(httpx.AsyncBaseTransport):
    """Fails as httpx does on a bad certificate: ConnectError <- httpcore's <- ssl's error.

    Not a respx route: respx re-raises side-effect errors with a cause of its own, which
    would hide the ssl error this test is about.
    """

    def __init__(self, make_failure: Callable[[], ssl.SSLError]) -> None:
        self.make_failure = make_failure
        self.calls = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        try:
            try:
                raise self.make_failure()
            except ssl.SSLError as exc:
                raise httpcore.ConnectError(str(exc)) from exc
        except httpcore.ConnectError as exc:
            raise httpx.ConnectError(str(exc), request=request) from exc


@pytest.mark.parametrize(
    ("make_failure", "detail"),
    [
        pytest.param(certificate_failure, "self-signed certificate", id="certificate"),
        pytest.param(handshake_failure, "WRONG_VERSION_NUMBER", id="handshake"),
    ],
)
async def test_tls_failures_become_tls_errors_and_are_not_retried(
    settings: ObsidianSettings, make_failure: Callable[[], ssl.SSLError], detail: str
) -> None:
    transport = TLSFailingTransport(make_failure)
    client = ObsidianClient(settings, await build_http_client(settings, transport=transport))

    with pytest.raises(ObsidianTLSError) as caught:
        await client.read_note("a.md")
    await client.aclose()

    assert caught.value.detail == detail
    assert caught.value.url == "http://127.0.0.1:27123"
    assert detail in str(caught.value)
    assert transport.calls == 1


@pytest.mark.parametrize(
    ("code", "hint"),
    [
        pytest.param(40021, "vault-relative path", id="40021"),
        pytest.param(40070, "check the JsonLogic/DQL syntax", id="40070"),
        pytest.param(40090, "non-empty query", id="40090"),
        pytest.param(40011, 'queryType="jsonlogic"', id="40011"),
        pytest.param(40012, 'queryType="jsonlogic"', id="40012"),
        pytest.param(40015, "not valid JSON", id="40015"),
    ],
)
async def test_bad_request_codes_carry_a_hint(
    client: ObsidianClient, router: respx.Router, code: int, hint: str
) -> None:
    router.post("/search/").mock(return_value=error(400, code, "Refused"))

    with pytest.raises(ObsidianAPIError) as caught:
        await client.search_jsonlogic({"var": "path"})
    assert hint.lower() in str(caught.value).lower()
    assert f"(errorCode {code})" in str(caught.value)


async def test_a_folder_read_as_a_note_says_to_list_it(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.get("/vault/Projects/").mock(
        return_value=error(405, 40510, "Request method valid only for files")
    )

    with pytest.raises(ObsidianAPIError, match=r"folder; list_vault_files\(directory="):
        await client.read_note("Projects/")


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_server_errors_suggest_a_retry(
    client: ObsidianClient, router: respx.Router, status: int
) -> None:
    router.get("/vault/a.md").respond(status)

    with pytest.raises(ObsidianAPIError, match="retry, or check Obsidian's developer console"):
        await client.read_note("a.md")


async def test_search_timeouts_report_the_search_timeout(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.post("/search/simple/").mock(side_effect=httpx.ReadTimeout("slow"))

    with pytest.raises(ObsidianTimeout) as caught:
        await client.search_simple("x", 10)
    assert caught.value.seconds == 30.0


async def test_searches_wait_for_the_search_timeout_and_reads_for_the_timeout(
    client: ObsidianClient, router: respx.Router
) -> None:
    search = router.post("/search/simple/").respond(200, json=[])
    read = router.get("/vault/a.md").respond(200, text="x")

    await client.search_simple("x", 10)
    await client.read_note("a.md")

    assert search.calls.last.request.extensions["timeout"]["read"] == 30.0
    assert read.calls.last.request.extensions["timeout"]["read"] == 2.0


async def test_no_error_message_or_log_line_contains_the_key(
    settings: ObsidianSettings,
    client: ObsidianClient,
    router: respx.Router,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    errors: list[ObsidianError] = []
    for case in ERROR_CASES:
        make = cast(Callable[[], Any], case.values[0])
        router.clear()
        router.get("/vault/Notes/a.md").mock(side_effect=[make(), make()])
        with pytest.raises(ObsidianError) as caught:
            await client.read_note("Notes/a.md")
        errors.append(caught.value)
    for make_failure in (certificate_failure, handshake_failure):
        transport = TLSFailingTransport(make_failure)
        tls_client = ObsidianClient(
            settings, await build_http_client(settings, transport=transport)
        )
        with pytest.raises(ObsidianError) as caught:
            await tls_client.read_note("Notes/a.md")
        await tls_client.aclose()
        errors.append(caught.value)

    texts = [text for exc in errors for text in (str(exc), repr(exc), *map(str, exc.args))]
    assert len(errors) == len(ERROR_CASES) + 2
    assert [text for text in texts if API_KEY in text] == []
    assert caplog.records
    assert API_KEY not in caplog.text
    assert "Bearer" not in caplog.text


# --- retries --------------------------------------------------------------------------------

DROPS = [
    pytest.param(lambda: httpx.RemoteProtocolError("Server disconnected"), id="remote-protocol"),
    pytest.param(lambda: httpx.ReadError("connection reset"), id="read-error"),
    pytest.param(lambda: httpx.ConnectError("connection refused"), id="connect-error"),
]

GETS = [
    pytest.param(lambda c: c.read_note("a.md"), "/vault/a.md", id="read_note"),
    pytest.param(lambda c: c.read_note_json("a.md"), "/vault/a.md", id="read_note_json"),
    pytest.param(lambda c: c.list_directory(""), "/vault/", id="list_directory"),
    pytest.param(lambda c: c.status(), "/", id="status"),
]

OK_ANSWERS = {
    "/vault/a.md": {"path": "a.md", "content": "x"},
    "/vault/": {"files": []},
    "/": root_answer(),
}


@pytest.mark.parametrize("drop", DROPS)
@pytest.mark.parametrize(("call", "path"), GETS)
async def test_a_get_is_retried_once_after_a_dropped_connection(
    client: ObsidianClient,
    router: respx.Router,
    call: Call,
    path: str,
    drop: Callable[[], Exception],
) -> None:
    route = router.get(path).mock(side_effect=[drop(), httpx.Response(200, json=OK_ANSWERS[path])])

    await call(client)

    assert route.call_count == 2


async def test_tags_and_document_maps_are_retried_too(
    client: ObsidianClient, router: respx.Router
) -> None:
    serve_version(router, "5.1.0")
    tags = router.get("/tags/").mock(
        side_effect=[httpx.ReadError("reset"), httpx.Response(200, json={"tags": []})]
    )
    doc_map = router.get("/vault/a.md").mock(
        side_effect=[httpx.ReadError("reset"), httpx.Response(200, json={"headings": {}})]
    )

    assert await client.list_tags() == []
    assert (await client.read_document_map("a.md")).headings == []
    assert (tags.call_count, doc_map.call_count) == (2, 2)


@pytest.mark.parametrize("drop", DROPS)
async def test_a_get_dropped_twice_is_unreachable(
    client: ObsidianClient, router: respx.Router, drop: Callable[[], Exception]
) -> None:
    route = router.get("/vault/a.md").mock(
        side_effect=[drop(), drop(), httpx.Response(200, text="x")]
    )

    with pytest.raises(ObsidianUnreachable) as caught:
        await client.read_note("a.md")
    assert caught.value.url == "http://127.0.0.1:27123"
    assert route.call_count == 2


async def test_a_retried_get_returns_the_second_answer(
    client: ObsidianClient, router: respx.Router
) -> None:
    router.get("/vault/a.md").mock(
        side_effect=[httpx.RemoteProtocolError("eof"), httpx.Response(200, text="second")]
    )

    assert (await client.read_note("a.md")).content == "second"


@pytest.mark.parametrize(
    "outcome",
    [
        pytest.param(lambda: httpx.ReadTimeout("slow"), id="read-timeout"),
        pytest.param(lambda: httpx.ConnectTimeout("slow"), id="connect-timeout"),
        pytest.param(lambda: httpx.WriteError("pipe"), id="write-error"),
        pytest.param(lambda: httpx.Response(503), id="503"),
    ],
)
async def test_timeouts_other_failures_and_answers_are_not_retried(
    client: ObsidianClient, router: respx.Router, outcome: Callable[[], Any]
) -> None:
    route = router.get("/vault/a.md").mock(side_effect=[outcome(), httpx.Response(200, text="x")])

    with pytest.raises(ObsidianError):
        await client.read_note("a.md")
    assert route.call_count == 1


@pytest.mark.parametrize("drop", DROPS)
@pytest.mark.parametrize(
    ("call", "path"),
    [
        pytest.param(lambda c: c.search_simple("x", 10), "/search/simple/", id="simple"),
        pytest.param(lambda c: c.search_jsonlogic({"var": "path"}), "/search/", id="jsonlogic"),
        pytest.param(
            lambda c: c.search_smart("x", folders=None, exclude_folders=None, limit=3),
            "/search/smart",
            id="smart",
        ),
    ],
)
async def test_a_post_is_never_retried(
    client: ObsidianClient,
    router: respx.Router,
    call: Call,
    path: str,
    drop: Callable[[], Exception],
) -> None:
    route = router.post(path).mock(side_effect=[drop(), httpx.Response(200, json=[])])

    with pytest.raises(ObsidianUnreachable):
        await call(client)
    assert route.call_count == 1


# --- logging --------------------------------------------------------------------------------


async def test_each_request_is_logged_at_debug_with_status_and_time(
    client: ObsidianClient, router: respx.Router, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="vaultgate.obsidian")
    router.get("/vault/a%20b.md").respond(200, text="x")

    await client.read_note("a b.md")

    lines = [r.getMessage() for r in caplog.records if r.name == "vaultgate.obsidian"]
    assert any(re.fullmatch(r"GET /vault/a%20b\.md -> 200 in \d+ ms", line) for line in lines)
    assert all(r.levelno == logging.DEBUG for r in caplog.records)
    assert API_KEY not in caplog.text


async def test_base_url_and_aclose(settings: ObsidianSettings, router: respx.Router) -> None:
    http = await build_http_client(settings, transport=httpx.MockTransport(router.async_handler))
    client = ObsidianClient(settings, http)

    assert client.base_url == "http://127.0.0.1:27123"
    await client.aclose()
    assert http.is_closed
