"""vaultfs: every write stays in the vault and keeps the index in step."""

from __future__ import annotations

import errno
import os
import re
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from vaultgate.engine import vaultfs
from vaultgate.engine.errors import ChangedOnDisk, DestinationExists, DiskFailed, PathRefused
from vaultgate.engine.vault import Vault
from vaultgate.engine.walk import scan_folder


@pytest.fixture
def state(vault: Path) -> Vault:
    return Vault(vault)


@pytest.mark.parametrize(
    "path",
    ["", "../x.md", "a/../../x.md", "a//b.md", "./x.md", "a\\..\\x.md", "a/"],
)
def test_paths_that_could_leave_the_vault_are_refused(state: Vault, path: str) -> None:
    with pytest.raises(PathRefused) as caught:
        vaultfs.disk_path(state, path)
    assert caught.value.path == path


def test_writes_are_indexed_and_hidden_ones_are_not(state: Vault) -> None:
    vaultfs.write_text(state, "New/a.md", "x")
    vaultfs.write_text(state, ".obsidian/workspace.json", "{}")
    assert state.is_file("New/a.md")
    assert not state.is_file(".obsidian/workspace.json")


def test_delete_to_trash_names_free_slots(state: Vault, vault: Path) -> None:
    for _ in range(2):
        vaultfs.write_text(state, "Notes/x.md", "x")
        vaultfs.delete(state, "Notes/x.md", to_trash=True)
    assert sorted(p.name for p in (vault / ".trash" / "Notes").iterdir()) == ["x 1.md", "x.md"]
    assert not state.is_file("Notes/x.md")


def test_move_and_copy_update_the_index(state: Vault) -> None:
    vaultfs.move(state, "Welcome.md", "Archive/Welcome.md")
    vaultfs.copy(state, "Archive/Welcome.md", "Welcome.md")
    assert state.is_file("Archive/Welcome.md")
    assert state.is_file("Welcome.md")


def test_a_rewrite_is_never_served_stale(state: Vault) -> None:
    assert state.read_text("Notes/space name.md") == "Spaces in the name.\n"
    vaultfs.write_text(state, "Notes/space name.md", "Spaces in the NAME.\n")  # same size
    assert state.read_text("Notes/space name.md") == "Spaces in the NAME.\n"


# --- atomic writes --------------------------------------------------------------------------


def every_name_in(folder: Path) -> list[str]:
    """Dot-files included: a leftover temporary file must show."""
    return sorted(os.listdir(folder))


def test_a_write_leaves_only_the_note(state: Vault, vault: Path) -> None:
    vaultfs.write_text(state, "Notes/space name.md", "New text.\n")
    assert every_name_in(vault / "Notes") == ["space name.md"]
    assert (vault / "Notes" / "space name.md").read_text(encoding="utf-8") == "New text.\n"


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_a_replaced_note_keeps_its_permission_bits(state: Vault, vault: Path) -> None:
    note = vault / "Notes" / "space name.md"
    note.chmod(0o640)
    vaultfs.write_text(state, "Notes/space name.md", "x")
    vaultfs.append_text(state, "Notes/space name.md", "y")
    assert stat.S_IMODE(note.stat().st_mode) == 0o640


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_a_new_note_gets_the_mode_any_new_file_gets(state: Vault, vault: Path) -> None:
    vaultfs.write_text(state, "Notes/new.md", "x")
    (vault / "Notes" / "plain").write_text("x", encoding="utf-8")
    expected = stat.S_IMODE((vault / "Notes" / "plain").stat().st_mode)
    assert stat.S_IMODE((vault / "Notes" / "new.md").stat().st_mode) == expected


