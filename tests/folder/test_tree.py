"""The folder tree answers each folder's listing as the engine's pass over every file does."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.listing import list_folder
from vaultgate.engine.vault import Vault
from vaultgate.folder.backend import FOLDER_SEMANTICS
from vaultgate.folder.tree import FolderTree

BEHAVIOUR = Behaviour.for_version(str(FOLDER_SEMANTICS))

FILES = [
    "Welcome.md",
    "a/b/c/deep 😀.md",
    "a/b/sibling #1.md",
    "a/z.md",
    "a/B/upper.md",
    "日本/メモ 100%.md",
    "😀 emoji folder/𝒳 astral.md",
    "😀 emoji folder/ﬀ bmp.md",
    "Attachments/pic.png",
    "only/deep/down/here/x.canvas",
]


def _assert_same_as_the_engine(root: Path, files: list[str]) -> None:
    for path in files:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x", encoding="utf-8")
    vault = Vault(root)
    tree = FolderTree(vault.files)
    folders = {""} | {
        path[: i + 1] for path in vault.files for i in range(len(path)) if path[i] == "/"
    }
    for folder in sorted(folders):
        assert tree.listing(folder) == list_folder(vault, BEHAVIOUR, folder.rstrip("/")), folder
        assert tree.files_below(folder) == [p for p in vault.files if p.startswith(folder)]
    assert tree.listing("missing/") is None


def test_every_folder_lists_as_the_engine_lists_it(tmp_path: Path) -> None:
    _assert_same_as_the_engine(tmp_path, FILES)


_NAMES = st.text(alphabet="aAbZ_ #%日😀𝒳ﬀ", min_size=1, max_size=4).filter(
    lambda name: not name.startswith(".") and name.strip() == name
)


@settings(max_examples=60, deadline=None)
@given(paths=st.lists(st.lists(_NAMES, min_size=1, max_size=4), min_size=1, max_size=12))
def test_random_trees_list_as_the_engine_lists_them(
    tmp_path_factory: pytest.TempPathFactory, paths: list[list[str]]
) -> None:
    root = tmp_path_factory.mktemp("vault")
    files = sorted({"/".join(parts) + ".md" for parts in paths})
    # a name cannot be both a file's folder and a file
    folders = {f.rsplit("/", 1)[0] for f in files if "/" in f}
    files = [f for f in files if f.removesuffix(".md") not in folders]
    _assert_same_as_the_engine(root, files)
