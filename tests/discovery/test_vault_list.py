"""Obsidian's vault list read from disk: every odd entry skipped with a reason, never raised."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from vaultgate.discovery.vault_list import read_vault_list, vault_list_places


def write(place: Path, vaults: object) -> Path:
    place.write_text(json.dumps({"vaults": vaults}), encoding="utf-8")
    return place


def test_open_vaults_come_first_then_the_latest_used(tmp_path: Path) -> None:
    old, new, opened = (tmp_path / name for name in ("old", "new 🆕", "opened #%"))
    for folder in (old, new, opened):
        folder.mkdir()
    listed = read_vault_list(
        write(
            tmp_path / "obsidian.json",
            {
                "a": {"path": str(old), "ts": 1},
                "b": {"path": str(new), "ts": 3},
                "c": {"path": str(opened), "ts": 2, "open": True},
            },
        ),
        {},
    )
    assert [c.folder for c in listed.candidates] == [opened, new, old]
    assert listed.problem is None


def test_entries_that_name_no_usable_folder_are_skipped_with_a_reason(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    a_file = tmp_path / "note.md"
    a_file.write_text("x", encoding="utf-8")
    link = tmp_path / "link to vault"
    link.symlink_to(vault)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "gone")
    listed = read_vault_list(
        write(
            tmp_path / "obsidian.json",
            {
                "file": {"path": str(a_file)},
                "missing": {"path": str(tmp_path / "missing")},
                "relative": {"path": "vault"},
                "number": {"path": 5},
                "list": [],
                "dangling": {"path": str(dangling)},
                "link": {"path": str(link), "ts": "soon"},
                "real": {"path": str(vault), "open": "yes"},
            },
        ),
        {},
    )
    assert [c.folder for c in listed.candidates] == [vault]  # the link is the same folder
    reasons = " | ".join(listed.skipped)
    assert "is a file" in reasons
    assert "missing does not exist" in reasons
    assert "'vault' is not an absolute path" in reasons
    assert reasons.count('no "path" text') == 2
    assert "dangling does not exist" in reasons


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        pytest.param(b"{", "is not JSON", id="not-json"),
        pytest.param(b"\xff\xfe{}", "is not JSON", id="not-utf8"),
        pytest.param(b'{"vaults": null}', 'holds no "vaults" object', id="null"),
        pytest.param(b'"vaults"', 'holds no "vaults" object', id="a-string"),
        pytest.param(b"[" * 6_000, "is not JSON", id="nested-lists-6kb"),
        pytest.param(b'{"vaults": ' * 3_000 + b"{}" + b"}" * 3_000, "is not JSON", id="nested"),
        pytest.param(
            b'{"vaults": {"a": {"path": ' + b"[" * 50_000 + b"]" * 50_000 + b"}}}",
            "is not JSON",
            id="nested-in-an-entry",
        ),
        pytest.param(b" " * (2 << 20) + b"{}", "over 1,048,576 bytes", id="too-large"),
        pytest.param(
            json.dumps({"vaults": {}}).encode("utf-16"), "is not JSON", id="utf-16-encoded"
        ),
        pytest.param(b"\x00" * 64, "is not JSON", id="nul-bytes"),
        pytest.param(b"", "is not JSON", id="empty"),
    ],
)
def test_a_malformed_list_is_a_problem_not_an_exception(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    place = tmp_path / "obsidian.json"
    place.write_bytes(content)
    listed = read_vault_list(place, {})
    assert listed.candidates == ()
    assert listed.problem is not None
    assert problem in listed.problem


def test_odd_values_in_entries_are_skipped_or_ignored(tmp_path: Path) -> None:
    vault = tmp_path / "vault 📓 #1 %"
    vault.mkdir()
    place = tmp_path / "obsidian.json"
    path = json.dumps(str(vault))
    huge = "1" + "0" * 400  # an integer JSON allows and no float holds
    entries = (
        f'"huge-ts": {{"path": {path}, "ts": {huge}, "open": true}}, '
        f'"nan": {{"path": {path}, "ts": NaN}}, '
        '"surrogate": {"path": "/tmp/\\ud800"}'
    )
    place.write_text(f'{{"vaults": {{{entries}}}}}', encoding="utf-8")
    listed = read_vault_list(place, {})
    assert listed.problem is None
    assert [c.folder for c in listed.candidates] == [vault]
    assert listed.candidates[0].ts == 0.0
    assert "no name the disk can hold" in " ".join(listed.skipped)


def test_a_byte_order_mark_is_read_past(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    place = tmp_path / "obsidian.json"
    place.write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"vaults": {"a": {"path": str(vault)}}}).encode()
    )
    assert [c.folder for c in read_vault_list(place, {}).candidates] == [vault]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_a_fifo_in_the_lists_place_is_not_waited_on(tmp_path: Path) -> None:
    place = tmp_path / "obsidian.json"
    os.mkfifo(place)  # nobody writes: a read would block for ever
    listed = read_vault_list(place, {})
    assert listed.problem is not None
    assert "not a regular file" in listed.problem


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads any file; POSIX modes"
)
def test_an_unreadable_list_is_a_problem(tmp_path: Path) -> None:
    place = write(tmp_path / "obsidian.json", {})
    place.chmod(0)
    try:
        listed = read_vault_list(place, {})
    finally:
        place.chmod(0o600)
    assert listed.problem is not None
    assert "cannot be read" in listed.problem


def test_no_list_names_the_places_looked_in(tmp_path: Path) -> None:
    listed = read_vault_list(tmp_path / "none.json", {})
    assert listed.source is None
    assert listed.problem == f"no vault list of Obsidian's at {tmp_path / 'none.json'}"


@pytest.mark.parametrize(
    ("platform", "env", "first"),
    [
        pytest.param("darwin", {}, "home/Library/Application Support/obsidian", id="macos"),
        pytest.param("win32", {"APPDATA": "/roaming"}, "/roaming/obsidian", id="windows"),
        pytest.param("linux", {}, "home/.config/obsidian", id="linux"),
        pytest.param("linux", {"XDG_CONFIG_HOME": "/xdg"}, "/xdg/obsidian", id="linux-xdg"),
    ],
)
def test_obsidians_own_places(platform: str, env: dict[str, str], first: str) -> None:
    places = vault_list_places(env, platform=platform, home=Path("home"))
    assert places[0] == Path(first) / "obsidian.json"


def test_linux_also_looks_where_flatpak_and_snap_keep_it() -> None:
    places = [p.as_posix() for p in vault_list_places({}, platform="linux", home=Path("/h"))]
    assert places[1:] == [
        "/h/.var/app/md.obsidian.Obsidian/config/obsidian/obsidian.json",
        "/h/snap/obsidian/current/.config/obsidian/obsidian.json",
    ]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG_CONFIG_HOME is Linux's")
def test_without_an_override_obsidians_own_place_is_read(tmp_path: Path) -> None:
    config = tmp_path / "xdg" / "obsidian"
    config.mkdir(parents=True)
    vault = tmp_path / "vault"
    vault.mkdir()
    write(config / "obsidian.json", {"a": {"path": str(vault)}})
    listed = read_vault_list(None, {"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert listed.source == config / "obsidian.json"
    assert [c.folder for c in listed.candidates] == [vault]
