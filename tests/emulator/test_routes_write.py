"""Whole-file writes: PUT, POST, DELETE, MOVE, COPY on /vault/ and /active/, plus /open/
and /commands/, per plugin version."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import anyio
import pytest

from vaultgate.emulator.app import emulator_state

from .conftest import NOTE_JSON, Api, MakeApp, client

pytestmark = pytest.mark.anyio

MD = {"Content-Type": "text/markdown"}


def error_code(response: object) -> int:
    code: int = response.json()["errorCode"]  # type: ignore[attr-defined]
    return code


# --- PUT ------------------------------------------------------------------------------------


async def test_put_creates_a_note_and_its_folders(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.put("/vault/New/deep/note.md", content="# Hi\n", headers=MD)
        listing = (await http.get("/vault/New/deep/")).json()
    assert response.status_code == 204
    assert response.content == b""
    assert (vault / "New" / "deep" / "note.md").read_text(encoding="utf-8") == "# Hi\n"
    assert listing == {"files": ["note.md"]}


async def test_put_replaces_and_the_next_read_sees_the_new_text(api: Api, vault: Path) -> None:
    async with api() as http:
        before = await http.get("/vault/Welcome.md")
        await http.put("/vault/Welcome.md", content="Same size text!!", headers=MD)
        after = await http.get("/vault/Welcome.md")
    assert before.text != after.text
    assert after.text == "Same size text!!"


async def test_put_of_a_non_text_type_writes_the_bytes(api: Api, vault: Path) -> None:
    data = b"\x89PNG\r\n\x1a\n\x00\xff"
    async with api() as http:
        response = await http.put(
            "/vault/img/x.png", content=data, headers={"Content-Type": "image/png"}
        )
    assert response.status_code == 204
    assert (vault / "img" / "x.png").read_bytes() == data


async def test_put_of_unicode_paths_and_text(api: Api, vault: Path) -> None:
    path = "Notes/Résumé 日本.md"
    async with api() as http:
        response = await http.put(f"/vault/{quote(path)}", content="Ünïcödé ☕\n", headers=MD)
        read = await http.get(f"/vault/{quote(path)}")
    assert response.status_code == 204
    assert read.text == "Ünïcödé ☕\n"


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("/vault/", id="root"),
        pytest.param("/vault/Projects/", id="trailing-slash"),
        pytest.param("/vault/Projects", id="existing-folder"),
        pytest.param("/vault/Welcome.md/", id="slash-after-a-file"),
    ],
)
async def test_put_to_a_folder_is_40510(api: Api, url: str) -> None:
    async with api() as http:
        response = await http.put(url, content="x", headers=MD)
    assert response.status_code == 405
    assert error_code(response) == 40510


async def test_paths_that_escape_the_vault_are_40021(api: Api, tmp_path: Path) -> None:
    async with api() as http:
        response = await http.put("/vault/..%2F..%2Fescape.md", content="x", headers=MD)
    assert error_code(response) == 40021
    assert not (tmp_path / "escape.md").exists()


async def test_a_folder_linked_from_outside_is_written_through_as_the_plugin_does(
    api: Api, vault: Path, tmp_path: Path
) -> None:
    """The plugin checks a path's text against a synthetic root (``extractVaultPath``), not
    where it leads: a folder linked from outside the vault is read and written through, as
    Obsidian lists it. vaultgate's own check (vault/policy.py) is what refuses it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault / "link").symlink_to(outside, target_is_directory=True)
    async with api() as http:
        written = await http.put("/vault/link/x.md", content="x", headers=MD)
        read = await http.get("/vault/link/x.md")
    assert written.status_code == 204
    assert (outside / "x.md").read_text(encoding="utf-8") == "x"
    assert read.text == "x"


async def test_an_encoded_slash_never_names_a_file_from_5_0(api: Api, vault: Path) -> None:
    async with api("5.0.0") as http:
        response = await http.put("/vault/Projects%2Fx.md", content="x", headers=MD)
    assert response.status_code == 404