def test_the_temporary_file_is_a_dot_name_beside_the_note_that_the_index_ignores(
    state: Vault, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, str]] = []
    replace = os.replace

    def spying(source: str, target: str) -> None:
        seen.append((str(source), str(target)))
        state.refresh()  # Obsidian or the index rescanning mid-write
        assert all("vaultgate" not in path for path in state.files)
        replace(source, target)

    monkeypatch.setattr(os, "replace", spying)
    vaultfs.write_text(state, "Notes/café ☕ 50%.md", "x")
    [(temporary, target)] = seen
    assert Path(temporary).parent == Path(target).parent == vault / "Notes"
    assert re.fullmatch(r"\.café ☕ 50%\.md\.vaultgate-[0-9a-f]+\.tmp", Path(temporary).name)


_BIG = "A much longer text than the note had. " * 50_000  # partly written when it fails
_WRITES: dict[str, Callable[[Vault], object]] = {
    "write": lambda state: vaultfs.write_text(state, "Projects/plan.md", _BIG),
    "append": lambda state: vaultfs.append_text(state, "Projects/plan.md", _BIG),
    "conditional": lambda state: vaultfs.write_if_unchanged(
        state, "Projects/plan.md", vaultfs.read_text(state, "Projects/plan.md"), _BIG
    ),
    "copy": lambda state: vaultfs.copy(state, "Welcome.md", "Projects/copy ✓.md"),
}


@pytest.mark.parametrize(
    ("failing", "writes"),
    [
        pytest.param("fsync", ["write", "append", "conditional", "copy"], id="fsync"),
        pytest.param("replace", ["write"], id="replace"),
        pytest.param("write", ["append"], id="append's write"),
    ],
)
def test_a_failed_write_leaves_the_note_and_no_temporary_file(
    state: Vault, vault: Path, monkeypatch: pytest.MonkeyPatch, failing: str, writes: list[str]
) -> None:
    note = vault / "Projects" / "plan.md"
    before = note.read_bytes()

    def crash(*args: object) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, failing, crash)
    for name in writes:
        with pytest.raises(DiskFailed) as caught:
            _WRITES[name](state)
        assert caught.value.reason == "Input/output error"
        assert note.read_bytes() == before
        assert every_name_in(vault / "Projects") == ["plan.md"]


def test_a_note_with_the_longest_name_is_written_through_a_shorter_temporary_name(
    state: Vault, vault: Path
) -> None:
    name = "長" * 80 + ".md"  # 243 bytes: the temporary name must be cut to fit 255
    vaultfs.write_text(state, name, "first")
    vaultfs.write_text(state, name, "second")
    assert (vault / name).read_text(encoding="utf-8") == "second"
    assert [n for n in every_name_in(vault) if "vaultgate" in n] == []


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_a_note_that_is_a_symlink_stays_one(state: Vault, vault: Path) -> None:
    (vault / "Notes" / "alias.md").symlink_to("space name.md")
    state.refresh()
    vaultfs.write_text(state, "Notes/alias.md", "Through the link.\n")
    assert (vault / "Notes" / "alias.md").is_symlink()
    assert (vault / "Notes" / "space name.md").read_text(encoding="utf-8") == "Through the link.\n"


def test_a_copy_is_written_atomically_too(state: Vault, vault: Path) -> None:
    vaultfs.copy(state, "Projects/plan.md", "Notes/plan copy.md")
    assert (vault / "Notes" / "plan copy.md").read_bytes() == (
        vault / "Projects/plan.md"
    ).read_bytes()
    assert sorted(every_name_in(vault / "Notes")) == ["plan copy.md", "space name.md"]


