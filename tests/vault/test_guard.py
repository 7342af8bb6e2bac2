"""The guarded client against the plugin's answers (respx): what it sends, what it filters.

These are the holes a check-then-send guard leaves: hidden paths in the plugin's answers, the
note open in Obsidian changing between the check and the write, a folder path sent to DELETE
(the real plugin trashes the whole folder), and denied names that can be probed.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable
from urllib.parse import quote

import httpx
import pytest
import respx
from tests.obsidian.obsidian_fakes import API_KEY, HTTP_BASE, serve_version

from vaultgate.config import ObsidianSettings, SafetySettings, Secret
from vaultgate.errors import (
    AccessDenied,
    FeatureUnavailable,
    HiddenPath,
    InvalidArgument,
    MoveRewritesKept,
    NameTooLong,
    NotANote,
    NotFound,
    PathUnknown,
    ProtectedNote,
    ReplacedButNotMoved,
    UnicodeTwin,
)
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client
from vaultgate.patch_request import PatchRequest
from vaultgate.paths import encode_vault_path
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.policy import AccessPolicy

pytestmark = pytest.mark.anyio

Guarded = Callable[..., AsyncIterator[GuardedClient]]
PATCH = PatchRequest(operation="append", target_type="heading", target=("Plan",), content="x")
SETTINGS = ObsidianSettings(api_key=Secret(API_KEY), protocol="http", port=27123, timeout=2.0)


@pytest.fixture
def router() -> respx.Router:
    router = respx.Router(base_url=HTTP_BASE, assert_all_called=False)
    serve_version(router, "5.1.0")
    router.post("/search/").respond(200, json=[])  # no note carries a protection tag
    return router


async def guarded_client(router: respx.Router, **safety: object) -> GuardedClient:
    http = await build_http_client(SETTINGS, transport=httpx.MockTransport(router.async_handler))
    policy = AccessPolicy(SafetySettings(**safety))  # type: ignore[arg-type]
    return GuardedClient(ObsidianClient(SETTINGS, http), policy)


def active(router: respx.Router, path: str | None, text: str = "# Note\n") -> respx.Route:
    headers = {"Content-Type": "text/markdown; charset=utf-8"}
    if path is not None:
        headers["Content-Location"] = path
        headers["Content-Disposition"] = f'attachment; filename="{path}"'
    return router.get("/active/").respond(200, text=text, headers=headers)


def writes(router: respx.Router) -> list[str]:
    """Every write request sent, as 'METHOD path'."""
    return [
        f"{call.request.method} {call.request.url.path}"
        for call in router.calls
        if call.request.method != "GET"
    ]


# --- hidden paths in the plugin's answers ---------------------------------------------------


async def test_hidden_entries_in_a_listing_are_dropped_without_any_policy(
    router: respx.Router,
) -> None:
    router.get("/vault/").respond(
        200, json={"files": [".obsidian/", ".DS_Store", "Notes/", "a.md", ".trash/"]}
    )
    client = await guarded_client(router)

    assert await client.list_directory("") == ["Notes/", "a.md"]


async def test_hidden_hits_in_search_answers_are_dropped(router: respx.Router) -> None:
    router.post("/search/simple/").respond(
        200,
        json=[
            {"filename": ".trash/old.md", "score": 2, "matches": []},
            {"filename": "Notes/.draft.md", "score": 1, "matches": []},
            {"filename": "Notes/a.md", "score": 0.5, "matches": []},
        ],
    )
    router.post("/search/").respond(
        200, json=[{"filename": ".obsidian/app.json", "result": True}, {"filename": "b.md"}]
    )
    # each note whose text an answer shows is read for its tags as it is now
    router.get("/vault/Notes/a.md").respond(200, text="# A 日本\r\n")
    router.get("/vault/b.md").respond(200, text="b 🙂\n")
    client = await guarded_client(router)

    assert [h["filename"] for h in await client.search_simple("x", 10)] == ["Notes/a.md"]
    assert [r["filename"] for r in await client.search_jsonlogic({"var": "path"})] == ["b.md"]


async def test_a_hidden_active_note_is_refused_without_being_named(router: respx.Router) -> None:
    active(router, ".obsidian/workspace.md", "secret")
    client = await guarded_client(router)

    with pytest.raises(HiddenPath) as read:
        await client.read_note(None)
    with pytest.raises(HiddenPath) as write:
        await client.append_note(None, "x")

    for caught in (read, write):
        assert ".obsidian" not in str(caught.value).replace(".obsidian/, ", "")
        assert "the note open in obsidian" in str(caught.value).lower()
    assert writes(router) == []


# --- the active note: resolved first, written by its path -----------------------------------


async def test_an_active_note_write_goes_to_the_checked_path_never_to_active(
    router: respx.Router,
) -> None:
    active(router, "Public/today.md")
    router.post("/vault/Public/today.md").respond(204)
    router.put("/vault/Public/today.md").respond(204)
    router.delete("/vault/Public/today.md").respond(204)
    router.get("/vault/Public/").respond(200, json={"files": ["today.md"]})
    client = await guarded_client(router, deny=("Private/**",))

    await client.append_note(None, "more")
    await client.write_note(None, "new text")
    await client.delete_note(None, permanent=False)

    assert writes(router) == [
        "POST /vault/Public/today.md",
        "PUT /vault/Public/today.md",
        "DELETE /vault/Public/today.md",
    ]


async def test_switching_to_a_denied_note_before_the_write_changes_nothing(
    router: respx.Router,
) -> None:
    # The check and the write are one decision: the open note is asked once, and the write
    # goes to that path, so a note opened meanwhile can never receive it.
    route = active(router, "Private/diary.md")
    client = await guarded_client(router, deny=("Private",))

    with pytest.raises(AccessDenied) as caught:
        await client.append_note(None, "x")

    assert "Private" not in str(caught.value)
    assert "diary" not in str(caught.value)
    assert "the note open in Obsidian" in str(caught.value)
    assert route.call_count == 1
    assert writes(router) == []


async def test_a_patch_of_the_active_note_reads_the_map_of_the_checked_path(
    router: respx.Router,
) -> None:
    active(router, "Public/today.md")
    map_route = router.get("/vault/Public/today.md").respond(
        200,
        json={"headings": {}, "blocks": [], "frontmatterFields": []},
        headers={"Content-Disposition": 'attachment; filename="Public/today.md"'},
    )
    client = await guarded_client(router)

    await client.read_document_map(None)

    assert map_route.called
    assert [c.request.url.path for c in router.calls].count("/active/") == 1


@pytest.mark.parametrize(
    "safety", [pytest.param({}, id="no-policy"), pytest.param({"deny": ("x/**",)}, id="policy")]
)
async def test_an_active_note_whose_path_is_not_reported_is_not_written(
    router: respx.Router, safety: dict[str, object]
) -> None:
    active(router, None)
    client = await guarded_client(router, **safety)

    with pytest.raises(PathUnknown, match="did not report which note"):
        await client.append_note(None, "x")
    assert writes(router) == []


async def test_a_periodic_append_is_written_to_the_resolved_note(router: respx.Router) -> None:
    serve_version(router, "4.1.7")
    router.get("/periodic/daily/").respond(
        200, text="# Today\n", headers={"Content-Location": "Daily/2026-11-23.md"}
    )
    router.post("/vault/Daily/2026-11-23.md").respond(204)
    client = await guarded_client(router, deny=("Private/**",))

    await client.append_periodic("daily", "- item", None)

    assert writes(router) == ["POST /vault/Daily/2026-11-23.md"]


async def test_a_denied_periodic_note_is_refused_without_being_named(
    router: respx.Router,
) -> None:
    serve_version(router, "4.1.7")
    router.get("/periodic/daily/").respond(
        200, text="# Today\n", headers={"Content-Location": "Journal/2026-11-23.md"}
    )
    client = await guarded_client(router, deny=("Journal",))

    with pytest.raises(AccessDenied) as caught:
        await client.append_periodic("daily", "- item", None)

    assert "Journal" not in str(caught.value)
    assert writes(router) == []


# --- folders are not notes ------------------------------------------------------------------


@pytest.mark.parametrize("path", ["Private", "Private/", "Projects/Acme"])
async def test_a_folder_path_is_never_sent_to_delete(router: respx.Router, path: str) -> None:
    router.get("/vault/").respond(200, json={"files": ["Private/", "Projects/", "a.md"]})
    router.get("/vault/Projects/").respond(200, json={"files": ["Acme/", "b.md"]})
    client = await guarded_client(router)

    with pytest.raises(NotANote, match="bulk_delete_files") as caught:
        await client.delete_note(path, permanent=False)

    assert "dryRun=true" in str(caught.value)
    assert writes(router) == []


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda c: c.write_note("Private", "x"), id="put"),
        pytest.param(lambda c: c.append_note("Private", "x"), id="post"),
        pytest.param(lambda c: c.move_note("Private", "Elsewhere", overwrite=False), id="move"),
    ],
)
async def test_a_folder_path_is_never_written_as_a_note(
    router: respx.Router, write: Callable[[GuardedClient], object]
) -> None:
    router.get("/vault/").respond(200, json={"files": ["Private/", "a.md"]})
    client = await guarded_client(router)

    with pytest.raises(NotANote):
        await write(client)  # type: ignore[misc]
    assert writes(router) == []


async def test_a_note_read_answered_with_a_folder_listing_is_not_a_note(
    router: respx.Router,
) -> None:
    # The plugin lists a folder whose path comes without its slash: no Content-Disposition.
    router.get("/vault/Private").respond(200, json={"files": ["diary.md", "plans.md"]})
    client = await guarded_client(router)

    with pytest.raises(NotANote) as caught:
        await client.read_note("Private")
    assert "diary" not in str(caught.value)


# --- denied names cannot be probed ----------------------------------------------------------


async def test_a_denied_folder_answers_exactly_as_a_missing_one(router: respx.Router) -> None:
    router.get("/vault/Public/Nope/").respond(404, json={"errorCode": 40400, "message": "Not"})
    plain = ObsidianClient(
        SETTINGS,
        await build_http_client(SETTINGS, transport=httpx.MockTransport(router.async_handler)),
    )
    client = await guarded_client(router, deny=("Private/**",))

    with pytest.raises(NotFound) as missing:
        await plain.list_directory("Public/Nope")
    for denied in ("Private", "Private/", "Private/Sub"):
        with pytest.raises(NotFound) as caught:
            await client.list_directory(denied)
        assert str(caught.value) == str(missing.value).replace("Public/Nope", denied).replace(
            '"Public"', json.dumps(denied.removesuffix("/").rpartition("/")[0])
        )
    assert not [c for c in router.calls if "Private" in c.request.url.path]


async def test_links_and_backlinks_to_denied_or_hidden_notes_are_dropped(
    router: respx.Router,
) -> None:
    router.get("/vault/Public/a.md").respond(
        200,
        json={
            "path": "Public/a.md",
            "content": "",
            "links": ["Public/b.md", "Private/plans.md"],
            "backlinks": ["Private/diary.md", ".trash/Private/old.md", "Public/c.md"],
        },
        headers={"Content-Disposition": 'attachment; filename="Public/a.md"'},
    )
    client = await guarded_client(router, deny=("Private",))

    note = await client.read_note_json("Public/a.md")

    assert note["links"] == ["Public/b.md"]
    assert note["backlinks"] == ["Public/c.md"]


# --- a move with overwrite=true trashes what it replaces (issue 21) ---------------------------

SOURCE = "Inbox/new 日本 🚀.md"
TAKEN = "Archive/old 100% #1.md"


def note_answer(
    router: respx.Router, path: str, text: str = "# Note\n", *, backlinks: tuple[str, ...] = ()
) -> respx.Route:
    """The note as markdown, or as note JSON (with its backlinks) when that is asked for."""

    def answer(request: httpx.Request) -> httpx.Response:
        if "note+json" in request.headers.get("accept", ""):
            note = {
                "path": path,
                "content": text,
                "frontmatter": {},
                "tags": [],
                "stat": {"ctime": 0, "mtime": 0, "size": len(text)},
                "links": [],
                "backlinks": list(backlinks),
            }
            return httpx.Response(200, json=note)
        return httpx.Response(
            200,
            text=text,
            headers={
                "Content-Type": "text/markdown; charset=utf-8",
                "Content-Disposition": f'attachment; filename="{quote(path)}"',
            },
        )

    return router.get(f"/vault/{encode_vault_path(path)}").mock(side_effect=answer)


def no_note(router: respx.Router, path: str) -> respx.Route:
    return router.get(f"/vault/{encode_vault_path(path)}").respond(
        404, json={"errorCode": 40400, "message": "Not"}
    )


def changes(router: respx.Router) -> list[str]:
    """The writes sent (the search for marked notes left out)."""
    return [request for request in writes(router) if request != "POST /search/"]


def requests(router: respx.Router) -> list[str]:
    """Every request but the plugin's GET /, as 'METHOD path' (decoded)."""
    return [
        f"{call.request.method} {call.request.url.path}"
        for call in router.calls
        if call.request.url.path != "/"
    ]


