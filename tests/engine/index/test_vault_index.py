"""The vault index against the folder: sync, refreshes, reads, and files that cannot be trusted."""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.engine.index.conftest import contents, fresh_build, write

from vaultgate.engine.index import VaultIndex
from vaultgate.engine.index.database import SCHEMA_VERSION, default_location
from vaultgate.engine.index.records import searched_text
from vaultgate.engine.search import tag_counts
from vaultgate.engine.vault import Vault


@pytest.fixture
def index(vault: Path, index_at: Path) -> Iterator[VaultIndex]:
    with VaultIndex(vault, location=index_at) as opened:
        opened.sync()
        yield opened


# --- what a sync indexes -------------------------------------------------------------------


def test_a_sync_indexes_every_markdown_note_and_nothing_hidden(vault: Path, index_at: Path) -> None:
    write(vault, "image.png", "not a note")
    write(vault, ".trash/old.md", "deleted")
    write(vault, "Notes/.hidden.md", "hidden")
    write(vault, "README.MD", "not markdown to Obsidian's file list either")
    with VaultIndex(vault, location=index_at) as index:
        report = index.sync()
        assert index.files() == Vault(vault).markdown_files()
    assert (report.notes, report.read, report.removed) == (3, 3, 0)


def test_reads_answer_none_until_the_first_sync(vault: Path, index_at: Path) -> None:
    fresh_build(vault, index_at)  # the file is complete, but this process has not synced
    with VaultIndex(vault, location=index_at) as index:
        assert index.ready is False
        assert index.candidates("Welcome") is None
        assert index.files() is None
        assert index.tag_counts() is None
        assert index.note("Welcome.md") is None
        index.sync()
        assert index.ready is True
        assert index.candidates("Welcome") == ["Welcome.md"]


def test_an_up_to_date_sync_reads_nothing(index: VaultIndex) -> None:
    report = index.sync()
    assert (report.notes, report.read, report.removed) == (3, 0, 0)


def test_a_note_s_metadata_are_the_vault_s(index: VaultIndex, vault: Path) -> None:
    write(
        vault,
        "Projects/plan.md",
        "---\nstatus: active\ntags: [a/b]\n---\n# Plan\n\n## Goals\n\n#todo see [[Welcome|home]]\n",
    )
    index.note_written("Projects/plan.md")
    note = index.note("Projects/plan.md")
    meta = Vault(vault).meta("Projects/plan.md")
    stat = (vault / "Projects" / "plan.md").stat()
    assert note is not None
    assert (note.mtime_ns, note.size) == (stat.st_mtime_ns, stat.st_size)
    assert note.frontmatter == meta.frontmatter == {"status": "active", "tags": ["a/b"]}
    assert note.frontmatter_valid is True
    assert list(note.tags) == meta.tags == ["a/b", "todo"]
    assert note.headings == ((1, "Plan"), (2, "Goals"))
    assert list(note.links) == meta.link_targets == ["Welcome"]
    assert index.frontmatter("Projects/plan.md") == {"status": "active", "tags": ["a/b"]}
    assert index.frontmatter("Nowhere.md") is None
    assert [n.path for n in index.notes() or []] == index.files()


def test_tag_counts_are_the_engine_s(tmp_path: Path, index_at: Path) -> None:
    write(tmp_path, "b.md", "---\ntags: [work/tasks, 2024]\n---\n#home #home\n")
    write(tmp_path, "a.md", "#work/tasks and #x/y/z #10 #2\n")
    write(tmp_path, "c/d.md", "#10x #Home\n")
    with VaultIndex(tmp_path, location=index_at) as index:
        index.sync()
        assert index.tag_counts() == tag_counts(Vault(tmp_path))
        assert index.tag_counts() is not None