WRITER = """
import sys
from pathlib import Path
from vaultgate.engine import vaultfs
from vaultgate.engine.vault import Vault

vault = Vault(Path(sys.argv[1]))
texts = [(letter * 1023 + "\\n") * 4096 for letter in "AB"]  # 4 MiB each
print("writing", flush=True)
n = 0
while True:
    vaultfs.write_text(vault, "Big note.md", texts[n % 2])
    n += 1
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL")
def test_a_writer_killed_mid_write_leaves_the_old_or_the_new_note_whole(vault: Path) -> None:
    texts = {(letter * 1023 + "\n") * 4096 for letter in "AB"}
    note = vault / "Big note.md"
    note.write_text("The note before any write.\n", encoding="utf-8")
    texts.add("The note before any write.\n")
    killed_mid_write = 0
    for attempt in range(40):
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(vault)], stdout=subprocess.PIPE, text=True
        )
        assert writer.stdout is not None
        assert writer.stdout.readline() == "writing\n"
        time.sleep(0.02 + 0.01 * (attempt % 7))
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        writer.stdout.close()
        assert note.read_text(encoding="utf-8") in texts
        leftovers = [name for name in every_name_in(vault) if name.endswith(".tmp")]
        if leftovers:  # the kill landed between the temporary file's creation and the rename
            killed_mid_write += 1
            for name in leftovers:
                os.unlink(vault / name)
        if killed_mid_write >= 3:
            break
    assert killed_mid_write >= 3
    assert Vault(vault).read_text("Big note.md") in texts


# --- a change computed from the note is never written over a newer note ----------------------


def edit_behind_our_back(note: Path, text: str, *, same_stat: bool = False) -> None:
    """What an editor or a sync client does; ``same_stat`` keeps size and mtime, as a write
    within one tick of a coarse clock does."""
    before = note.stat()
    note.write_text(text, encoding="utf-8", newline="")
    if same_stat:
        assert note.stat().st_size == before.st_size
        os.utime(note, ns=(before.st_atime_ns, before.st_mtime_ns))


@pytest.mark.parametrize("same_stat", [False, True], ids=["newer-mtime", "coarse-clock"])
def test_a_change_is_computed_again_when_the_note_changed_in_between(
    state: Vault, vault: Path, same_stat: bool
) -> None:
    note = vault / "Notes" / "space name.md"
    seen: list[str | None] = []

    def shout(text: str | None) -> tuple[str, int]:
        seen.append(text)
        if len(seen) == 1:
            edit_behind_our_back(note, "Spaces IN the name.\n", same_stat=same_stat)
        assert text is not None
        return text.upper(), len(seen)

    assert vaultfs.update_text(state, "Notes/space name.md", shout) == 2
    assert seen == ["Spaces in the name.\n", "Spaces IN the name.\n"]
    assert note.read_text(encoding="utf-8") == "SPACES IN THE NAME.\n"
    assert every_name_in(vault / "Notes") == ["space name.md"]


def test_a_note_that_never_stops_changing_is_left_to_its_last_writer(
    state: Vault, vault: Path
) -> None:
    note = vault / "Notes" / "space name.md"
    calls = 0

    def shout(text: str | None) -> tuple[str, None]:
        nonlocal calls
        calls += 1
        edit_behind_our_back(note, f"Edit number {calls} from elsewhere.\n")
        return (text or "").upper(), None

    with pytest.raises(ChangedOnDisk) as caught:
        vaultfs.update_text(state, "Notes/space name.md", shout)
    assert caught.value.attempts == calls == vaultfs.UPDATE_ATTEMPTS
    assert note.read_text(encoding="utf-8") == f"Edit number {calls} from elsewhere.\n"
    assert every_name_in(vault / "Notes") == ["space name.md"]


def test_a_change_is_computed_again_on_what_was_written_in_between(
    state: Vault, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = vault / "Notes" / "space name.md"
    snapshot = vaultfs._snapshot
    reads = 0

    def read_then_edited(location: Path) -> vaultfs.Snapshot:
        nonlocal reads
        reads += 1
        taken = snapshot(location)
        if reads == 1:
            edit_behind_our_back(note, "Synced from the phone.")
        return taken

    def appended(text: str | None) -> tuple[str, None]:
        text = text or ""
        return text + ("" if text.endswith("\n") else "\n") + "Appended.\n", None

    monkeypatch.setattr(vaultfs, "_snapshot", read_then_edited)
    vaultfs.update_text(state, "Notes/space name.md", appended)
    assert note.read_text(encoding="utf-8") == "Synced from the phone.\nAppended.\n"
    assert reads == 2


def test_a_note_deleted_in_between_is_created_by_an_append(state: Vault, vault: Path) -> None:
    def gone(text: str | None) -> tuple[str, str | None]:
        if text is not None:
            (vault / "Welcome.md").unlink()
        return (text or "") + "x", text

    assert vaultfs.update_text(state, "Welcome.md", gone) is None
    assert (vault / "Welcome.md").read_text(encoding="utf-8") == "x"


def test_an_unchanged_text_is_not_written(state: Vault, vault: Path) -> None:
    note = vault / "Notes" / "space name.md"
    os.utime(note, ns=(0, 1_000_000_000))
    assert vaultfs.update_text(state, "Notes/space name.md", lambda text: (text or "", "same"))
    assert note.stat().st_mtime_ns == 1_000_000_000


def test_old_temporary_files_of_killed_writes_are_swept_and_nothing_else(tmp_path: Path) -> None:
    """Only our own temporary names, only old ones (a write in progress elsewhere is young),
    and never inside hidden folders; notes, attachments and look-alikes stay."""
    old = time.time() - 2 * vaultfs.LEFT_BEHIND_AGE_SECONDS
    (tmp_path / "Notes #1 100%").mkdir()
    (tmp_path / ".obsidian").mkdir()
    left = tmp_path / "Notes #1 100%" / ".日本 🚀.md.vaultgate-0a1b2c3d.tmp"
    young = tmp_path / ".note.md.vaultgate-deadbeef.tmp"
    hidden = tmp_path / ".obsidian" / ".app.json.vaultgate-0a1b2c3d.tmp"
    lookalikes = [
        tmp_path / "note.md.vaultgate-0a1b2c3d.tmp",  # not a dot-name
        tmp_path / ".note.md.vaultgate-0A1B2C3D.tmp",  # not our hex
        tmp_path / ".note.md.tmp",
        tmp_path / "Notes #1 100%" / "日本 🚀.md",
    ]
    for path in (left, young, hidden, *lookalikes):
        path.write_text("x", encoding="utf-8")
    for path in (left, hidden, *lookalikes):
        os.utime(path, (old, old))

    removed = vaultfs.sweep_temporaries(tmp_path, scan_folder(str(tmp_path)).temporaries)

    assert removed == [left]
    assert not left.exists()
    assert all(path.exists() for path in (young, hidden, *lookalikes))


# --- changes made elsewhere at the same moment (issue 36) ------------------------------------


def test_an_append_keeps_what_a_program_holding_the_note_open_writes_after_it(
    state: Vault, vault: Path
) -> None:
    note = vault / "Notes" / "space name.md"
    with open(note, "a", encoding="utf-8") as other:  # a log writer, opened before
        vaultfs.append_text(state, "Notes/space name.md", "vaultgate 🙂\n")
        other.write("written after, by the other program 日本\n")
    text = note.read_text(encoding="utf-8")
    assert "vaultgate 🙂\n" in text
    assert text.endswith("written after, by the other program 日本\n")


def test_an_append_to_a_note_without_a_final_newline_starts_a_line(
    state: Vault, vault: Path
) -> None:
    note = vault / "Notes" / "space name.md"
    note.write_bytes(b"no newline \xf0\x9f\x99\x82")
    vaultfs.append_text(state, "Notes/space name.md", "next")
    assert note.read_bytes() == b"no newline \xf0\x9f\x99\x82\nnext"


def test_a_change_carries_over_what_is_written_late_into_the_replaced_file(
    state: Vault, vault: Path
) -> None:
    note = vault / "Notes" / "space name.md"

    def heading(text: str | None) -> tuple[str, None]:
        return "# Heading 🙂\n" + (text or ""), None

    with open(note, "a", encoding="utf-8") as other:  # opened before vaultgate's swap
        vaultfs.update_text(state, "Notes/space name.md", heading)
        other.write("late line 100% #x\n")
    deadline = time.monotonic() + 10
    while "late line" not in note.read_text(encoding="utf-8") and time.monotonic() < deadline:
        time.sleep(0.01)
    text = note.read_text(encoding="utf-8")
    assert text.startswith("# Heading 🙂\n")
    assert text.endswith("late line 100% #x\n")


def test_an_editor_saving_just_after_the_check_is_not_overwritten(
    state: Vault, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = vault / "Notes" / "space name.md"
    unchanged = vaultfs._unchanged
    saves = 0

    def then_an_editor_saves(location: Path, snapshot: vaultfs.Snapshot) -> bool:
        nonlocal saves
        answer = unchanged(location, snapshot)
        if saves == 0:  # the save lands after the check, before vaultgate's rename
            saves += 1
            new = note.with_name(".editor-save.tmp")
            new.write_bytes(note.read_bytes() + b"typed in the editor \xe7\xbc\x96\r\n")
            os.replace(new, note)
        return answer

    def heading(text: str | None) -> tuple[str, None]:
        return "# Heading\n" + (text or ""), None

    monkeypatch.setattr(vaultfs, "_unchanged", then_an_editor_saves)
    vaultfs.update_text(state, "Notes/space name.md", heading)
    text = note.read_bytes().decode("utf-8")
    assert text.startswith("# Heading\n")
    assert "typed in the editor 编\r\n" in text


def test_a_note_that_must_not_exist_is_never_created_over_one_that_appeared(
    state: Vault, vault: Path
) -> None:
    appeared = vault / "Notes" / "new #1 100%.md"
    appeared.write_text("made by another program a moment ago\n", encoding="utf-8")
    with pytest.raises(DestinationExists):
        vaultfs.create_bytes(state, "Notes/new #1 100%.md", b"vaultgate's")
    assert vaultfs.write_if_unchanged(state, "Notes/new #1 100%.md", None, "x") is False
    assert appeared.read_text(encoding="utf-8") == "made by another program a moment ago\n"
    assert every_name_in(vault / "Notes") == sorted(every_name_in(vault / "Notes"))


def test_a_conditional_write_keeps_lines_appended_since_the_read(state: Vault, vault: Path) -> None:
    note = vault / "Notes" / "space name.md"
    note.write_text("---\r\nk: 1\r\n---\r\nbody\n", encoding="utf-8", newline="")
    read = vaultfs.read_text(state, "Notes/space name.md")
    with open(note, "a", encoding="utf-8") as other:
        other.write("appended meanwhile 🙂\n")
    edited = read.replace("k: 1", "k: 2")

    assert vaultfs.write_if_unchanged(state, "Notes/space name.md", read, edited)
    assert note.read_bytes().decode("utf-8") == edited + "appended meanwhile 🙂\n"

    assert not vaultfs.write_if_unchanged(state, "Notes/space name.md", read, "clobber")


def test_a_version_set_aside_keeps_its_bytes_under_a_free_conflicted_copy_name(
    tmp_path: Path,
) -> None:
    """A version that lost a race of three writers is renamed beside the note, never over a
    file; a name near the file system's limit keeps the copy's mark."""
    note = tmp_path / "Inbox 日本" / "plan 🚀 #1 50%.md"
    note.parent.mkdir()
    note.write_bytes(b"newest\r\n")
    first, second = (tmp_path / "Inbox 日本" / f".lost-{n}" for n in (1, 2))
    first.write_bytes("ext line 🙂\r\n".encode())
    second.write_bytes(b"other\n")

    kept = [vaultfs._set_aside(first, note), vaultfs._set_aside(second, note)]

    assert [path.read_bytes() for path in kept] == ["ext line 🙂\r\n".encode(), b"other\n"]
    assert kept[0] != kept[1]
    assert all(path.name.startswith("plan 🚀 #1 50% (conflicted copy ") for path in kept)
    assert note.read_bytes() == b"newest\r\n"
    assert not first.exists()
    assert not second.exists()

    long_note = tmp_path / ("長" * 80 + ".md")  # 243 bytes: no room for the mark as it is
    long_note.write_bytes(b"x")
    version = tmp_path / ".lost-3"
    version.write_bytes(b"y")
    copy = vaultfs._set_aside(version, long_note)
    assert len(copy.name.encode()) <= 255
    assert "(conflicted copy " in copy.name
    assert copy.read_bytes() == b"y"