def a_move_onto_a_taken_name(router: respx.Router, version: str) -> respx.Route:
    serve_version(router, version)
    note_answer(router, SOURCE, "# New\n")
    note_answer(router, TAKEN, "# Old\n")
    router.get("/vault/Archive/").respond(200, json={"files": ["old 100% #1.md"]})
    router.delete(f"/vault/{encode_vault_path(TAKEN)}").respond(204)
    return router.route(method="MOVE", path=f"/vault/{SOURCE}").respond(204)


@pytest.mark.parametrize("version", ["4.1.7", "5.1.0"])
async def test_a_move_with_overwrite_trashes_the_destination_then_moves_without_overwriting(
    router: respx.Router, version: str
) -> None:
    move = a_move_onto_a_taken_name(router, version)
    client = await guarded_client(router)

    await client.move_note(SOURCE, TAKEN, overwrite=True, dry_run=True)
    assert changes(router) == []
    await client.move_note(SOURCE, TAKEN, overwrite=True)

    assert changes(router) == [f"DELETE /vault/{TAKEN}", f"MOVE /vault/{SOURCE}"]
    delete = next(c.request for c in router.calls if c.request.method == "DELETE")
    assert "permanent" not in delete.url.params  # as delete_note(permanent=False) sends it
    assert "Allow-Overwrite" not in move.calls.last.request.headers


