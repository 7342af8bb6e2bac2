"""Renames that never clobber: refused onto a taken name, swapped, and the fallback."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgate.engine import renames


@pytest.fixture(params=["renameat2", "fallback"])
def where(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "fallback":  # a system without renameat2
        monkeypatch.setattr(renames, "_renameat2", lambda: None)
    return str(request.param)


def test_a_rename_never_replaces_a_taken_name(tmp_path: Path, where: str) -> None:
    source, taken = tmp_path / "new #1 🙂.md", tmp_path / "taken 100%.md"
    source.write_text("vaultgate's", encoding="utf-8")
    taken.write_text("another program's 日本\r\n", encoding="utf-8", newline="")

    with pytest.raises(FileExistsError):
        renames.rename_noreplace(source, taken)

    assert taken.read_bytes() == "another program's 日本\r\n".encode()
    assert source.read_text(encoding="utf-8") == "vaultgate's"
    renames.rename_noreplace(source, tmp_path / "free.md")
    assert (tmp_path / "free.md").read_text(encoding="utf-8") == "vaultgate's"


def test_an_exchange_swaps_two_names_or_says_it_cannot(tmp_path: Path, where: str) -> None:
    first, second = tmp_path / "a 🙂.md", tmp_path / "b #2.md"
    first.write_text("a", encoding="utf-8")
    second.write_text("b", encoding="utf-8")

    swapped = renames.exchange(first, second)

    assert swapped is (where == "renameat2" and renames._renameat2() is not None)
    expected = ("b", "a") if swapped else ("a", "b")
    assert (first.read_text("utf-8"), second.read_text("utf-8")) == expected
