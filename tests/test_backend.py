"""Every note's links from one JsonLogic search (``search_note_links``), against the plugin's
answers (respx): the query per version, and answers a newer plugin may send."""

from __future__ import annotations

import json
import re

import httpx
import pytest
import respx
from tests.obsidian.obsidian_fakes import API_KEY, HTTP_BASE, serve_version

from vaultgate.backend import NoteLinks
from vaultgate.config import ObsidianSettings, SafetySettings, Secret
from vaultgate.errors import FeatureUnavailable
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.policy import AccessPolicy

pytestmark = pytest.mark.anyio

SETTINGS = ObsidianSettings(api_key=Secret(API_KEY), protocol="http", port=27123, timeout=2.0)


async def client_for(router: respx.Router) -> ObsidianClient:
    http = await build_http_client(SETTINGS, transport=httpx.MockTransport(router.async_handler))
    return ObsidianClient(SETTINGS, http)


@pytest.mark.parametrize(
    ("version", "query", "unresolved"),
    [
        pytest.param("4.1.7", {"merge": [[{"var": "links"}]]}, None, id="4.x-links"),
        pytest.param(
            "5.1.0",
            {"merge": [[{"var": "links"}], [{"var": "unresolvedLinks"}]]},
            ("Nowhere",),
            id="5.x-unresolved-too",
        ),
    ],
)
async def test_one_search_asks_for_the_lists_the_version_has(
    version: str, query: object, unresolved: tuple[str, ...] | None
) -> None:
    router = respx.Router(base_url=HTTP_BASE, assert_all_called=False)
    serve_version(router, version)
    rows = [{"filename": "a 🚀.md", "result": [["b.md", "pic.png"], ["Nowhere"]]}]
    search = router.post("/search/").respond(200, json=rows)
    client = await client_for(router)

    notes = await client.note_links()

    assert json.loads(search.calls.last.request.content) == query
    assert notes == [NoteLinks("a 🚀.md", ("b.md", "pic.png"), unresolved)]


async def test_lists_a_newer_plugin_sends_as_null_are_empty_and_odd_rows_are_skipped() -> None:
    router = respx.Router(base_url=HTTP_BASE, assert_all_called=False)
    serve_version(router, "6.0.0")
    router.post("/search/").respond(
        200,
        json=[
            {"filename": "settling.md", "result": [None, None]},
            {"filename": "odd.md", "result": "not a list"},
            {"filename": "mixed.md", "result": [["b.md", 3, None], ["x"]]},
        ],
    )
    client = await client_for(router)

    notes = await client.note_links()

    assert notes == [NoteLinks("settling.md", (), ()), NoteLinks("mixed.md", ("b.md",), ("x",))]


async def test_before_4_0_the_lists_are_not_asked_for() -> None:
    router = respx.Router(base_url=HTTP_BASE, assert_all_called=False)
    serve_version(router, "3.6.2")
    search = router.post("/search/").respond(200, json=[])
    client = await client_for(router)

    with pytest.raises(FeatureUnavailable, match=re.escape(">= 4.0.0; you run 3.6.2")):
        await client.note_links()
    assert not search.called


async def test_the_guard_drops_denied_and_hidden_notes_and_targets() -> None:
    router = respx.Router(base_url=HTTP_BASE, assert_all_called=False)
    serve_version(router, "5.1.0")
    router.post("/search/").respond(
        200,
        json=[
            {"filename": "a.md", "result": [["Private/s.md", "b.md", ".hidden/h.md"], ["Gone"]]},
            {"filename": "Private/s.md", "result": [["a.md"], []]},
        ],
    )
    # a.md links out of reach, so its links are read again from its text (vault/unseen.py)
    router.get("/vault/a.md").respond(
        200,
        text="[[Private/s]] [[b]] [[.hidden/h]] [[Gone]]",
        headers={"Content-Type": "text/markdown"},
    )
    policy = AccessPolicy(SafetySettings(deny=("Private",)))
    guarded = GuardedClient(await client_for(router), policy)

    notes = await guarded.note_links()

    # the denied and hidden targets read as missing notes: unresolved, as "Gone" is
    assert notes == [NoteLinks("a.md", ("b.md",), ("Private/s", ".hidden/h", "Gone"))]