async def test_4x_decodes_the_whole_path_so_an_encoded_slash_separates(
    api: Api, vault: Path
) -> None:
    async with api("4.1.7") as http:
        response = await http.put("/vault/Projects%2Fx.md", content="x", headers=MD)
    assert response.status_code == 204
    assert (vault / "Projects" / "x.md").read_text(encoding="utf-8") == "x"


async def test_a_target_word_after_a_missing_note_is_404(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.put("/vault/missing.md/heading/A", content="x", headers=MD)
    assert response.status_code == 404
    assert not (vault / "missing.md").exists()


async def test_a_file_where_a_folder_should_be_is_a_500(api: Api) -> None:
    async with api("3.5.0") as http:  # before 3.6 the whole path is one file name
        response = await http.put("/vault/Welcome.md/heading/A", content="x", headers=MD)
    assert response.status_code == 500
    assert error_code(response) == 50000


# --- POST -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("existing", "expected"),
    [
        pytest.param("line\n", "line\nmore", id="ends-with-newline"),
        pytest.param("line", "line\nmore", id="newline-inserted"),
        pytest.param("", "\nmore", id="even-an-empty-file-gets-one"),
    ],
)
async def test_post_appends_with_the_newline_rule(
    api: Api, vault: Path, existing: str, expected: str
) -> None:
    (vault / "a.md").write_text(existing, encoding="utf-8")
    async with api() as http:
        response = await http.post("/vault/a.md", content="more", headers=MD)
    assert response.status_code == 204
    assert (vault / "a.md").read_text(encoding="utf-8") == expected


async def test_post_creates_a_missing_note(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.post("/vault/Inbox/new.md", content="first", headers=MD)
        listed = (await http.get("/vault/Inbox/")).json()
    assert response.status_code == 204
    assert (vault / "Inbox" / "new.md").read_text(encoding="utf-8") == "first"
    assert listed == {"files": ["new.md"]}


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"Content-Type": "application/octet-stream"}, id="bytes"),
        pytest.param({"Content-Type": "application/json"}, id="json"),
        pytest.param({}, id="no-content-type"),
        pytest.param({"Content-Type": "markdown"}, id="not-a-media-type"),
    ],
)
async def test_post_needs_a_text_body(api: Api, headers: dict[str, str]) -> None:
    async with api() as http:
        response = await http.post("/vault/Welcome.md", content=b'{"x": 1}', headers=headers)
    assert response.status_code == 400
    assert error_code(response) == 40010


async def test_post_of_a_json_string_appends_it_since_the_parser_leaves_a_string(
    api: Api, vault: Path
) -> None:
    async with api() as http:
        response = await http.post(
            "/vault/Welcome.md",
            content='"日本 🚀"'.encode(),
            headers={"Content-Type": "application/json"},
        )
    assert response.status_code == 204
    assert (vault / "Welcome.md").read_text(encoding="utf-8").endswith("\n日本 🚀")


# --- DELETE ---------------------------------------------------------------------------------