async def test_nothing_is_trashed_for_a_move_that_cannot_happen(router: respx.Router) -> None:
    a_move_onto_a_taken_name(router, "5.1.0")
    for tag in ("mcp-protected", "mcp-readonly"):
        note_answer(router, f"Archive/{tag}.md", f"---\ntags: [{tag}]\n---\n# Kept\n")
    no_note(router, "Inbox/gone.md")
    client = await guarded_client(router)
    old_plugin = respx.Router(base_url=HTTP_BASE, assert_all_called=False)
    a_move_onto_a_taken_name(old_plugin, "3.6.2")
    old_plugin.post("/search/").respond(200, json=[])

    for tag in ("mcp-protected", "mcp-readonly"):
        with pytest.raises(ProtectedNote, match=tag):
            await client.move_note(SOURCE, f"Archive/{tag}.md", overwrite=True)
    with pytest.raises(NotFound, match="gone"):
        await client.move_note("Inbox/gone.md", TAKEN, overwrite=True)
    with pytest.raises(FeatureUnavailable):  # no MOVE: nothing may be trashed for it
        await (await guarded_client(old_plugin)).move_note(SOURCE, TAKEN, overwrite=True)

    assert changes(router) == []
    assert changes(old_plugin) == []


@pytest.mark.parametrize("version", ["4.1.7", "5.1.0"])
async def test_a_move_is_refused_before_any_change_when_obsidian_would_rewrite_a_kept_backlink(
    router: respx.Router, version: str
) -> None:
    """Obsidian's rename rewrites the backlinks: each is read now and its tags decide."""
    serve_version(router, version)
    readonly = unicodedata.normalize("NFD", "Locked/Résumé ro.md")
    hidden, denied, free = "Secret/h 🙈.md", "private/x #1.md", "Notes/free.md"
    note_answer(router, SOURCE, backlinks=(readonly, hidden, denied, free, SOURCE))
    no_note(router, "Archive/moved.md")
    note_answer(router, readonly, "---\nTags: [MCP-ReadOnly]\n---\n[[new 日本 🚀]]\n")
    note_answer(router, hidden, "---\ntags: mcp-hidden\n---\n[[new 日本 🚀]]\n")
    note_answer(router, free, "[[new 日本 🚀]]\n")
    router.get("/vault/Archive/").respond(404, json={"errorCode": 40400, "message": "Not"})
    router.route(method="MOVE").respond(204)
    client = await guarded_client(router, deny=("Private",))

    for dry_run in (True, False):
        with pytest.raises(MoveRewritesKept) as caught:
            await client.move_note(SOURCE, "Archive/moved.md", overwrite=False, dry_run=dry_run)
        assert caught.value.kept == ((readonly, "mcp-readonly"),)
        assert caught.value.unshown == 2
        assert "h 🙈" not in str(caught.value)
        assert "x #1" not in str(caught.value)

    assert changes(router) == []
    assert f"GET /vault/{denied}" not in requests(router)  # a denied note is not even read