def test_a_sync_reports_progress_and_logs_one_line(
    vault: Path, index_at: Path, caplog: pytest.LogCaptureFixture
) -> None:
    for n in range(1_100):
        write(vault, f"many/{n}.md", f"note {n}")
    calls: list[tuple[int, int]] = []
    with caplog.at_level(logging.INFO), VaultIndex(vault, location=index_at) as index:
        index.sync(progress=lambda done, total: calls.append((done, total)))
    assert calls == [(500, 1_103), (1_000, 1_103), (1_103, 1_103)]
    (line,) = [r.getMessage() for r in caplog.records if r.name.startswith("vaultgate.engine")]
    assert line.startswith("vault index: 1103 notes (1103 read, 0 removed) in ")


# --- ranking by words -------------------------------------------------------------------------


def _everything(path: str) -> bool:
    return True


def test_words_rank_notes_holding_them_at_a_word_s_start(tmp_path: Path, index_at: Path) -> None:
    vault = tmp_path / "ranked"
    write(vault, "Zip #1 🗜️.md", "Compression of data,\r\ncompressed and compressed again.\r\n")
    write(vault, "100% done.md", "Data in a table, nothing squeezed.\n")
    write(vault, "Thread.md", "A thread, nothing else: decompression.\n")
    write(vault, "Café.md", "Un café noir.\n")
    with VaultIndex(vault, location=index_at) as index:
        index.sync()
        ranked = index.ranked_by_words("compress data", _everything, 10)
        assert ranked is not None
        assert [path for path, _ in ranked] == ["Zip #1 🗜️.md", "100% done.md"]
        # whole words: 'decompression' does not start with 'compress', 'thread' not with 'read'
        assert index.ranked_by_words("read", _everything, 10) == []
        cafe = unicodedata.normalize("NFD", "CAFÉ")  # folded and composed before it is looked up
        assert [path for path, _ in index.ranked_by_words(cafe, _everything, 10) or []] == [
            "Café.md"
        ]


def test_words_in_a_script_without_spaces_rank_inside_longer_runs(
    tmp_path: Path, index_at: Path
) -> None:
    vault = tmp_path / "cjk"
    write(vault, "日記/今日.md", "今日の定例会議メモ、東京都で。\n")
    write(vault, "日記/明日.md", "明日は休み。\n")
    with VaultIndex(vault, location=index_at) as index:
        index.sync()
        ranked = index.ranked_by_words("会議メモ 東京都", _everything, 10)
    assert [path for path, _ in ranked or []] == ["日記/今日.md"]


def test_a_note_rewritten_or_removed_no_longer_ranks_by_its_old_words(
    index: VaultIndex, vault: Path
) -> None:
    write(vault, "Welcome.md", "# Welcome\n\nzeppelin 🎈 and more zeppelins\n")
    index.note_written("Welcome.md")
    assert [p for p, _ in index.ranked_by_words("zeppelin", _everything, 5) or []] == ["Welcome.md"]
    write(vault, "Welcome.md", "# Welcome\n\nballoons only\n")
    index.note_written("Welcome.md")
    assert index.ranked_by_words("zeppelin", _everything, 5) == []
    assert [p for p, _ in index.ranked_by_words("balloons", _everything, 5) or []] == ["Welcome.md"]
    (vault / "Welcome.md").unlink()
    index.note_removed("Welcome.md")
    assert index.ranked_by_words("balloons", _everything, 5) == []


def test_a_note_not_wanted_is_never_ranked(tmp_path: Path, index_at: Path) -> None:
    vault = tmp_path / "wanted"
    for n in range(5):
        write(vault, f"n{n}.md", "kestrel " * (n + 1))
    with VaultIndex(vault, location=index_at) as index:
        index.sync()
        ranked = index.ranked_by_words("kestrel", lambda path: path != "n4.md", 3)
    assert [path for path, _ in ranked or []] == ["n3.md", "n2.md", "n1.md"]


# --- changes behind the index's back, and through vaultgate ----------------------------------


