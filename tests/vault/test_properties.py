"""Property and tag edits without MCP: the YAML cut of a key, tag names, and the edits on the
folder backend behind the guard (the emulator's versions are in tests/tools/test_refactor.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import pytest
import respx
from tests.obsidian.obsidian_fakes import API_KEY, HTTP_BASE, serve_version

from vaultgate import markdown
from vaultgate.backend import Note
from vaultgate.config import ObsidianSettings, SafetySettings, Secret
from vaultgate.errors import AccessDenied, InvalidArgument, NoteChanged, ReadOnlyMode
from vaultgate.folder.backend import FolderBackend
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client
from vaultgate.vault import properties
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.policy import AccessPolicy
from vaultgate.vault.properties import normalize_tag, without_key


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        pytest.param("---\na: 1\nb: 2\n---\nx\n", "a", "---\nb: 2\n---\nx\n", id="first"),
        pytest.param(
            "---\r\na: 1\r\nb:\r\n- x\r\n- y\r\nc: 3\r\n---\r\n",
            "b",
            "---\r\na: 1\r\nc: 3\r\n---\r\n",
            id="block-list-crlf",
        ),
        pytest.param(
            '---\n# kept comment\n"due date": 2026-12-01\nnested:\n  k: v\n---\n',
            "due date",
            "---\n# kept comment\nnested:\n  k: v\n---\n",
            id="quoted-key-comment-kept",
        ),
        pytest.param(
            "---\nnested:\n  k: v\n  l: [1, 2]\nz: 日本語 🚀\n---\nbody\n",
            "nested",
            "---\nz: 日本語 🚀\n---\nbody\n",
            id="mapping",
        ),
        pytest.param("---\nonly: x\n---\n# T\n", "only", "# T\n", id="last-key-drops-block"),
        pytest.param(
            "---\ntext: >\n  folded\n  lines\n\nb: 1\n---\n",
            "text",
            "---\n\nb: 1\n---\n",  # the blank line is not the folded value's: it stays
            id="scalar",
        ),
    ],
)
def test_without_key_cuts_the_key_and_its_value_lines_only(
    text: str, key: str, expected: str
) -> None:
    assert without_key(text, key) == expected


def test_without_key_refuses_a_key_spelled_twice_rather_than_rewrite_the_block() -> None:
    # YAML keeps the last; cutting either line alone would leave the other one's value
    text = "---\n# mine\na: 1\nb: 2\na: 3\n---\nbody\n"

    with pytest.raises(InvalidArgument, match="spells 'a' 2 times"):
        without_key(text, "a")


@pytest.mark.parametrize(
    ("given", "name"),
    [("#project", "project"), (" area/sub ", "area/sub"), ("日本語", "日本語"), ("a-b_c", "a-b_c")],
)
def test_tags_are_named_without_their_hash(given: str, name: str) -> None:
    assert normalize_tag(given) == name


@pytest.mark.parametrize("given", ["", "#", "2026", "two words", "/a", "a/", "a//b", "a#b", "ü!"])
def test_what_obsidian_would_not_read_as_a_tag_is_refused(given: str) -> None:
    with pytest.raises(InvalidArgument, match="not a tag"):
        normalize_tag(given)


def guarded(vault: Path, **safety: object) -> GuardedClient:
    policy = AccessPolicy(SafetySettings(**safety))  # type: ignore[arg-type]
    return GuardedClient(FolderBackend(vault, index_location=vault.parent / "index"), policy)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "Private").mkdir(parents=True)
    (root / "a %.md").write_text("---\ntags: [x]\nk: 1\n---\n#y text\n", encoding="utf-8")
    (root / "Private/p.md").write_text("---\nk: 1\n---\n", encoding="utf-8")
    return root


@pytest.mark.anyio
async def test_edits_on_the_folder_backend_change_what_they_name(vault: Path) -> None:
    client = guarded(vault)

    await properties.set_property(client, "a %.md", "k", ["🚀"])
    await properties.add_tag(client, "a %.md", "z")
    await properties.remove_tag(client, "a %.md", "Y", inline=True)
    await properties.delete_property(client, "a %.md", "k")

    text = (vault / "a %.md").read_text("utf-8")
    assert markdown.parse_frontmatter(text).data == {"tags": ["x", "z"]}
    assert text.endswith("---\ntext\n")


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("safety", "error"),
    [({"deny": ("Private",)}, AccessDenied), ({"read_only": True}, ReadOnlyMode)],
)
async def test_edits_respect_the_policy(
    vault: Path, safety: dict[str, object], error: type[Exception]
) -> None:
    client = guarded(vault, **safety)
    path = "Private/p.md" if "deny" in safety else "a %.md"
    before = (vault / path).read_bytes()

    for edit in (
        properties.set_property(client, path, "k", 2),
        properties.delete_property(client, path, "k"),
        properties.add_tag(client, path, "new"),
    ):
        with pytest.raises(error):
            await edit

    assert (vault / path).read_bytes() == before


@pytest.mark.anyio
async def test_a_5x_plugin_gets_no_frontmatter_patch_only_the_note_with_one_key_less() -> None:
    # the plugin's PATCH would re-serialise the whole YAML block: the comment would go
    text = "---\r\n# mine\r\nkeep: [a, b]\r\ndrop: 日本\r\n---\r\nbody\r\n"
    router = respx.Router(base_url=HTTP_BASE, assert_all_called=False)
    serve_version(router, "5.1.0")
    note = {"Content-Disposition": 'attachment; filename="a %.md"'}
    router.get("/vault/Notes/a%20%25.md").respond(200, text=text, headers=note)
    patched = router.patch("/vault/Notes/a%20%25.md").respond(200, text="")
    router.get("/vault/Notes/").respond(200, json={"files": ["a %.md"]})
    written = router.put("/vault/Notes/a%20%25.md").respond(204)
    settings = ObsidianSettings(api_key=Secret(API_KEY), protocol="http", port=27123, timeout=2.0)
    http = await build_http_client(settings, transport=httpx.MockTransport(router.async_handler))
    client = GuardedClient(ObsidianClient(settings, http), AccessPolicy(SafetySettings()))

    message = await properties.delete_property(client, "Notes/a %.md", "drop")

    assert not patched.called
    assert written.calls.last.request.content.decode("utf-8") == (
        "---\r\n# mine\r\nkeep: [a, b]\r\n---\r\nbody\r\n"
    )
    assert "Deleted property 'drop'" in message


class TaggedMeanwhile(GuardedClient):
    """The user adds a tag in Obsidian just after vaultgate reads the note: after the first
    read only, or (``every``) after each."""

    reads = 0
    every = False

    async def read_note(self, path: str | None) -> Note:
        note = await super().read_note(path)
        self.reads += 1
        if self.reads == 1 or self.every:
            assert path is not None
            typed = note.content.replace("]", f", typed{self.reads}]", 1)
            await super().write_note(path, typed)
        return note


@pytest.mark.anyio
@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda c: properties.remove_tag(c, "n.md", "y", inline=False), id="remove"),
        pytest.param(lambda c: properties.add_tag(c, "n.md", "z"), id="add"),
        pytest.param(lambda c: properties.set_property(c, "n.md", "k", 2), id="set"),
        pytest.param(lambda c: properties.delete_property(c, "n.md", "k"), id="delete"),
    ],
)
async def test_a_note_changed_after_it_was_read_is_edited_again_on_its_new_text(
    tmp_path: Path, edit: Callable[[GuardedClient], Awaitable[str]]
) -> None:
    (tmp_path / "v").mkdir()
    (tmp_path / "v/n.md").write_text("---\ntags: [x, y]\nk: 1\n---\n", encoding="utf-8")
    client = TaggedMeanwhile(
        FolderBackend(tmp_path / "v", index_location=tmp_path / "index"),
        AccessPolicy(SafetySettings()),
    )

    await edit(client)

    text = (tmp_path / "v/n.md").read_text("utf-8")
    assert "typed1" in text  # what the user typed is kept
    assert text != "---\ntags: [x, y, typed1]\nk: 1\n---\n"  # and the edit was made on it
    assert client.reads == 2


@pytest.mark.anyio
@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda c: properties.remove_tag(c, "n.md", "y", inline=False), id="remove"),
        pytest.param(lambda c: properties.add_tag(c, "n.md", "z"), id="add"),
        pytest.param(lambda c: properties.set_property(c, "n.md", "k", 2), id="set"),
        pytest.param(lambda c: properties.delete_property(c, "n.md", "k"), id="delete"),
    ],
)
async def test_a_note_that_keeps_changing_is_not_overwritten(
    tmp_path: Path, edit: Callable[[GuardedClient], Awaitable[str]]
) -> None:
    (tmp_path / "v").mkdir()
    (tmp_path / "v/n.md").write_text("---\ntags: [x, y]\nk: 1\n---\n", encoding="utf-8")
    client = TaggedMeanwhile(
        FolderBackend(tmp_path / "v", index_location=tmp_path / "index"),
        AccessPolicy(SafetySettings()),
    )
    client.every = True

    with pytest.raises(NoteChanged):
        await edit(client)

    assert (tmp_path / "v/n.md").read_text("utf-8") == (
        "---\ntags: [x, y, typed1, typed2, typed3]\nk: 1\n---\n"
    )


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("text", "edit", "reason"),
    [
        pytest.param(
            "---\n{status: draft, tags: [a]}\n---\n",
            lambda c: properties.add_tag(c, "n.md", "z"),
            "Cannot add a tag to 'tags': The frontmatter is written as one flow-style mapping",
            id="flow-block",
        ),
        pytest.param(
            "---\n# mine\ntags: [a]\nk: 1\ntags: [b]\n---\n",
            lambda c: properties.remove_tag(c, "n.md", "b", inline=True),
            "Cannot remove a tag from 'tags': The frontmatter spells 'tags' 2 times",
            id="key-twice",
        ),
        pytest.param(
            "---\nbase: &v 1\nk: *v\n---\n",
            lambda c: properties.set_property(c, "n.md", "k", 2),
            "Cannot set 'k': 'k' uses a YAML anchor or alias",
            id="alias",
        ),
    ],
)
async def test_what_cannot_change_on_the_keys_lines_alone_is_refused_and_not_written(
    tmp_path: Path, text: str, edit: Callable[[GuardedClient], Awaitable[str]], reason: str
) -> None:
    (tmp_path / "v").mkdir()
    (tmp_path / "v/n.md").write_text(text, encoding="utf-8")
    client = guarded(tmp_path / "v")

    with pytest.raises(InvalidArgument) as refused:
        await edit(client)

    assert str(refused.value).startswith(reason)
    assert (tmp_path / "v/n.md").read_text("utf-8") == text


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("key", "sent", "written"),
    [
        pytest.param("count", "5", 5, id="number-as-text"),
        pytest.param("ratio", "0.25", 0.25, id="float-as-text"),
        pytest.param("done", "false", False, id="boolean-as-text"),
        pytest.param("aliases", '["東京", "🚀"]', ["東京", "🚀"], id="list-as-text"),
        pytest.param("count", "five", "five", id="text-that-is-no-number"),
        pytest.param("done", "5", "5", id="json-of-another-type"),
        pytest.param("title", "5", "5", id="a-text-property-stays-text"),
        pytest.param("new key", "7", "7", id="a-new-property-takes-the-text"),
        pytest.param("count", 6, 6, id="a-real-number"),
    ],
)
async def test_a_value_a_host_sent_as_text_keeps_the_type_the_property_holds(
    tmp_path: Path, key: str, sent: object, written: object
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    note = vault / "Typed #1.md"
    note.write_text(
        '---\r\n# kept\r\ntitle: "3"\r\ncount: 3\r\nratio: 0.5\r\ndone: true\r\n'
        "aliases: [a]\r\n---\r\nbody 日本\r\n",
        encoding="utf-8",
    )

    await properties.set_property(guarded(vault), "Typed #1.md", key, sent)

    text = note.read_bytes().decode("utf-8")
    assert markdown.parse_frontmatter(text).data[key] == written
    assert "# kept\r\n" in text