async def test_a_plugin_without_move_rewrites_no_link_so_no_backlink_is_asked(
    router: respx.Router,
) -> None:
    serve_version(router, "3.6.2")
    note_answer(router, SOURCE, backlinks=("Locked/ro.md",))
    no_note(router, "Archive/moved.md")
    router.get("/vault/Archive/").respond(404, json={"errorCode": 40400, "message": "Not"})
    client = await guarded_client(router)

    await client.move_note(SOURCE, "Archive/moved.md", overwrite=False, dry_run=True)

    assert all("note+json" not in call.request.headers.get("accept", "") for call in router.calls)


@pytest.mark.parametrize(
    ("version", "fate"),
    [
        pytest.param("5.1.0", "went to Obsidian's trash", id="5.1.0"),
        pytest.param("4.1.7", "was deleted (Local REST API 4.1.7 has no trash)", id="4.1.7"),
    ],
)
async def test_a_move_failing_after_the_trash_says_where_the_replaced_note_went(
    router: respx.Router, version: str, fate: str
) -> None:
    a_move_onto_a_taken_name(router, version).respond(500, json={"message": "disk full"})
    client = await guarded_client(router)

    with pytest.raises(ReplacedButNotMoved) as caught:
        await client.move_note(SOURCE, TAKEN, overwrite=True)

    message = str(caught.value)
    assert message.startswith(f"The note that was at {TAKEN!r} {fate}")
    assert f"so {SOURCE!r} was not moved" in message
    assert "disk full" in message
    assert caught.value.path == TAKEN
    assert changes(router) == [f"DELETE /vault/{TAKEN}", f"MOVE /vault/{SOURCE}"]