async def test_delete_on_5x_moves_the_note_to_the_trash(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.delete("/vault/Projects/plan.md")
        listing = (await http.get("/vault/Projects/")).json()
        again = await http.get("/vault/Projects/plan.md")
    assert response.status_code == 204
    assert not (vault / "Projects" / "plan.md").exists()
    assert (vault / ".trash" / "Projects" / "plan.md").is_file()
    assert listing == {"files": ["Archive/"]}
    assert again.status_code == 404


async def test_the_trash_never_overwrites(api: Api, vault: Path) -> None:
    (vault / ".trash" / "Welcome.md").write_text("older", encoding="utf-8")
    async with api() as http:
        await http.delete("/vault/Welcome.md")
    assert (vault / ".trash" / "Welcome.md").read_text(encoding="utf-8") == "older"
    assert (vault / ".trash" / "Welcome 1.md").is_file()


@pytest.mark.parametrize(
    ("version", "query"),
    [
        pytest.param("5.1.0", "?permanent=true", id="5x-permanent"),
        pytest.param("4.1.7", "", id="4x-always-permanent"),
        pytest.param("3.6.2", "", id="3x-always-permanent"),
    ],
)
async def test_permanent_deletes_leave_nothing_behind(
    api: Api, vault: Path, version: str, query: str
) -> None:
    async with api(version) as http:
        response = await http.delete(f"/vault/Welcome.md{query}")
    assert response.status_code == 204
    assert not (vault / "Welcome.md").exists()
    assert not (vault / ".trash" / "Welcome.md").exists()


async def test_deleting_a_missing_file_is_404(api: Api) -> None:
    async with api() as http:
        response = await http.delete("/vault/missing.md")
    assert response.status_code == 404
    assert error_code(response) == 40400


async def test_deleting_a_targeted_section_is_405(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.delete("/vault/Projects/plan.md/heading/Plan")
    assert response.status_code == 405
    assert "not supported" in response.json()["message"]
    assert (vault / "Projects" / "plan.md").is_file()


async def test_deleting_a_folder_with_its_slash_is_40510(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.delete("/vault/Projects/")
    assert error_code(response) == 40510
    assert (vault / "Projects" / "plan.md").is_file()


async def test_on_5x_a_folder_path_without_its_slash_trashes_the_whole_folder(
    api: Api, vault: Path
) -> None:
    async with api() as http:
        response = await http.delete("/vault/Projects")
        root = (await http.get("/vault/")).json()["files"]
        search = (await http.post("/search/simple/?query=plan")).json()
    assert response.status_code == 204
    assert not (vault / "Projects").exists()
    assert (vault / ".trash" / "Projects" / "plan.md").is_file()
    assert (vault / ".trash" / "Projects" / "Archive" / "old.md").is_file()
    assert "Projects/" not in root
    assert not [r for r in search if r["filename"].startswith("Projects/")]


async def test_on_5x_an_empty_folder_is_trashed_too(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.delete("/vault/empty")
    assert response.status_code == 204
    assert (vault / ".trash" / "empty").is_dir()


@pytest.mark.parametrize(
    ("version", "url"),
    [
        pytest.param("5.1.0", "/vault/Projects?permanent=true", id="5x-permanent"),
        pytest.param("4.1.7", "/vault/Projects", id="4x"),
    ],
)
async def test_removing_a_folder_for_good_fails_with_the_plugins_500(
    api: Api, vault: Path, version: str, url: str
) -> None:
    async with api(version) as http:
        response = await http.delete(url)
    assert response.status_code == 500
    assert response.json() == {"message": "Internal Server Error", "errorCode": 50000}
    assert (vault / "Projects" / "plan.md").is_file()


async def test_on_3x_removing_a_folder_never_answers(api: Api, vault: Path) -> None:
    answered = False
    with anyio.move_on_after(0.3):
        async with api("3.6.2") as http:
            await http.delete("/vault/Projects")
            answered = True
    assert not answered
    assert (vault / "Projects" / "plan.md").is_file()


@pytest.mark.parametrize(
    ("url", "status", "gone"),
    [
        pytest.param("/vault/.obsidian/app.json", 404, False, id="trash-goes-by-the-index"),
        pytest.param("/vault/.obsidian/app.json?permanent=true", 204, True, id="permanent"),
    ],
)
async def test_deleting_a_hidden_file(
    api: Api, vault: Path, url: str, status: int, gone: bool
) -> None:
    async with api() as http:
        response = await http.delete(url)
    assert response.status_code == status
    assert (vault / ".obsidian" / "app.json").exists() is not gone


async def test_before_5x_a_hidden_file_is_deleted_from_disk(api: Api, vault: Path) -> None:
    async with api("4.1.7") as http:
        response = await http.delete("/vault/.obsidian/app.json")
    assert response.status_code == 204
    assert not (vault / ".obsidian" / "app.json").exists()


# --- MOVE and COPY --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "version", "status"),
    [
        pytest.param("MOVE", "4.0.3", 404, id="move-before-4.1"),
        pytest.param("MOVE", "4.1.0", 204, id="move-from-4.1"),
        pytest.param("COPY", "4.1.7", 404, id="copy-before-5.0"),
        pytest.param("COPY", "5.0.0", 204, id="copy-from-5.0"),
    ],
)
async def test_move_and_copy_exist_from_their_versions(
    api: Api, method: str, version: str, status: int
) -> None:
    async with api(version) as http:
        response = await http.request(method, "/vault/Welcome.md", headers={"Destination": "W.md"})
    assert response.status_code == status
    if status == 404:
        assert error_code(response) == 40400


async def test_move_renames_and_says_where(api: Api, vault: Path) -> None:
    destination = quote("Archive/Café ☕.md")
    async with api() as http:
        response = await http.request(
            "MOVE", "/vault/Welcome.md", headers={"Destination": destination}
        )
        root = (await http.get("/vault/")).json()["files"]
    assert response.status_code == 204
    assert response.headers["content-location"] == destination
    assert (vault / "Archive" / "Café ☕.md").read_text(encoding="utf-8").startswith("# Welcome")
    assert not (vault / "Welcome.md").exists()
    assert "Archive/" in root
    assert "Welcome.md" not in root


async def test_a_trailing_slash_moves_into_the_folder_keeping_the_name(
    api: Api, vault: Path
) -> None:
    async with api() as http:
        response = await http.request(
            "MOVE", "/vault/Notes/space%20name.md", headers={"Destination": "Projects/"}
        )
    assert response.headers["content-location"] == "Projects/space%20name.md"
    assert (vault / "Projects" / "space name.md").is_file()


async def test_moving_the_open_note_keeps_it_open(make_app: MakeApp) -> None:
    app = make_app(active_file="Welcome.md")
    async with client(app) as http:
        await http.request("MOVE", "/vault/Welcome.md", headers={"Destination": "Moved.md"})
        active = await http.get("/active/")
    assert emulator_state(app).active_file == "Moved.md"
    assert active.headers["content-location"] == "Moved.md"


@pytest.mark.parametrize("version", ["4.1.0", "4.1.7", "5.1.0"])
async def test_move_rewrites_the_links_to_the_note_as_renamefile_does(
    api: Api, vault: Path, version: str
) -> None:
    (vault / "Notes" / "links.md").write_text(
        "[w](../Welcome.md#Welcome) [x](<../Welcome.md>) `[[Welcome]]`\r\n",
        encoding="utf-8",
        newline="",
    )
    destination = quote("Archive/Hello 👋 50%.md")
    async with api(version) as http:
        response = await http.request(
            "MOVE", "/vault/Welcome.md", headers={"Destination": destination}
        )
        plan = await http.get("/vault/Projects/plan.md", headers={"Accept": NOTE_JSON})
    # the plugin's answer, unchanged: what was rewritten is no part of it
    assert response.status_code == 204
    assert response.content == b""
    assert response.headers["content-location"] == destination
    assert "link to [[Hello 👋 50%]], one to [[Nowhere]]" in plan.json()["content"]
    assert (vault / "Notes" / "links.md").read_bytes().decode() == (
        "[w](../Archive/Hello%20👋%2050%25.md#Welcome) [x](<../Archive/Hello 👋 50%25.md>) "
        "`[[Welcome]]`\r\n"
    )
    # the moved note's own links still reach their notes
    moved = (vault / "Archive" / "Hello 👋 50%.md").read_text(encoding="utf-8")
    assert "See [[plan]] and ![[pic.png]]." in moved


@pytest.mark.parametrize("version", ["4.1.7", "5.1.0"])
async def test_move_leaves_a_link_it_captures_as_renamefile_leaves_it(
    api: Api, vault: Path, version: str
) -> None:
    """renameFile rewrites the moved note's backlinks only: a bare name elsewhere that the
    move makes resolve to the moved note keeps its text (vaultgate's own move rewrites it)."""
    files = {
        "Home/Méeting 🗓.md": "home",
        "Work/Team 2 ✦/Méeting 🗓.md": "work",
        "Daily/today.md": "[[Méeting 🗓]] and [[Work/Team 2 ✦/Méeting 🗓|work]]\n",
    }
    for path, text in files.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text, encoding="utf-8")
    async with api(version) as http:
        response = await http.request(
            "MOVE",
            "/vault/" + quote("Work/Team 2 ✦/Méeting 🗓.md"),
            headers={"Destination": quote("Daily/Méeting 🗓.md")},
        )
    assert response.status_code == 204
    # the backlink follows the note; the bare name, which found Home's before, is left
    assert (vault / "Daily" / "today.md").read_text(encoding="utf-8") == (
        "[[Méeting 🗓]] and [[Daily/Méeting 🗓|work]]\n"
    )


async def test_move_of_an_attachment_rewrites_its_embeds(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.request(
            "MOVE", "/vault/Images/pic.png", headers={"Destination": "Attachments/pic%201.png"}
        )
    assert response.status_code == 204
    assert "![[pic 1.png]]" in (vault / "Welcome.md").read_text(encoding="utf-8")
    assert (vault / "Attachments" / "pic 1.png").is_file()


async def test_move_onto_a_taken_name_rewrites_nothing(api: Api, vault: Path) -> None:
    before = (vault / "Projects" / "plan.md").read_bytes()
    async with api() as http:
        response = await http.request(
            "MOVE", "/vault/Welcome.md", headers={"Destination": "Notes/space name.md"}
        )
    assert response.status_code == 409
    assert (vault / "Projects" / "plan.md").read_bytes() == before


async def test_copy_leaves_the_source(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.request(
            "COPY", "/vault/Projects/plan.md", headers={"Destination": "Copies/plan.md"}
        )
    assert response.status_code == 204
    assert response.headers["content-location"] == "Copies/plan.md"
    assert (vault / "Copies" / "plan.md").read_bytes() == (vault / "Projects/plan.md").read_bytes()


@pytest.mark.parametrize("method", ["MOVE", "COPY"])
async def test_a_taken_destination_needs_allow_overwrite(
    api: Api, vault: Path, method: str
) -> None:
    headers = {"Destination": "Projects/plan.md"}
    async with api() as http:
        refused = await http.request(method, "/vault/Welcome.md", headers=headers)
        allowed = await http.request(
            method, "/vault/Welcome.md", headers={**headers, "Allow-Overwrite": "true"}
        )
    assert refused.status_code == 409
    assert error_code(refused) == 40920
    assert allowed.status_code == 204
    assert (vault / "Projects" / "plan.md").read_text(encoding="utf-8").startswith("# Welcome")


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        pytest.param({}, 40020, id="no-destination"),
        pytest.param({"Destination": "bad%E0%A4%A"}, 40022, id="undecodable"),
        pytest.param({"Destination": "/abs.md"}, 40021, id="absolute"),
        pytest.param({"Destination": "../out.md"}, 40021, id="escaping"),
        pytest.param({"Destination": "a/%2E%2E/%2E%2E/out.md"}, 40021, id="encoded-escape"),
    ],
)
async def test_bad_destinations(api: Api, headers: dict[str, str], code: int) -> None:
    async with api() as http:
        response = await http.request("MOVE", "/vault/Welcome.md", headers=headers)
    assert error_code(response) == code


# issue 36, difference 4: the plugin only asks that the destination resolve inside the vault
@pytest.mark.parametrize(
    ("version", "method"),
    [
        pytest.param("4.1.7", "MOVE", id="4.1.7-move"),
        pytest.param("5.1.0", "MOVE", id="5.1.0-move"),
        pytest.param("5.1.0", "COPY", id="5.1.0-copy"),
    ],
)
async def test_a_destination_through_dot_dot_inside_the_vault_is_accepted(
    api: Api, vault: Path, version: str, method: str
) -> None:
    welcome = (vault / "Welcome.md").read_bytes()
    async with api(version) as http:
        response = await http.request(
            method, "/vault/Welcome.md", headers={"Destination": "Projects/../x.md"}
        )
    assert response.status_code == 204
    assert response.headers["content-location"] == "Projects/../x.md"
    assert (vault / "x.md").read_bytes() == welcome
    assert (vault / "Welcome.md").exists() is (method == "COPY")


async def test_a_destination_through_dot_dot_back_to_the_source_is_taken(
    api: Api, vault: Path
) -> None:
    async with api("4.1.7") as http:
        response = await http.request(
            "MOVE", "/vault/Welcome.md", headers={"Destination": "Projects/../Welcome.md"}
        )
    assert error_code(response) == 40920
    assert (vault / "Welcome.md").exists()


async def test_moving_a_missing_file_is_404(api: Api) -> None:
    async with api() as http:
        response = await http.request("MOVE", "/vault/nope.md", headers={"Destination": "x.md"})
    assert response.status_code == 404


# --- /active/ -------------------------------------------------------------------------------


async def test_active_writes_act_on_the_open_note(make_app: MakeApp, vault: Path) -> None:
    app = make_app("4.1.7", active_file="Notes/space name.md")
    async with client(app) as http:
        put = await http.put("/active/", content="one", headers=MD)
        post = await http.post("/active/", content="two", headers=MD)
        patch = await http.patch(
            "/active/",
            content="zero\n",
            headers={**MD, "Operation": "prepend", "Target-Type": "heading", "Target": "X"},
        )
        deleted = await http.delete("/active/")
        after = await http.get("/active/")
    assert put.status_code == post.status_code == deleted.status_code == 204
    assert put.headers["content-location"] == "Notes/space%20name.md"
    assert patch.status_code == 400  # the note has no heading "X"
    assert patch.headers["content-location"] == "Notes/space%20name.md"
    assert not (vault / "Notes" / "space name.md").exists()
    assert emulator_state(app).active_file is None
    assert after.status_code == 404


async def test_active_targets_in_the_url(api: Api, vault: Path) -> None:
    async with api(active_file="Projects/plan.md") as http:
        response = await http.post("/active/heading/Plan/Log", content="Second.", headers=MD)
    assert response.status_code == 200
    assert response.headers["content-location"] == "Projects/plan.md"
    assert (
        (vault / "Projects" / "plan.md")
        .read_text(encoding="utf-8")
        .endswith("First entry.\n\nSecond.\n")
    )


@pytest.mark.parametrize("method", ["PUT", "POST", "PATCH", "DELETE"])
async def test_active_writes_without_an_open_note_are_404(api: Api, method: str) -> None:
    async with api(active_file=None) as http:
        response = await http.request(method, "/active/", content="x", headers=MD)
    assert response.status_code == 404


# --- /commands/ and /open/ ------------------------------------------------------------------


async def test_commands_are_listed_and_executions_recorded(make_app: MakeApp) -> None:
    app = make_app()
    async with client(app) as http:
        listed = (await http.get("/commands/")).json()["commands"]
        ran = await http.post("/commands/editor:toggle-bold/")
        encoded = await http.post("/commands/app%3Ago-back/")
        unknown = await http.post("/commands/no:such/")
    ids = [command["id"] for command in listed]
    assert {"editor:toggle-bold", "app:go-back", "daily-notes", "global-search:open"} <= set(ids)
    assert all(set(command) == {"id", "name"} for command in listed)
    assert ran.status_code == encoded.status_code == 204
    assert unknown.status_code == 404
    assert error_code(unknown) == 40400
    assert emulator_state(app).executed_commands == ["editor:toggle-bold", "app:go-back"]


async def test_open_makes_a_note_active(make_app: MakeApp) -> None:
    app = make_app(active_file=None)
    async with client(app) as http:
        response = await http.post("/open/Projects/plan.md?newLeaf=true")
        active = await http.get("/active/")
    assert response.status_code == 200
    assert response.content == b""
    assert response.headers["content-type"] == "application/json; charset=utf-8"  # res.json()
    assert emulator_state(app).opened == [("Projects/plan.md", True)]
    assert active.headers["content-location"] == "Projects/plan.md"


async def test_open_resolves_link_text_and_creates_missing_notes(
    make_app: MakeApp, vault: Path
) -> None:
    app = make_app()
    async with client(app) as http:
        await http.post("/open/plan")
        resolved = emulator_state(app).active_file
        await http.post(f"/open/{quote('Inbox/Nouvelle idée')}?newLeaf=false")
    state = emulator_state(app)
    assert resolved == "Projects/plan.md"
    assert state.active_file == "Inbox/Nouvelle idée.md"
    assert (vault / "Inbox" / "Nouvelle idée.md").read_text(encoding="utf-8") == ""
    assert state.opened[-1] == ("Inbox/Nouvelle idée.md", False)


async def test_open_refuses_paths_outside_the_vault(api: Api, tmp_path: Path) -> None:
    async with api() as http:
        response = await http.post("/open/..%2Fescape")
    assert error_code(response) == 40021
    assert not (tmp_path / "escape.md").exists()


# --- what a PUT stores is what the body parsers left ----------------------------------------


@pytest.mark.parametrize(
    ("headers", "body", "stored"),
    [
        pytest.param({}, "日本 🚀 text\r\n".encode(), b"{}", id="no-content-type-stores-{}"),
        pytest.param({"Content-Type": "markdown"}, b"raw", b"{}", id="not-a-media-type-stores-{}"),
        pytest.param(
            {"Content-Type": "application/json"},
            b'{"a": [1, 2], "b": "\\u65e5 \\ud83d\\ude80"}',
            '{"a":[1,2],"b":"日 🚀"}'.encode(),
            id="json-re-serialised",
        ),
        pytest.param(
            {"Content-Type": "application/json"}, b'"just text"', b"just text", id="json-string"
        ),
        pytest.param({"Content-Type": "application/json"}, b"", b"{}", id="empty-json"),
        pytest.param(
            {"Content-Type": "text/plain; charset=utf-8"},
            "日本\r\n".encode(),
            "日本\r\n".encode(),
            id="text",
        ),
        pytest.param(
            {"Content-Type": "application/x-custom"}, b"\x00\xff", b"\x00\xff", id="bytes"
        ),
    ],
)
async def test_put_stores_what_the_express_parsers_leave(
    api: Api, vault: Path, headers: dict[str, str], body: bytes, stored: bytes
) -> None:
    async with api() as http:
        response = await http.put(
            "/vault/50%25%20%23%20n%C3%B8te.md", content=body, headers=headers
        )
    assert response.status_code == 204
    assert (vault / "50% # nøte.md").read_bytes() == stored


async def test_put_with_malformed_json_is_40015_and_writes_nothing(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.put(
            "/vault/n.md", content=b"{nope", headers={"Content-Type": "application/json"}
        )
    assert error_code(response) == 40015
    assert not (vault / "n.md").exists()


# --- hidden paths: written through the adapter, unknown to the index ------------------------


async def test_put_writes_under_a_hidden_folder(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.put(
            "/vault/.obsidian/app.json",
            content=b'{"x": 1}',
            headers={"Content-Type": "application/json"},
        )
        listing = await http.get("/vault/.obsidian/")
    assert response.status_code == 204
    assert (vault / ".obsidian" / "app.json").read_bytes() == b'{"x":1}'
    assert listing.status_code == 404


async def test_post_to_a_hidden_file_replaces_it_since_the_index_does_not_know_it(
    api: Api, vault: Path
) -> None:
    async with api() as http:
        response = await http.post(
            "/vault/.trash/deleted.md", content=b"appended", headers={"Content-Type": "text/plain"}
        )
    assert response.status_code == 204
    assert (vault / ".trash" / "deleted.md").read_text(encoding="utf-8") == "appended"


@pytest.mark.parametrize(
    ("headers", "body"),
    [
        pytest.param(
            {"Content-Type": "application/json"},
            b'{"targetType": "heading", "target": null, "operation": "append", "content": "x"}',
            id="v2-instruction",
        ),
        pytest.param(
            {
                "Markdown-Patch-Version": "1",
                "Operation": "append",
                "Target-Type": "heading",
                "Target": "A",
                "Content-Type": "text/markdown",
            },
            b"x",
            id="v1",
        ),
    ],
)
async def test_patch_of_a_hidden_file_is_404_since_the_engine_asks_the_index(
    api: Api, vault: Path, headers: dict[str, str], body: bytes
) -> None:
    async with api() as http:
        response = await http.patch("/vault/.trash/deleted.md", content=body, headers=headers)
    assert response.status_code == 404
    assert (vault / ".trash" / "deleted.md").read_text(encoding="utf-8") == "Deleted plan.\n"


@pytest.mark.parametrize("method", ["MOVE", "COPY"])
async def test_move_or_copy_of_a_hidden_file_is_404(api: Api, vault: Path, method: str) -> None:
    async with api() as http:
        response = await http.request(
            method, "/vault/.trash/deleted.md", headers={"Destination": "back.md"}
        )
    assert response.status_code == 404
    assert not (vault / "back.md").exists()


@pytest.mark.parametrize("method", ["MOVE", "COPY"])
async def test_move_or_copy_onto_a_hidden_file_sees_it_on_disk(
    api: Api, vault: Path, method: str
) -> None:
    async with api() as http:
        response = await http.request(
            method, "/vault/Welcome.md", headers={"Destination": ".trash/deleted.md"}
        )
    assert error_code(response) == 40920


async def test_a_folder_named_without_its_slash_cannot_be_moved(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.request("MOVE", "/vault/Projects", headers={"Destination": "P2"})
    assert response.status_code == 404
    assert (vault / "Projects" / "plan.md").is_file()


async def test_move_onto_itself_answers_before_looking_for_the_file(api: Api) -> None:
    async with api() as http:
        response = await http.request(
            "MOVE",
            "/vault/gone%20%F0%9F%9A%80.md",
            headers={"Destination": "gone%20%F0%9F%9A%80.md"},
        )
    assert response.status_code == 204
    assert response.headers["content-location"] == "gone%20%F0%9F%9A%80.md"


async def test_copy_onto_itself_is_409_even_with_overwrite(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.request(
            "COPY",
            "/vault/Welcome.md",
            headers={"Destination": "Welcome.md", "Allow-Overwrite": "true"},
        )
    assert error_code(response) == 40920
    assert (vault / "Welcome.md").is_file()


async def test_a_name_too_long_for_the_disk_is_a_500_and_the_connection_stays_open(
    api: Api,
) -> None:
    name = "長" * 100 + ".md"  # 303 bytes: no file system holds such a name
    async with api() as http:
        response = await http.put(f"/vault/{name}", content="x", headers=MD)
        after = await http.get("/vault/Welcome.md")
    assert response.status_code == 500
    assert error_code(response) == 50000
    assert after.status_code == 200