def test_a_sync_catches_up_with_edits_removals_and_renames(
    vault: Path, index_at: Path, tmp_path: Path
) -> None:
    with VaultIndex(vault, location=index_at) as index:
        index.sync()
    write(vault, "Welcome.md", "# Welcome\n\nA longer text about #gardening.\n")
    (vault / "Notes" / "space name.md").unlink()
    (vault / "Projects").rename(vault / "Archive")
    write(vault, "Inbox/new note.md", "fresh #idea\n")
    with VaultIndex(vault, location=index_at) as index:
        report = index.sync()
        assert index.files() == Vault(vault).markdown_files()
        assert index.candidates("gardening") == ["Welcome.md"]
        assert index.candidates("space name") == []
        assert index.candidates("plan") == ["Archive/plan.md"]
    assert (report.read, report.removed) == (3, 2)
    assert contents(index_at) == fresh_build(vault, tmp_path / "fresh.sqlite3")


def test_writes_through_vaultgate_are_indexed_at_once(index: VaultIndex, vault: Path) -> None:
    write(vault, "Welcome.md", "same size text")
    write(vault, "Welcome.md", "other text ab")  # mtime and size may not move: read anyway
    index.note_written("Welcome.md")
    assert index.candidates("other text") == ["Welcome.md"]

    (vault / "Welcome.md").rename(vault / "Notes" / "Hello.md")
    index.note_moved("Welcome.md", "Notes/Hello.md")
    assert index.candidates("other") == ["Notes/Hello.md"]
    assert index.candidates("hello") == ["Notes/Hello.md"]  # the new name is searched

    (vault / "Notes" / "Hello.md").unlink()
    index.note_removed("Notes/Hello.md")
    assert index.files() == ["Notes/space name.md", "Projects/plan.md"]


def test_a_folder_moved_or_removed_through_vaultgate_takes_its_notes(
    index: VaultIndex, vault: Path, tmp_path: Path
) -> None:
    write(vault, "Projects/deep/er.md", "deeper")
    write(vault, "Projects x/keep.md", "a sibling whose name starts alike")
    index.refresh(["Projects", "Projects x"])
    (vault / "Projects").rename(vault / "Moved")
    index.note_moved("Projects", "Moved")
    assert index.files() == Vault(vault).markdown_files()
    shutil.rmtree(vault / "Moved")
    index.note_removed("Moved")
    assert index.files() == ["Notes/space name.md", "Projects x/keep.md", "Welcome.md"]
    assert contents(index.location) == fresh_build(vault, tmp_path / "fresh.sqlite3")


def test_refresh_ignores_hidden_and_outside_paths(index: VaultIndex, vault: Path) -> None:
    write(vault, ".obsidian/x.md", "hidden")
    index.refresh([".obsidian/x.md", "../outside.md", "a//b.md", "Notes/./x.md"])
    assert index.files() == Vault(vault).markdown_files()


# --- candidates --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "query"),
    [
        pytest.param("the \u212aelvin scale", "KELVIN", id="KELVIN SIGN in the text"),
        pytest.param("a kelvin scale", "\u212aELVIN", id="KELVIN SIGN in the query"),
        pytest.param("\u017ftraight", "STRAIGHT", id="LONG S"),
        pytest.param("İstanbul", "istanbul", id="I WITH DOT ABOVE"),
        pytest.param("kırmızı", "KIRMIZI", id="DOTLESS I"),
        pytest.param("ΟΔΥΣΣΕΥΣ", "οδυσσευς", id="final sigma"),
        pytest.param("ᏣᎳᎩ", "ꮳꮃꭹ", id="Cherokee, cased after SQLite's Unicode tables"),
        pytest.param("line one\r\nline two", "ONE\r", id="CRLF"),
        pytest.param("binary\x00 then the zeppelin", "zeppelin", id="a word after a NUL"),
    ],
)
def test_candidates_include_what_python_matches_ignoring_case(
    tmp_path: Path, index_at: Path, text: str, query: str
) -> None:
    write(tmp_path, "note.md", text)
    write(tmp_path, "other.md", "nothing here")
    with VaultIndex(tmp_path, location=index_at) as index:
        index.sync()
        assert index.candidates(query) == ["note.md"]


