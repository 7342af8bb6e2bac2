"""Link health and backlinks, from the plugin's link lists (4.0+, 5.0+) or from the notes' text
(before), against the emulator of each version: every version answers alike."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.vault.emulated import plugin_client

from vaultgate.config import SafetySettings
from vaultgate.errors import NotFound
from vaultgate.vault import links
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.listing import VaultLister
from vaultgate.vault.policy import AccessPolicy

VERSIONS = ["3.6.2", "4.0.2", "4.1.7", "5.1.0"]

LINKED_VAULT: dict[str, bytes] = {
    "Hub 🚀.md": (
        "---\nup: '[[Alpha]]'\n---\n# Hub\n\n"
        "- [[Alpha]] and [[Beta#Part]] and [[Gamma|g]]\n"
        "- ![[pic 🚀.png]] ![[gone.pdf]]\n"
        "- [[Nowhere]]\n"
        "- [C# note](Sub/C%23%20note.md)\n"
        "- [[Private/Secret]]\n"
    ).encode(),
    "Alpha.md": "back to [[Hub 🚀]]\n\n```\n[[Beta]] in code is no link\n```\n".encode(),
    "Beta.md": b"# Part\n\nno links here\n",
    "Gamma.md": b"[[Gamma]] links only itself\n",
    "Sub/C# note.md": "[[日本語 メモ]]\n".encode(),
    "日本語 メモ.md": "テキスト\n".encode(),
    "Lonely 100%.md": b"nobody visible links here; [[Missing 100%]]\n",
    "Private/Secret.md": b"[[Lonely 100%]] is linked from here only\n",
    "Private/Only.md": b"nothing links here\n",
    "pic 🚀.png": b"\x89PNG",
    "unused.png": b"\x89PNG",
    "Attachments/doc #1.pdf": b"%PDF",
    ".hidden/x.md": b"[[Lonely 100%]] from a hidden note\n",
    ".obsidian/app.json": b"{}",
}


@dataclass
class Linked:
    client: GuardedClient
    lister: VaultLister
    requests: list[str]  # "METHOD /path" of every request sent, in order

    @property
    def reader(self) -> links.LinkReader:
        return links.LinkReader(self.client, self.lister, ttl=0.0)  # nothing kept


@pytest.fixture
def linked_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    for path, data in LINKED_VAULT.items():
        file = vault.joinpath(*path.split("/"))
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
    return vault


@asynccontextmanager
async def linked(vault: Path, version: str, **safety: object) -> AsyncIterator[Linked]:
    """The guarded client and a lister, over plain HTTP to the emulator of ``version``."""
    async with plugin_client(vault, version) as (plugin, requests):
        policy = AccessPolicy(SafetySettings(**safety))  # type: ignore[arg-type]
        client = GuardedClient(plugin, policy)
        yield Linked(client, VaultLister(client), requests)


# --- which lines link -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "target"),
    [
        pytest.param("see [[Beta]]", "Beta.md", id="wikilink"),
        pytest.param("see [[beta#Part|the part]]", "Beta.md", id="case-heading-alias"),
        pytest.param("see [[Notes/Beta]]", "Notes/Beta.md", id="path"),
        pytest.param("![[pic 🚀.png]]", "pic 🚀.png", id="embed"),
        pytest.param("[C#](Sub/C%23%20note.md)", "Sub/C# note.md", id="markdown-encoded"),
        pytest.param("[x](../Beta.md#Part)", "Beta.md", id="relative"),
        pytest.param("up: '[[日本語 メモ]]'", "日本語 メモ.md", id="frontmatter-cjk"),
    ],
)
def test_a_line_holding_a_link_to_the_file_is_a_linking_line(line: str, target: str) -> None:
    assert links.linking_lines(f"# T\n\n{line}\nother\n", target) == [line]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("```\n[[Beta]]\n```\n", id="fenced"),
        pytest.param("~~~md\n[[Beta]]\n~~~\n", id="tilde-fenced"),
        pytest.param("`[[Beta]]` in code\n", id="inline-code"),
        pytest.param("[[Betamax]] and [[Alpha/Beta extra]]\n", id="other-names"),
        pytest.param("Beta without brackets\n", id="mention"),
    ],
)
def test_code_and_other_names_are_not_linking_lines(text: str) -> None:
    assert links.linking_lines(text, "Beta.md") == []


def test_a_long_linking_line_is_cut_around_the_link() -> None:
    line = "x" * 500 + " [[Beta]] " + "y" * 500

    [shown] = links.linking_lines(line, "Beta.md")

    assert len(shown) <= links.LINE_LIMIT + 2
    assert "[[Beta]]" in shown
    assert shown.startswith("…")
    assert shown.endswith("…")


# --- every version alike ----------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("version", VERSIONS)
async def test_broken_links_are_grouped_by_note_on_every_version(
    linked_vault: Path, version: str
) -> None:
    async with linked(linked_vault, version) as vault:
        found = (await links.broken_links(vault.reader)).value
        below = (await links.broken_links(vault.reader, folder="Sub")).value

    assert [(b.filename, b.targets) for b in found] == [
        # links before embeds, as Obsidian's unresolvedLinks lists them (issue 36)
        ("Hub 🚀.md", ("Nowhere", "gone.pdf")),
        ("Lonely 100%.md", ("Missing 100%",)),
    ]
    assert below == []


@pytest.mark.anyio
@pytest.mark.parametrize("version", VERSIONS)
async def test_orphans_are_notes_then_attachments_nothing_links_to(
    linked_vault: Path, version: str
) -> None:
    async with linked(linked_vault, version) as vault:
        found = (await links.orphans(vault.reader)).value
        below = (await links.orphans(vault.reader, folder="Attachments")).value

    assert [(o.path, o.kind) for o in found] == [
        ("Private/Only.md", "note"),
        ("Attachments/doc #1.pdf", "attachment"),
        ("unused.png", "attachment"),
    ]
    assert [o.path for o in below] == ["Attachments/doc #1.pdf"]


@pytest.mark.anyio
@pytest.mark.parametrize("version", VERSIONS)
async def test_backlinks_name_the_linking_notes_and_their_lines(
    linked_vault: Path, version: str
) -> None:
    async with linked(linked_vault, version) as vault:
        to_beta = (await links.backlinking_notes(vault.reader, "Beta.md")).value
        to_gamma = (await links.backlinking_notes(vault.reader, "Gamma.md")).value
        to_cjk = (await links.backlinking_notes(vault.reader, "日本語 メモ.md")).value
        to_pic = (await links.backlinking_notes(vault.reader, "pic 🚀.png")).value
        lines = await links.with_lines(vault.client, to_beta + to_cjk, "Beta.md")
        with pytest.raises(NotFound):
            await links.backlinking_notes(vault.reader, "Nope.md")

    assert to_beta == ["Hub 🚀.md"]  # Alpha's [[Beta]] is inside a code block
    assert to_gamma == ["Hub 🚀.md"]  # Gamma's link to itself is left out
    assert to_cjk == ["Sub/C# note.md"]
    assert to_pic == ["Hub 🚀.md"]
    assert [(b.filename, b.lines) for b in lines] == [
        ("Hub 🚀.md", ("- [[Alpha]] and [[Beta#Part]] and [[Gamma|g]]",)),
        ("Sub/C# note.md", ()),
    ]


# --- the policy -------------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("version", VERSIONS)
async def test_a_denied_folder_neither_shows_nor_links(linked_vault: Path, version: str) -> None:
    async with linked(linked_vault, version, deny=("Private",)) as vault:
        orphans = (await links.orphans(vault.reader)).value
        broken = (await links.broken_links(vault.reader)).value
        to_lonely = (await links.backlinking_notes(vault.reader, "Lonely 100%.md")).value
        from_hub = await links.with_lines(vault.client, ["Hub 🚀.md"], "Private/Secret.md")

    # Lonely is linked only from a denied note: for the model nothing links to it.
    assert [o.path for o in orphans] == ["Lonely 100%.md", "Attachments/doc #1.pdf", "unused.png"]
    assert to_lonely == []
    shown = [o.path for o in orphans] + [b.filename for b in broken]
    assert not [path for path in shown if path.startswith(("Private/", "."))]
    # A link to the denied note is a link to a missing one, from the plugin's lists (5.0) as
    # from the text: broken links say nothing of what exists out of reach.
    hub = {b.filename: b.targets for b in broken}["Hub 🚀.md"]
    assert hub == ("Nowhere", "Private/Secret", "gone.pdf")  # links, then embeds
    # The text of a visible note is shown as written, its link to a denied note included.
    assert from_hub[0].lines == ("- [[Private/Secret]]",)


@pytest.mark.anyio
async def test_before_4_0_every_note_is_read_in_one_search_and_every_folder_listed(
    linked_vault: Path,
) -> None:
    async with linked(linked_vault, "3.6.2") as vault:
        notes = await links.links_from_text(vault.client, vault.lister)

    # one search for the links' text; the guard's one search for protection tags (kept a
    # while), which asks the plugin's version first; the few notes whose text the search
    # answered are read for their tags as they are now (issue 36)
    assert sorted(r for r in vault.requests if not r.startswith("GET /vault/")) == [
        "GET /",
        "POST /search/",
        "POST /search/",
    ]
    assert "GET /vault/Alpha.md" in vault.requests
    assert sorted(r for r in vault.requests if r.startswith("GET /vault/") and r.endswith("/")) == [
        "GET /vault/",
        "GET /vault/Attachments/",
        "GET /vault/Private/",
        "GET /vault/Sub/",
    ]
    by_path = {note.path: note for note in notes}
    # in the order Obsidian's resolvedLinks gives on later versions: links, then embeds
    assert by_path["Hub 🚀.md"].links == (
        "Alpha.md",
        "Beta.md",
        "Gamma.md",
        "Sub/C# note.md",
        "Private/Secret.md",
        "pic 🚀.png",
    )
    assert by_path["Beta.md"].links == ()
    assert ".hidden/x.md" not in by_path


@pytest.mark.anyio
@pytest.mark.parametrize("version", ["4.1.7", "5.1.0"])
async def test_the_links_are_kept_for_the_later_pages_until_vaultgate_writes(
    linked_vault: Path, version: str
) -> None:
    async with linked(linked_vault, version) as vault:
        reader = links.LinkReader(vault.client, vault.lister)
        orphans = (await links.orphans(reader)).value
        broken = (await links.broken_links(reader)).value  # 4.x: unresolved links need the text
        assert (await links.orphans(reader, offset=1)).value == orphans
        assert (await links.broken_links(reader, offset=1)).value == broken
        kept = [r for r in vault.requests if r.startswith("POST")]
        reader.invalidate()
        await links.broken_links(reader)

    # each first page's search (4.x: unresolved links need the text), and the guard's
    # protection-tag search
    assert kept == ["POST /search/"] * 3
    assert [r for r in vault.requests if r.startswith("POST")] == [*kept, "POST /search/"]
