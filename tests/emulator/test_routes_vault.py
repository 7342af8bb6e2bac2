"""GET /vault/... and /active/...: listings, raw files, note JSON, document maps, paths."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest

from vaultgate.emulator.app import emulator_state
from vaultgate.emulator.context import EmulatorConfig

from .conftest import DOCUMENT_MAP, NOTE_JSON, PLAN, Api, MakeApp, client

pytestmark = pytest.mark.anyio


# --- listings -------------------------------------------------------------------------------


async def test_root_lists_one_level_with_folders_slashed_and_hidden_ones_left_out(
    api: Api,
) -> None:
    async with api() as http:
        response = await http.get("/vault/")
    assert response.json() == {
        "files": ["Boards/", "Daily/", "Images/", "Notes/", "Projects/", "Welcome.md"]
    }


async def test_a_folder_lists_its_files_and_subfolders_in_code_unit_order(api: Api) -> None:
    async with api() as http:
        projects = (await http.get("/vault/Projects/")).json()
        notes = (await http.get("/vault/Notes/")).json()
    assert projects == {"files": ["Archive/", "plan.md"]}
    assert notes == {"files": ["50% & more #1.md", "café ☕.md", "space name.md"]}


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("/vault/empty/", id="empty-folder"),
        pytest.param("/vault/onlyempty/", id="only-empty-subfolders"),
        pytest.param("/vault/missing/", id="missing"),
        pytest.param("/vault/.obsidian/", id="hidden"),
    ],
)
async def test_folders_without_files_are_not_found(api: Api, url: str) -> None:
    async with api() as http:
        response = await http.get(url)
    assert response.status_code == 404
    assert response.json()["errorCode"] == 40400


@pytest.mark.parametrize(
    ("version", "status"),
    [pytest.param("3.5.0", 404, id="3.5.0"), pytest.param("3.6.0", 200, id="3.6.0")],
)
async def test_a_folder_without_trailing_slash_lists_from_3_6_0(
    api: Api, version: str, status: int
) -> None:
    async with api(version) as http:
        response = await http.get("/vault/Projects")
    assert response.status_code == status


@pytest.mark.parametrize(
    ("version", "status"),
    [pytest.param("3.6.0", 404, id="3.6.0"), pytest.param("3.6.1", 200, id="3.6.1")],
)
async def test_an_empty_vault_lists_as_an_empty_array_from_3_6_1(
    make_app: MakeApp, tmp_path: Path, version: str, status: int
) -> None:
    empty = tmp_path / "empty-vault"
    (empty / ".obsidian").mkdir(parents=True)
    async with client(make_app(version, vault=empty)) as http:
        response = await http.get("/vault/")
    assert response.status_code == status
    if status == 200:
        assert response.json() == {"files": []}


async def test_refresh_picks_up_files_created_behind_the_emulators_back(
    make_app: MakeApp, vault: Path
) -> None:
    app = make_app()
    (vault / "Later.md").write_text("new", encoding="utf-8")
    async with client(app) as http:
        before = (await http.get("/vault/")).json()["files"]
        emulator_state(app).refresh()
        after = (await http.get("/vault/")).json()["files"]
    assert "Later.md" not in before
    assert "Later.md" in after


# --- raw files and headers ------------------------------------------------------------------


async def test_a_note_comes_back_raw_with_markdown_type_and_disposition(api: Api) -> None:
    async with api() as http:
        response = await http.get("/vault/Projects/plan.md")
    assert response.text == PLAN
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    assert response.headers["content-disposition"] == 'attachment; filename="Projects/plan.md"'


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        pytest.param("Images/pic.png", "image/png", id="png"),
        pytest.param("Boards/board.canvas", "false", id="unknown-extension"),
    ],
)
async def test_other_files_get_their_type_from_the_extension(
    api: Api, vault: Path, path: str, content_type: str
) -> None:
    async with api() as http:
        response = await http.get(f"/vault/{path}")
    assert response.headers["content-type"] == content_type
    assert response.content == (vault / path).read_bytes()


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("space name.md", id="space"),
        pytest.param("café ☕.md", id="unicode-and-emoji"),
        pytest.param("50% & more #1.md", id="percent-ampersand-hash"),
    ],
)
async def test_names_encoded_segment_by_segment_resolve(api: Api, vault: Path, name: str) -> None:
    async with api() as http:
        response = await http.get(f"/vault/Notes/{quote(name)}")
    assert response.status_code == 200
    assert response.text == (vault / "Notes" / name).read_text(encoding="utf-8")
    disposition = response.headers["content-disposition"]
    assert disposition.isascii()
    assert quote(name, safe="&#") in disposition


@pytest.mark.parametrize(
    ("version", "status"),
    [
        pytest.param("4.1.2", 200, id="4.1.2"),
        # 4.1.3's traversal fix still decodes the whole path, then checks it
        pytest.param("4.1.7", 200, id="4.1.7"),
        pytest.param("5.0.0", 404, id="5.0.0"),
        pytest.param("5.1.0", 404, id="5.1.0"),
    ],
)
async def test_an_encoded_slash_stops_being_a_separator_in_5_0(
    api: Api, version: str, status: int
) -> None:
    async with api(version) as http:
        response = await http.get("/vault/Projects%2Fplan.md")
    assert response.status_code == status


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("/vault/%2E%2E/secret.md", id="dot-dot"),
        pytest.param("/vault/Projects/%2E%2E/%2E%2E/secret.md", id="deeper"),
        pytest.param("/vault/..%2F..%2Fsecret.md", id="encoded-slashes"),
    ],
)
async def test_paths_escaping_the_vault_or_badly_encoded_are_refused(api: Api, url: str) -> None:
    async with api() as http:
        response = await http.get(url)
    assert response.status_code == 400
    assert response.json()["errorCode"] == 40021


async def test_a_dot_dot_that_stays_inside_is_simply_not_a_file(api: Api) -> None:
    async with api() as http:
        response = await http.get("/vault/Projects/%2E%2E/Welcome.md")
    assert response.status_code == 404


async def test_a_trailing_slash_after_a_note_serves_the_note_from_3_6_0(api: Api) -> None:
    async with api() as http:
        modern = await http.get("/vault/Welcome.md/")
    async with api("3.5.0") as http:
        legacy = await http.get("/vault/Welcome.md/")
    assert modern.status_code == 200
    assert legacy.status_code == 404


# --- note JSON ------------------------------------------------------------------------------


TAGGED = (
    "---\r\ntags: [alpha, 2024, '#beta', '', alpha]\r\ntag: gamma\r\nTags: epsilon\r\n---\r\n"
    "#delta text #delta `#code` #项目/阶段\r\n"
)


# getFileMetadataObject: only the `tags` key, only a list; 4.0.1+ keeps its string items,
# 3.x every truthy one as JavaScript prints it; then the inline tags; '#' stripped; each once.
@pytest.mark.parametrize(
    ("version", "tags"),
    [
        pytest.param("3.6.2", ["alpha", "2024", "beta", "delta", "项目/阶段"], id="3.6.2"),
        pytest.param("4.1.7", ["alpha", "beta", "delta", "项目/阶段"], id="4.1.7"),
        pytest.param("5.1.0", ["alpha", "beta", "delta", "项目/阶段"], id="5.1.0"),
    ],
)
async def test_note_json_lists_the_tags_as_each_version_does(
    api: Api, vault: Path, version: str, tags: list[str]
) -> None:
    (vault / "Tagged #1 100%.md").write_text(TAGGED, encoding="utf-8", newline="")
    async with api(version) as http:
        response = await http.get("/vault/Tagged%20%231%20100%25.md", headers={"Accept": NOTE_JSON})
    assert response.json()["tags"] == tags


async def test_a_tags_string_is_not_listed_in_note_json(api: Api, vault: Path) -> None:
    (vault / "s.md").write_text("---\ntags: one two\n---\n#three\n", encoding="utf-8")
    async with api() as http:
        response = await http.get("/vault/s.md", headers={"Accept": NOTE_JSON})
    assert response.json()["tags"] == ["three"]


async def test_note_json_has_frontmatter_tags_stat_and_links(api: Api, vault: Path) -> None:
    async with api() as http:
        response = await http.get("/vault/Projects/plan.md", headers={"Accept": NOTE_JSON})
    note = response.json()
    assert response.headers["content-type"].startswith(NOTE_JSON)
    assert list(note) == [
        "tags",
        "frontmatter",
        "stat",
        "path",
        "content",
        "links",
        "backlinks",
        "unresolvedLinks",
    ]
    assert note["path"] == "Projects/plan.md"
    assert note["content"] == PLAN
    assert note["frontmatter"] == {
        "tags": ["project", "work/tasks"],
        "status": "active",
        "priority": 42,
    }
    assert note["tags"] == ["project", "work/tasks", "inline"]
    stat = (vault / "Projects" / "plan.md").stat()
    assert note["stat"]["size"] == stat.st_size
    assert note["stat"]["mtime"] == stat.st_mtime_ns // 1_000_000
    assert note["links"] == ["Welcome.md", "Notes/space name.md"]
    assert note["backlinks"] == ["Welcome.md"]
    assert note["unresolvedLinks"] == ["Nowhere"]


@pytest.mark.parametrize(
    ("version", "keys"),
    [
        pytest.param("3.6.2", set(), id="3.6.2"),
        pytest.param("4.1.7", {"links", "backlinks"}, id="4.1.7"),
        pytest.param("5.0.0", {"links", "backlinks", "unresolvedLinks"}, id="5.0.0"),
    ],
)
async def test_link_fields_appear_by_version(api: Api, version: str, keys: set[str]) -> None:
    async with api(version) as http:
        note = (await http.get("/vault/Welcome.md", headers={"Accept": NOTE_JSON})).json()
    assert set(note) - {"tags", "frontmatter", "stat", "path", "content"} == keys


async def test_embeds_resolve_by_file_name(api: Api) -> None:
    async with api() as http:
        note = (await http.get("/vault/Welcome.md", headers={"Accept": NOTE_JSON})).json()
    assert note["links"] == ["Projects/plan.md", "Images/pic.png"]
    assert note["unresolvedLinks"] == []


# issue 36, difference 6: Obsidian's resolvedLinks walks a note's links before its embeds
@pytest.mark.parametrize("version", ["4.1.7", "5.1.0"])
async def test_note_json_lists_links_before_embeds(api: Api, vault: Path, version: str) -> None:
    (vault / "Mixed.md").write_text(
        "See [[Welcome]], ![[pic.png]], [[plan]] and [a](Notes/space%20name.md).\n"
        "![[Projects/plan]] ![[Ghost.png]] [[Nowhere]]\n",
        encoding="utf-8",
    )
    async with api(version) as http:
        note = (await http.get("/vault/Mixed.md", headers={"Accept": NOTE_JSON})).json()
        rows = (
            await http.post(
                "/search/",
                json={"if": [{"==": [{"var": "path"}, "Mixed.md"]}, {"var": "links"}, None]},
                headers={"Content-Type": "application/vnd.olrapi.jsonlogic+json"},
            )
        ).json()
    expected = ["Welcome.md", "Projects/plan.md", "Notes/space name.md", "Images/pic.png"]
    assert note["links"] == expected
    assert rows == [{"filename": "Mixed.md", "result": expected}]
    if version == "5.1.0":
        assert note["unresolvedLinks"] == ["Nowhere", "Ghost.png"]


async def test_accept_must_match_exactly(api: Api) -> None:
    async with api() as http:
        response = await http.get(
            "/vault/Welcome.md", headers={"Accept": f"{NOTE_JSON}, text/markdown"}
        )
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"


# --- document map ---------------------------------------------------------------------------


async def test_the_5x_document_map_is_a_heading_tree_with_a_version(api: Api) -> None:
    async with api() as http:
        response = await http.get("/vault/Projects/plan.md", headers={"Accept": DOCUMENT_MAP})
    mapped = response.json()
    assert response.headers["content-type"].startswith(DOCUMENT_MAP)
    assert mapped["headings"] == {"Plan": {"Goals": {"Details": {}}, "Log": {}}}
    assert mapped["blocks"] == ["goal1"]
    assert mapped["frontmatterFields"] == ["tags", "status", "priority"]
    assert isinstance(mapped["version"], str)
    assert mapped["version"]


V1_MAP = {
    "headings": ["Plan", "Plan::Goals", "Plan::Goals::Details", "Plan::Log"],
    "blocks": ["goal1"],
    "frontmatterFields": ["tags", "status", "priority"],
}


async def test_the_1x_map_on_5x_needs_markdown_patch_version_1_and_is_deprecated(
    api: Api,
) -> None:
    async with api() as http:
        response = await http.get(
            "/vault/Projects/plan.md",
            headers={"Accept": DOCUMENT_MAP, "Markdown-Patch-Version": "1"},
        )
    assert response.json() == V1_MAP
    assert response.headers["deprecation"] == 'true; sunset-version="6.0"'


@pytest.mark.parametrize(
    ("version", "status", "error_code"),
    [pytest.param("5.1.0", 400, 40005, id="5.1.0"), pytest.param("4.1.4", 200, None, id="4.1.4")],
)
async def test_a_map_of_broken_frontmatter_is_40005_from_4_1_5_typed_as_a_map(
    api: Api, vault: Path, version: str, status: int, error_code: int | None
) -> None:
    (vault / "broken.md").write_text("---\nkey: [unclosed\n---\n# Body\n", encoding="utf-8")
    async with api(version) as http:
        response = await http.get("/vault/broken.md", headers={"Accept": DOCUMENT_MAP})
    assert response.status_code == status
    assert response.headers["content-type"].startswith(DOCUMENT_MAP)
    if error_code is not None:
        assert response.json()["errorCode"] == error_code


async def test_4x_serves_the_1x_map(api: Api) -> None:
    async with api("4.1.7") as http:
        response = await http.get("/vault/Projects/plan.md", headers={"Accept": DOCUMENT_MAP})
    assert response.json() == V1_MAP
    assert "deprecation" not in response.headers


async def test_before_3_4_the_map_accept_type_is_ignored(api: Api) -> None:
    async with api("3.3.0") as http:
        response = await http.get("/vault/Projects/plan.md", headers={"Accept": DOCUMENT_MAP})
    assert response.text == PLAN


async def test_an_unknown_markdown_patch_version_is_refused_on_5x(api: Api) -> None:
    async with api() as http:
        response = await http.get(
            "/vault/Welcome.md", headers={"Accept": DOCUMENT_MAP, "Markdown-Patch-Version": "3"}
        )
    assert response.status_code == 400
    assert response.json()["errorCode"] == 40082


# --- the active file ------------------------------------------------------------------------


async def test_active_serves_the_open_note_with_its_location(api: Api) -> None:
    async with api(active_file="Notes/café ☕.md") as http:
        raw = await http.get("/active/")
        note = await http.get("/active/", headers={"Accept": NOTE_JSON})
    assert raw.text == "Unicode and emoji names. Plan ahead.\n"
    assert raw.headers["content-location"] == "Notes/caf%C3%A9%20%E2%98%95.md"
    assert note.json()["path"] == "Notes/café ☕.md"


async def test_no_active_file_is_a_404(make_app: MakeApp) -> None:
    app = make_app(active_file="Welcome.md")
    async with client(app) as http:
        before = await http.get("/active/")
        emulator_state(app).active_file = None
        after = await http.get("/active/")
    assert before.status_code == 200
    assert after.status_code == 404
    assert after.json() == {"message": "Not Found", "errorCode": 40400}


async def test_active_targets_a_section(api: Api) -> None:
    async with api(active_file="Projects/plan.md") as http:
        response = await http.get("/active/heading/Plan/Log")
    assert response.text == "\nFirst entry.\n"


# --- hidden files: found on disk, unknown to the index --------------------------------------


@pytest.fixture
def hidden_vault(vault: Path) -> Path:
    secret = vault / ".hidden #1" / "sécret 🚀.md"
    secret.parent.mkdir()
    secret.write_text("# A\r\nkey 日本\r\n", encoding="utf-8", newline="")
    return vault


SECRET = "/vault/.hidden%20%231/s%C3%A9cret%20%F0%9F%9A%80.md"


async def test_a_hidden_file_is_served_from_disk(api: Api, hidden_vault: Path) -> None:
    async with api() as http:
        secret = await http.get(SECRET)
        config = await http.get("/vault/.obsidian/app.json")
        listing = await http.get("/vault/.hidden%20%231/")
    assert secret.status_code == 200
    assert secret.content == "# A\r\nkey 日本\r\n".encode()
    assert secret.headers["content-type"] == "text/markdown; charset=utf-8"
    assert config.status_code == 200
    assert config.text == "{}"
    assert config.headers["content-type"] == "application/json; charset=utf-8"
    assert config.headers["content-disposition"] == 'attachment; filename=".obsidian/app.json"'
    assert listing.status_code == 404  # listings come from the index


async def test_a_target_in_a_hidden_file_is_read_from_disk(api: Api, hidden_vault: Path) -> None:
    async with api() as http:
        response = await http.get(f"{SECRET}/heading/A")
    assert response.status_code == 200
    assert "key 日本" in response.text


@pytest.mark.parametrize("accept", [NOTE_JSON, DOCUMENT_MAP])
async def test_note_json_and_the_map_of_a_hidden_file_are_404_with_the_file_headers(
    api: Api, hidden_vault: Path, accept: str
) -> None:
    async with api() as http:
        response = await http.get(SECRET, headers={"Accept": accept})
    assert response.status_code == 404
    assert response.json() == {"message": "Not Found", "errorCode": 40400}
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    assert response.headers["content-disposition"].startswith('attachment; filename=".hidden')


# --- headers on answers for a file ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content_type"),
    [
        pytest.param("data.json", "application/json; charset=utf-8", id="json"),
        pytest.param("read me.txt", "text/plain; charset=utf-8", id="txt"),
        pytest.param("t.csv", "text/csv; charset=utf-8", id="csv"),
        pytest.param("s.js", "application/javascript; charset=utf-8", id="js"),
        pytest.param("i.svg", "image/svg+xml", id="svg"),
        pytest.param("d.pdf", "application/pdf", id="pdf"),
        pytest.param("LICENSE", "false", id="extensionless"),
    ],
)
async def test_express_adds_a_charset_to_text_json_and_javascript(
    make_app: MakeApp, tmp_path: Path, name: str, content_type: str
) -> None:
    vault = tmp_path / "types"
    vault.mkdir()
    (vault / name).write_bytes(b"x")
    async with client(make_app(vault=vault)) as http:
        response = await http.get(f"/vault/{quote(name)}")
    assert response.status_code == 200
    assert response.headers["content-type"] == content_type


@pytest.mark.parametrize(
    ("headers", "url", "status", "code"),
    [
        pytest.param(
            {"Target-Type": "heading", "Target": "Plan"},
            "/vault/Projects/plan.md",
            400,
            40083,
            id="header-target-without-version",
        ),
        pytest.param(
            {"Target-Type": "bogus", "Target": "Plan", "Markdown-Patch-Version": "1"},
            "/vault/Projects/plan.md",
            400,
            40054,
            id="bad-target-type",
        ),
        pytest.param(
            {"Target-Type": "heading", "Target": "Plan"},
            "/vault/Projects/plan.md/heading/Plan",
            422,
            42200,
            id="url-and-header-target",
        ),
        pytest.param({}, "/vault/Projects/plan.md/heading/Nowhere", 404, 40400, id="no-such"),
    ],
)
async def test_errors_after_the_file_was_found_carry_its_headers(
    api: Api, headers: dict[str, str], url: str, status: int, code: int
) -> None:
    async with api() as http:
        response = await http.get(url, headers=headers)
    assert response.status_code == status
    assert response.json()["errorCode"] == code
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    assert response.headers["content-disposition"] == 'attachment; filename="Projects/plan.md"'
    assert response.text == json.dumps(response.json(), indent=2, ensure_ascii=False)


async def test_a_1x_read_that_misses_still_carries_the_deprecation(api: Api) -> None:
    headers = {"Target-Type": "heading", "Target": "Nowhere", "Markdown-Patch-Version": "1"}
    async with api() as http:
        response = await http.get("/vault/Projects/plan.md", headers=headers)
    assert response.status_code == 404
    assert response.headers["deprecation"] == 'true; sunset-version="6.0"'


async def test_a_targeted_read_answer_keeps_the_content_disposition(api: Api) -> None:
    async with api() as http:
        response = await http.get("/vault/Projects/plan.md/frontmatter/status")
    assert response.json() == "active"
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    assert response.headers["content-disposition"] == 'attachment; filename="Projects/plan.md"'


async def test_an_error_for_a_file_of_unknown_type_is_expresss_html_500(
    make_app: MakeApp, tmp_path: Path
) -> None:
    vault = tmp_path / "plain"
    vault.mkdir()
    (vault / "LICENSE").write_text("# A\n", encoding="utf-8")
    headers = {"Target-Type": "heading", "Target": "A"}
    async with client(make_app(vault=vault)) as http:
        response = await http.get("/vault/LICENSE", headers=headers)
    assert response.status_code == 500
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert "TypeError: invalid media type" in response.text


async def test_an_error_on_the_active_note_names_it_in_content_location(make_app: MakeApp) -> None:
    app = make_app(active_file="Projects/plan.md")
    async with client(app) as http:
        response = await http.get("/active/heading/Nowhere")
    assert response.status_code == 404
    assert response.headers["content-location"] == "Projects/plan.md"


# --- params Express cannot decode -----------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "url", "param"),
    [
        pytest.param("GET", "/vault/100%ZZdone.md", "100%ZZdone.md", id="get"),
        pytest.param("GET", "/vault/bad%C3.md", "bad%C3.md", id="invalid-utf8"),
        pytest.param(
            "PUT",
            "/vault/d%C3%A9j%C3/%F0%9F%9A%80.md/",
            "d%C3%A9j%C3/%F0%9F%9A%80.md/",
            id="put-trailing-slash",
        ),
        pytest.param("DELETE", "/vault/.hidden/%E6%97%A5%ZZ", ".hidden/%E6%97%A5%ZZ", id="delete"),
        pytest.param("MOVE", "/vault/a%ZZ.md", "a%ZZ.md", id="move"),
        pytest.param("GET", "/active/heading/%ZZ", "heading/%ZZ", id="active"),
        pytest.param("POST", "/open/x%ZZ.md", "x%ZZ.md", id="open"),
        pytest.param("POST", "/commands/app%ZZgo/", "app%ZZgo", id="command"),
    ],
)
async def test_a_param_express_cannot_decode_is_a_500_before_the_plugin_looks(
    api: Api, method: str, url: str, param: str
) -> None:
    async with api() as http:
        response = await http.request(method, url, content=b"x", headers={"Destination": "b"})
    assert response.status_code == 500
    assert response.json() == {
        "message": f"Internal Server Error\nFailed to decode param '{param}'",
        "errorCode": 50000,
    }


async def test_the_undecodable_param_check_comes_after_the_key(api: Api) -> None:
    async with api(auth=False) as http:
        response = await http.get("/vault/100%ZZdone.md")
    assert response.status_code == 401


@pytest.mark.parametrize(
    ("version", "status"),
    [pytest.param("4.1.7", 500, id="with-periodic-routes"), pytest.param("5.1.0", 404, id="gone")],
)
async def test_periodic_params_are_decoded_only_where_the_routes_exist(
    api: Api, version: str, status: int
) -> None:
    async with api(version) as http:
        response = await http.get("/periodic/dai%ZZly/")
    assert response.status_code == status


# --- what note JSON of a file that is not markdown costs ------------------------------------


def test_the_metadata_cache_wait_defaults_to_the_plugins_5_seconds(vault: Path) -> None:
    assert EmulatorConfig(vault=vault, api_key="k").metadata_cache_timeout == 5.0


@pytest.mark.parametrize(
    ("version", "waits"),
    [
        pytest.param("3.4.2", False, id="3.4.2"),  # before waitForFileCache
        pytest.param("3.6.2", True, id="3.6.2"),
        pytest.param("4.1.7", True, id="4.1.7"),
        pytest.param("5.1.0", True, id="5.1.0"),
    ],
)
async def test_note_json_of_a_file_that_is_not_markdown_waits_out_the_cache(
    make_app: MakeApp, vault: Path, version: str, waits: bool
) -> None:
    (vault / "Files #1").mkdir()
    (vault / "Files #1" / "data 100%.txt").write_text("x", encoding="utf-8")
    app = make_app(version, metadata_cache_timeout=0)
    async with client(app) as http:
        other = await http.get(
            "/vault/Files%20%231/data%20100%25.txt", headers={"Accept": NOTE_JSON}
        )
        note = await http.get("/vault/Projects/plan.md", headers={"Accept": NOTE_JSON})
        plain = await http.get("/vault/Files%20%231/data%20100%25.txt")
    assert (other.status_code, note.status_code, plain.status_code) == (200, 200, 200)
    assert emulator_state(app).metadata_waits == (["Files #1/data 100%.txt"] if waits else [])