def test_candidates_name_the_notes_another_connection_wrote(
    index: VaultIndex, vault: Path, index_at: Path
) -> None:
    """Another server on the same vault writes the same file: its row ids are not in this
    one's list of paths, and one it frees may come back as another note's."""
    write(vault, "Inbox/z last 🦘.md", "quokka")
    index.note_written("Inbox/z last 🦘.md")  # the highest row id, named in this one's list
    assert index.candidates("quokka") == ["Inbox/z last 🦘.md"]

    with VaultIndex(vault, location=index_at) as other:
        other.sync()
        (vault / "Inbox" / "z last 🦘.md").unlink()
        other.note_removed("Inbox/z last 🦘.md")
        write(vault, "日本語/メモ #1 100%.md", "zeppelin 日本語\r\n")
        other.note_written("日本語/メモ #1 100%.md")  # takes the freed row id

    assert index.candidates("zeppelin") == ["日本語/メモ #1 100%.md"]
    assert index.candidates("quokka") == []
    assert index.candidates("日本語") == ["日本語/メモ #1 100%.md"]


def test_a_term_may_match_the_note_s_name(index: VaultIndex) -> None:
    assert index.candidates("SPACE nam") == ["Notes/space name.md"]
    assert index.candidates("plan goals") == ["Projects/plan.md"]


def test_candidates_are_every_matching_note_once(tmp_path: Path, index_at: Path) -> None:
    # in no particular order: the search takes them in the vault's
    for name in ["b.md", "a/z.md", "B.md", "é.md", "😀.md", "ﬀ.md", "a b.md"]:
        write(tmp_path, name, "common words")
    with VaultIndex(tmp_path, location=index_at) as index:
        index.sync()
        found = index.candidates("common")
        assert found is not None
        assert sorted(found) == sorted(Vault(tmp_path).markdown_files())


@pytest.mark.parametrize("query", ["a", "of it", "ab cd ef"])
def test_terms_too_short_to_look_up_cannot_be_narrowed(index: VaultIndex, query: str) -> None:
    assert index.candidates(query) is None


def test_an_empty_query_has_no_candidates(index: VaultIndex) -> None:
    assert index.candidates("  ") == []


# --- files that cannot be trusted ----------------------------------------------------------------


def test_a_deleted_index_file_is_built_again(vault: Path, index_at: Path, tmp_path: Path) -> None:
    expected = fresh_build(vault, index_at)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index_at}{suffix}").unlink(missing_ok=True)
    assert fresh_build(vault, index_at) == expected


def test_deleting_the_file_under_an_open_index_is_safe(
    index: VaultIndex, vault: Path, index_at: Path
) -> None:
    index_at.unlink()
    write(vault, "Welcome.md", "still answering")
    index.note_written("Welcome.md")
    assert index.candidates("answering") == ["Welcome.md"]
    with VaultIndex(vault, location=index_at) as another:
        another.sync()
        assert another.files() == Vault(vault).markdown_files()


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda path: path.write_bytes(b"not a database at all" * 100), id="garbage"),
        pytest.param(lambda path: path.write_bytes(b""), id="empty"),
        pytest.param(
            lambda path: path.write_bytes(path.read_bytes()[: path.stat().st_size // 2]),
            id="truncated",
        ),
        pytest.param(
            lambda path: path.write_bytes(
                path.read_bytes()[:8192] + b"\xff" * 4096 + path.read_bytes()[12288:]
            ),
            id="a page overwritten",
        ),
    ],
)
def test_a_damaged_index_file_is_built_again(
    vault: Path, index_at: Path, tmp_path: Path, damage: object
) -> None:
    for n in range(300):  # pages enough to damage some in the middle
        write(vault, f"bulk/{n}.md", f"note number {n} " * 20)
    expected = fresh_build(vault, index_at)
    assert callable(damage)
    damage(index_at)
    assert fresh_build(vault, index_at) == expected
    check = sqlite3.connect(index_at)
    assert check.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    check.close()


