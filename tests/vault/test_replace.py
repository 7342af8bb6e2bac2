"""Search and replace without MCP: the folder backend behind the guard, on the awkward vault
(KELVIN SIGN, sharp s, final sigma, CRLF, emoji and CJK, '#' and '%' in names, a 1 MB note,
a hidden folder)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from tests.folder.conftest import BIG, NOTES, write_awkward_vault

from vaultgate.config import SafetySettings
from vaultgate.errors import AccessDenied, InvalidArgument, NoteChanged
from vaultgate.folder.backend import FolderBackend
from vaultgate.vault import replace
from vaultgate.vault.guard import GuardedClient
from vaultgate.vault.listing import VaultLister
from vaultgate.vault.policy import AccessPolicy
from vaultgate.vault.replace import (
    PREFILTER_FROM,
    Replacer,
    ReplaceSpec,
    matcher_for,
    search_words,
)
from vaultgate.vault.rewriting import write_if_unchanged

pytestmark = pytest.mark.anyio


@pytest.fixture
def awkward_vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    return write_awkward_vault(root)


def replacer_for(vault: Path, **safety: object) -> tuple[Replacer, GuardedClient]:
    policy = AccessPolicy(SafetySettings(**safety))  # type: ignore[arg-type]
    client = GuardedClient(FolderBackend(vault, index_location=vault.parent / "index"), policy)
    return Replacer(client, VaultLister(client)), client


async def replace_everywhere(replacer: Replacer, spec: ReplaceSpec) -> list[str]:
    await replacer.dry_run(spec, limit=100, offset=0, budget=1_000_000)
    report, remaining, next_offset = await replacer.run(spec, limit=100, offset=0)
    assert (remaining, next_offset) == (0, None)
    return [entry["path"] for entry in report.replaced]


def bytes_of(vault: Path) -> dict[str, bytes]:
    return {
        p.relative_to(vault).as_posix(): p.read_bytes() for p in vault.rglob("*") if p.is_file()
    }


async def test_a_literal_replace_changes_only_the_matched_text_in_every_note(
    awkward_vault: Path,
) -> None:
    replacer, _ = replacer_for(awkward_vault)
    before = bytes_of(awkward_vault)

    changed = await replace_everywhere(replacer, ReplaceSpec("project", "projet 🧪"))

    after = bytes_of(awkward_vault)
    assert set(changed) == {
        path
        for path, text in NOTES.items()
        if path.endswith(".md") and "project" in text.split("---\r\n", 2)[-1]
    } | {BIG}
    for path, data in before.items():
        text = data.decode("utf-8")
        body = "---\r\ntags: [crlf]\r\n---\r\n" if path == "CRLF note.md" else ""
        expected = body + text.removeprefix(body).replace("project", "projet 🧪")
        if path.endswith(".md") and not path.startswith(".hidden/"):
            assert after[path].decode("utf-8") == expected, path
        else:
            assert after[path] == data, path  # the canvas and the hidden note are not notes here


async def test_many_candidates_are_narrowed_by_the_search_without_losing_a_note(
    awkward_vault: Path,
) -> None:
    for n in range(PREFILTER_FROM + 5):
        (awkward_vault / f"Filler/{n}.md").parent.mkdir(exist_ok=True)
        (awkward_vault / f"Filler/{n}.md").write_text(f"nothing {n}\n", encoding="utf-8")
    replacer, _ = replacer_for(awkward_vault)

    for find in ["\u212a", "STRAẞE", "σ", "ς", "🚀project🚀", "日本語"]:
        page, _, _ = await replacer.dry_run(
            ReplaceSpec(find, "x"), limit=100, offset=0, budget=1_000_000
        )
        holding = sorted(
            path
            for path, text in {**NOTES, BIG: (awkward_vault / BIG).read_text("utf-8")}.items()
            if path.endswith(".md") and find in text
        )
        assert [note.path for note in page.items] == holding, find


async def test_a_denied_folder_and_hidden_notes_are_never_read_or_written(
    awkward_vault: Path,
) -> None:
    replacer, _ = replacer_for(awkward_vault, deny=("Projects",))
    hidden = (awkward_vault / ".hidden/project.md").read_bytes()
    denied = (awkward_vault / "Projects/project plan.md").read_bytes()

    changed = await replace_everywhere(replacer, ReplaceSpec("project", "x"))

    assert not any(path.startswith(("Projects/", ".hidden/")) for path in changed)
    assert (awkward_vault / ".hidden/project.md").read_bytes() == hidden
    assert (awkward_vault / "Projects/project plan.md").read_bytes() == denied
    with pytest.raises(AccessDenied):
        await replacer.dry_run(
            ReplaceSpec("project", "x", filename="Projects/project plan.md"),
            limit=10,
            offset=0,
            budget=10_000,
        )


async def test_a_regex_counts_python_characters_across_emoji_and_crlf(
    awkward_vault: Path,
) -> None:
    replacer, _ = replacer_for(awkward_vault)
    spec = ReplaceSpec(r"(😀+)(project)", r"\2\1", regex=True, pattern="Projects/*.md")

    changed = await replace_everywhere(replacer, spec)

    assert changed == ["Projects/emoji 😀 name project.md"]
    assert (awkward_vault / changed[0]).read_text("utf-8") == (
        "😀😀😀 project at the end of emoji project😀\n"
    )
    crlf = ReplaceSpec(r"^project line$", "done", regex=True, filename="CRLF note.md")
    page, _, _ = await replacer.dry_run(crlf, limit=10, offset=0, budget=10_000)
    assert page.items == []  # '$' stops before '\n', and a CRLF line ends in '\r'
    crlf = ReplaceSpec(r"^project line(?=\r?$)", "done", regex=True, filename="CRLF note.md")
    assert await replace_everywhere(replacer, crlf) == ["CRLF note.md"]
    assert (awkward_vault / "CRLF note.md").read_bytes().endswith(b"\r\ndone\r\nPROJECT\r\n")


async def test_a_regex_over_a_1_mb_note_stays_within_its_deadline(awkward_vault: Path) -> None:
    async with matcher_for(ReplaceSpec(r"meeting (🚀)", r"\1", regex=True)) as find:
        spans = await find(BIG, (awkward_vault / BIG).read_text("utf-8"), 0)

    assert len(spans) == 20 * 900
    assert {span.replacement for span in spans} == {"🚀"}


async def test_too_many_matches_in_one_note_are_refused(awkward_vault: Path) -> None:
    async with matcher_for(ReplaceSpec("a", "b")) as find:
        with pytest.raises(InvalidArgument, match="more than 100,000 matches"):
            await find(BIG, (awkward_vault / BIG).read_text("utf-8"), 0)


class EditedMeanwhile(GuardedClient):
    """A backend under a user's editor: the note changes after vaultgate read it, just
    before the conditional write."""

    async def write_note_if_unchanged(self, path: str, expected: str | None, content: str) -> bool:
        await super().write_note(path, "typed by the user\n")
        return await super().write_note_if_unchanged(path, expected, content)


async def test_a_note_changed_between_read_and_write_is_not_written(
    awkward_vault: Path,
) -> None:
    client = EditedMeanwhile(
        FolderBackend(awkward_vault, index_location=awkward_vault.parent / "index"),
        AccessPolicy(SafetySettings()),
    )
    original = (await client.read_note("Kelvin.md")).content

    with pytest.raises(NoteChanged, match="nothing was written"):
        await write_if_unchanged(client, "Kelvin.md", original, "clobbered\n", what_next="")

    assert (awkward_vault / "Kelvin.md").read_text("utf-8") == "typed by the user\n"


@pytest.mark.parametrize(
    ("find", "query"),
    [
        ("two words", "two words"),
        ("  spaced\tout \n", "spaced out"),
        ("x" * 300, "x" * 200),
        ("short " + "y" * 300, "short"),
        (" ".join(["word"] * 100), " ".join(["word"] * 40)),
    ],
)
def test_the_search_is_asked_for_words_every_holding_note_has(find: str, query: str) -> None:
    assert search_words(find) == query
    assert len(query) <= 200


async def test_without_a_python_to_start_a_regex_is_refused_with_what_to_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.executable", "/nonexistent/python")

    with pytest.raises(InvalidArgument, match="regex=false"):
        async with matcher_for(ReplaceSpec("a+", "b", regex=True)):
            pass


async def test_a_huge_regex_is_compiled_in_the_child_while_the_server_keeps_answering(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(replace, "REGEX_CHARS", 10_000_000, raising=False)  # past the check
    monkeypatch.setattr(replace, "REGEX_SECONDS", 0.5)
    pattern = "|".join(f"w{n:06}x🧪" for n in range(330_000))  # ~3 MB: seconds to compile
    gaps: list[float] = []

    async def tick() -> None:
        last = anyio.current_time()
        while True:
            await anyio.sleep(0.01)
            now = anyio.current_time()
            gaps.append(now - last)
            last = now

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(tick)
        with pytest.raises(InvalidArgument, match=r"more than 0\.5 s \(compiling it\)"):
            async with matcher_for(ReplaceSpec(pattern, "x", regex=True)):
                pass
        tasks.cancel_scope.cancel()

    assert max(gaps) < 1.0  # the event loop was never held while it compiled


async def test_a_regex_longer_than_the_limit_is_refused_before_a_child_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.executable", "/nonexistent/python")  # no child could start
    pattern = "|".join(["日本", "#tag", "100%"] * 1_000)

    with pytest.raises(InvalidArgument, match="12,999 characters long, more than the 10,000"):
        async with matcher_for(ReplaceSpec(pattern, "x", regex=True)):
            pass


@pytest.mark.parametrize(
    ("find", "replacement", "regex"),
    [
        pytest.param("(a{100})", "\\1" * 500, True, id="regex-groups"),
        pytest.param("a", "🧪" * 100, False, id="literal"),
    ],
)
async def test_a_replace_that_would_grow_a_note_past_its_limit_is_refused_with_the_numbers(
    awkward_vault: Path, find: str, replacement: str, regex: bool
) -> None:
    note = awkward_vault / "Grows 日本 #1.md"
    note.write_bytes(("a" * 100 + "\r\n").encode("utf-8") * 200)  # 20,400 characters
    before = bytes_of(awkward_vault)
    replacer, _ = replacer_for(awkward_vault)
    spec = ReplaceSpec(find, replacement, regex=regex, filename="Grows 日本 #1.md")

    with pytest.raises(InvalidArgument) as refused:
        await replacer.dry_run(spec, limit=10, offset=0, budget=100_000)

    message = str(refused.value)
    assert "'Grows 日本 #1.md' from 20,400" in message
    assert "1,040,800 a replace may leave in it" in message
    assert "at most 10,000,000 characters" in message
    assert bytes_of(awkward_vault) == before


def test_a_note_may_grow_to_twice_its_length_plus_a_megabyte_within_ten() -> None:
    assert replace.growth_limit(0) == 1_000_000
    assert replace.growth_limit(100_000) == 1_200_000
    assert replace.growth_limit(6_000_000) == 10_000_000
    assert replace.growth_limit(12_000_000) == 12_000_000  # never below what it holds


async def test_a_replace_that_doubles_a_note_is_still_allowed(awkward_vault: Path) -> None:
    note = awkward_vault / "Doubles.md"
    note.write_bytes(("b" * 100 + "\r\n").encode("utf-8") * 200)
    replacer, _ = replacer_for(awkward_vault)

    changed = await replace_everywhere(
        replacer, ReplaceSpec("(b+)", "\\1\\1", regex=True, filename="Doubles.md")
    )

    assert changed == ["Doubles.md"]
    assert note.read_bytes() == ("b" * 200 + "\r\n").encode("utf-8") * 200