@pytest.mark.parametrize(
    "destination",
    [
        pytest.param("Inbox/NEW 日本 🚀.md", id="letter-case"),
        pytest.param("Inbox/new 日本 🚀.MD", id="extension-case"),
    ],
)
async def test_a_move_onto_another_case_of_the_source_never_trashes_it(
    router: respx.Router, destination: str
) -> None:
    # on a disk that ignores case the destination is the source itself
    serve_version(router, "5.1.0")
    note_answer(router, SOURCE)
    note_answer(router, destination)
    router.get("/vault/Inbox/").respond(200, json={"files": ["new 日本 🚀.md"]})
    move = router.route(method="MOVE", path=f"/vault/{SOURCE}").respond(204)
    client = await guarded_client(router)

    await client.move_note(SOURCE, destination, overwrite=True)
    # a disk that tells case apart may hold both: the other one is not replaced either
    move.respond(409, json={"errorCode": 40920, "message": "Destination file already exists"})
    with pytest.raises(InvalidArgument, match="only in letter case or Unicode form"):
        await client.move_note(SOURCE, destination, overwrite=True)

    assert changes(router) == [f"MOVE /vault/{SOURCE}"] * 2
    assert all("Allow-Overwrite" not in call.request.headers for call in move.calls)


# --- names the disk cannot hold (issue 21) ----------------------------------------------------

LONG = "Notes/" + "日本語 🚀" * 19 + ".md"  # 266 bytes in one name


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda c: c.read_note(LONG), id="read"),
        pytest.param(lambda c: c.read_note_json(LONG), id="read-json"),
        pytest.param(lambda c: c.read_document_map(LONG), id="map"),
        pytest.param(lambda c: c.note_size(LONG), id="size"),
        pytest.param(lambda c: c.write_note(LONG, "x"), id="create"),
        pytest.param(lambda c: c.append_note(LONG, "x"), id="append"),
        pytest.param(lambda c: c.patch_note(LONG, PATCH), id="patch"),
        pytest.param(lambda c: c.delete_note(LONG, permanent=False), id="delete"),
        pytest.param(lambda c: c.move_note(LONG, "a.md", overwrite=False), id="move-source"),
        pytest.param(lambda c: c.move_note("a.md", LONG, overwrite=True), id="move-destination"),
        pytest.param(lambda c: c.list_directory(LONG.removesuffix(".md")), id="list"),
        pytest.param(lambda c: c.open_note(LONG, new_leaf=False), id="open"),
        pytest.param(
            lambda c: c.execute_template("T.md", {}, create_file=True, target_path="x" * 253),
            id="template-target-with-the-md-added",
        ),
    ],
)
async def test_a_name_too_long_for_a_disk_is_refused_before_any_request(
    router: respx.Router, call: Callable[[GuardedClient], Awaitable[object]]
) -> None:
    client = await guarded_client(router)

    with pytest.raises(NameTooLong, match=r"a name can hold at most 255 bytes \(UTF-8\); '"):
        await call(client)

    assert router.calls.call_count == 0