@pytest.mark.parametrize(
    "statement",
    [
        pytest.param(f"PRAGMA user_version = {SCHEMA_VERSION + 1}", id="another schema version"),
        pytest.param(
            "UPDATE meta SET value = '/elsewhere' WHERE key = 'vault'", id="another vault"
        ),
        pytest.param("UPDATE meta SET value = 'x' WHERE key = 'fold'", id="another Python's fold"),
    ],
)
def test_an_index_file_made_for_something_else_is_built_again(
    vault: Path, index_at: Path, statement: str
) -> None:
    fresh_build(vault, index_at)
    conn = sqlite3.connect(index_at)
    conn.execute(statement)
    conn.execute("DELETE FROM notes WHERE path = 'Welcome.md'")  # would show if kept
    conn.commit()
    conn.close()
    with VaultIndex(vault, location=index_at) as index:
        assert index.sync().read == 3
        assert index.files() == Vault(vault).markdown_files()


def test_the_default_location_is_in_the_user_cache_named_by_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    location = default_location(tmp_path / "a")
    assert location.parent == tmp_path / "xdg" / "vaultgate" / "index"
    assert location == default_location(tmp_path / "b" / ".." / "a")
    assert location != default_location(tmp_path / "b")
    with VaultIndex(tmp_path / "a") as index:
        assert index.location == location
    assert location.is_file()


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() == 0, reason="root reads anything")
def test_a_note_that_cannot_be_read_is_left_out_and_tried_again(
    vault: Path, index_at: Path
) -> None:
    locked = vault / "Welcome.md"
    locked.chmod(0)
    try:
        with VaultIndex(vault, location=index_at) as index:
            index.sync()
            assert "Welcome.md" not in (index.files() or [])
            locked.chmod(0o644)
            index.sync()
            assert "Welcome.md" in (index.files() or [])
    finally:
        locked.chmod(0o644)


@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes only on Linux")
def test_names_that_are_not_utf_8_are_indexed_moved_and_dropped(
    tmp_path: Path, index_at: Path
) -> None:
    root = os.fsencode(tmp_path)
    os.mkdir(root + b"/d\xff")
    for name in (b"/caf\xe9.md", b"/d\xff/x.md"):
        with open(root + name, "w", encoding="utf-8") as handle:
            handle.write("hello there")
    with VaultIndex(tmp_path, location=index_at) as index:
        index.sync()
        assert index.candidates("hello") == Vault(tmp_path).markdown_files()
        assert index.candidates("CAF") == ["caf\udce9.md"]
        # stored with U+FFFD for the surrogate: a search reads such a note itself
        assert index.texts(["caf\udce9.md", "d\udcff/x.md"]) == []
        os.remove(root + b"/caf\xe9.md")
        index.note_removed("caf\udce9.md")
        os.rename(root + b"/d\xff", root + b"/e")
        index.note_moved("d\udcff", "e")
        assert index.files() == ["e/x.md"]
        assert index.sync().read == 0


def test_texts_are_what_the_index_searches(index: VaultIndex, vault: Path) -> None:
    files = Vault(vault).markdown_files()
    texts = index.texts([*files, "missing.md"])
    assert texts is not None
    assert sorted(text.path for text in texts) == sorted(files)
    for text in texts:
        stat = (vault / text.path).stat()
        assert text.stat == (stat.st_mtime_ns, stat.st_size)
        name = text.path.rsplit("/", 1)[-1].removesuffix(".md")
        content = (vault / text.path).read_bytes().decode("utf-8", "replace")
        assert text.searched == searched_text(name, content)


def test_notes_written_one_commit_at_a_time_stay_found_across_segment_merges(
    vault: Path, index_at: Path
) -> None:
    # each refresh commits one FTS5 segment: 200 of them pass CRISIS_MERGE (64) more than
    # once, so segments are merged on the way, and later ones drop or replace earlier rows
    names = [f"Log/{n:03d} café #{n % 7} 100% 日本.md" for n in range(200)]
    with VaultIndex(vault, location=index_at) as index:
        index.sync()
        for n, name in enumerate(names):
            write(vault, name, f"---\ntags: [t{n}]\n---\nzeppelin{n:03d} 🚀 shared word\r\n")
            index.note_written(name)
        for name in names[::3]:
            (vault / name).unlink()
            index.note_removed(name)
        for name in names[1::3]:
            write(vault, name, "rewritten: no longer the old word\n")
            index.note_written(name)
        kept = names[2::3]
        assert index.candidates("zeppelin") == [name for name in sorted(names) if name in kept]
        assert index.candidates("zeppelin002") == [names[2]]
        assert index.candidates("zeppelin001") == []
        assert index.candidates("rewritten") == names[1::3]
        segments = (
            sqlite3.connect(index_at).execute("SELECT count(*) FROM notes_text_data").fetchone()[0]
        )
        assert segments < 200  # merged, not one segment per commit


# --- bm25 over the notes a search may reach (issue 36) -------------------------------------

RANKED_NOTES = {
    "Inbox/alpha 日本 #1.md": "An alpha note 🚀\r\nwith more words around it.\r\n",
    "Inbox/beta 50%.md": "A beta note, café.\n",
    "Areas/beta again 🙂.md": "Beta and beta once more, 漢字 beside it.\n",
    "Areas/plain.md": "Nothing to find here at all, just filler text.\n",
}
# notes the search may not reach: they hold 'alpha' often, and are long
UNREACHABLE = {
    "Secret 🙈/alpha one.md": "alpha alpha alpha " + "filler " * 200 + "\n",
    "Secret 🙈/alpha two.md": "---\ntags: [mcp-hidden]\n---\nalpha, alpha.\n",
    "Denied/alpha three #3.md": "alpha\r\n" * 5,
}


def _reachable(path: str) -> bool:
    return path.startswith(("Inbox/", "Areas/"))


def test_unreachable_notes_change_neither_the_order_nor_the_scores_of_ranked_words(
    tmp_path: Path,
) -> None:
    alone, beside = tmp_path / "alone", tmp_path / "beside"
    for path, text in RANKED_NOTES.items():
        write(alone, path, text)
        write(beside, path, text)
    for path, text in UNREACHABLE.items():
        write(beside, path, text)

    def ranked(vault: Path) -> list[tuple[str, float]] | None:
        with VaultIndex(vault, location=tmp_path / f"{vault.name}.sqlite3") as index:
            index.sync()
            return index.ranked_by_words("alpha beta", _reachable, 10)

    without, among = ranked(alone), ranked(beside)
    assert without is not None
    assert [path for path, _ in without][:1] == ["Inbox/alpha 日本 #1.md"]  # the rarer word
    assert among == without  # same notes, same order, same scores


def test_over_every_note_the_ranking_is_fts5_s_own_bm25(tmp_path: Path) -> None:
    vault = tmp_path / "all"
    for path, text in {**RANKED_NOTES, **UNREACHABLE}.items():
        write(vault, path, text)
    location = tmp_path / "all.sqlite3"
    with VaultIndex(vault, location=location) as index:
        index.sync()
        ranked = index.ranked_by_words("alpha beta", _everything, 10)
    conn = sqlite3.connect(location)
    try:
        fts5 = conn.execute(
            "SELECT n.path, bm25(notes_words) FROM notes_words JOIN notes n"
            ' ON n.id = notes_words.rowid WHERE notes_words MATCH \'"alpha"* OR "beta"*\''
        ).fetchall()
    finally:
        conn.close()
    assert ranked is not None
    assert [path for path, _ in sorted(ranked)] == [path for path, _ in sorted(fts5)]
    # each note's score, to rounding
    assert [s for _, s in sorted(ranked)] == pytest.approx([s for _, s in sorted(fts5)])
    assert [score for _, score in ranked] == sorted(score for _, score in ranked)