# --- names in another Unicode form (issue 21) -------------------------------------------------

NFC_NAME = "Notes/Café ☕ #1.md"
NFD_NAME = unicodedata.normalize("NFD", NFC_NAME)


def listing(router: respx.Router, folder: str, *entries: str) -> respx.Route:
    return router.get(f"/vault/{encode_vault_path(folder)}").respond(
        200, json={"files": list(entries)}
    )


@pytest.mark.parametrize(
    ("new", "existing"),
    [
        pytest.param(NFC_NAME, NFD_NAME, id="nfc-new-nfd-there"),
        pytest.param(NFD_NAME, NFC_NAME, id="nfd-new-nfc-there"),
    ],
)
async def test_a_new_note_named_as_an_existing_one_in_another_unicode_form_is_refused(
    router: respx.Router, new: str, existing: str
) -> None:
    no_note(router, new)
    listed = listing(router, "Notes/", "a.md", existing.removeprefix("Notes/"))
    client = await guarded_client(router)

    with pytest.raises(UnicodeTwin) as caught:
        await client.write_note(new, "x")

    assert str(caught.value) == (
        f"A note named {existing!r} already exists (the same name in another Unicode form); "
        "write to that name instead."
    )
    assert caught.value.existing == existing
    assert listed.call_count == 1
    assert changes(router) == []


async def test_a_twin_of_a_folder_the_note_would_make_is_refused_naming_the_folder(
    router: respx.Router,
) -> None:
    new = "Réunions 2026/Café ☕/plan.md"
    folder = unicodedata.normalize("NFD", "Réunions 2026/")
    no_note(router, new)
    for missing in ("Réunions 2026/Café ☕/", "Réunions 2026/"):
        router.get(f"/vault/{encode_vault_path(missing)}").respond(404, json={"errorCode": 40400})
    listing(router, "", "Inbox/", folder)
    client = await guarded_client(router)

    with pytest.raises(UnicodeTwin, match="A folder named") as caught:
        await client.append_note(new, "x")

    assert caught.value.existing == folder
    assert changes(router) == []


async def test_a_denied_name_is_denied_in_its_other_unicode_form_too(
    router: respx.Router,
) -> None:
    no_note(router, "Private/Café.md")
    listing(router, "", "Private/", unicodedata.normalize("NFD", "Private/Café.md"))
    listing(router, "Private/", unicodedata.normalize("NFD", "Café.md"))
    client = await guarded_client(router, deny=("Private/Cafe\u0301.md",))

    with pytest.raises(AccessDenied) as caught:
        await client.write_note("Private/Café.md", "x")

    assert "Cafe\u0301" not in str(caught.value)  # the name given, never the twin's
    assert changes(router) == []


async def test_a_move_onto_a_twin_is_refused_but_a_rename_to_the_other_form_is_not(
    router: respx.Router,
) -> None:
    serve_version(router, "5.1.0")
    note_answer(router, NFD_NAME)
    note_answer(router, "Inbox/b.md")
    no_note(router, NFC_NAME)
    listing(router, "Notes/", NFD_NAME.removeprefix("Notes/"))
    router.route(method="MOVE").respond(204)
    client = await guarded_client(router)

    with pytest.raises(UnicodeTwin):
        await client.move_note("Inbox/b.md", NFC_NAME, overwrite=False)
    await client.move_note(NFD_NAME, NFC_NAME, overwrite=False)

    assert changes(router) == [f"MOVE /vault/{NFD_NAME}"]


async def test_the_twin_check_lists_a_folder_only_for_a_new_name_that_can_have_a_twin(
    router: respx.Router,
) -> None:
    ascii_name, existing = "Notes/plan 100% #1.md", "Notes/Été 🌞.md"
    no_note(router, ascii_name)
    note_answer(router, existing)
    no_note(router, NFC_NAME)
    listed = listing(router, "Notes/", "Été 🌞.md", NFD_NAME.removeprefix("Notes/"))
    router.route(method="PUT").respond(204)
    client = await guarded_client(router)

    await client.write_note(ascii_name, "x")
    await client.write_note(existing, "x")
    assert listed.call_count == 0
    with pytest.raises(UnicodeTwin):
        await client.write_note(NFC_NAME, "x")

    assert listed.call_count == 1
    assert changes(router) == [f"PUT /vault/{ascii_name}", f"PUT /vault/{existing}"]
