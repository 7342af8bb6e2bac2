"""The vault's folders one level at a time, built once per change to the file list.

The plugin lists a folder by passing over every file of the vault (``engine/listing.py``);
served from the folder, a listing need not pay that: the tree is built in one pass over
the file list and answers each folder from a dict. It answers what the plugin's listing
(3.6.1 and later) answers: names one level down, folders with a final '/', sorted as
JavaScript sorts; nothing for a folder with no file below it, except the root.
"""

from __future__ import annotations

from collections.abc import Sequence

from vaultgate.engine.vault import js_sort_key


class FolderTree:
    def __init__(self, files: Sequence[str]) -> None:
        self.files = files  # the list it was built from (the vault replaces it on a change)
        children: dict[str, set[str]] = {"": set()}
        for path in files:
            cut = path.rfind("/")
            folder = path[: cut + 1]
            names = children.get(folder)
            if names is None:  # a new folder: name it in its parent, and so on up
                names = children[folder] = set()
                child = folder
                while child:
                    up = child.rfind("/", 0, len(child) - 1)
                    parent, entry = child[: up + 1], child[up + 1 :]
                    siblings = children.get(parent)
                    if siblings is not None:
                        siblings.add(entry)
                        break
                    children[parent] = {entry}
                    child = parent
            names.add(path[cut + 1 :])
        self._children = {folder: _js_sorted(names) for folder, names in children.items()}

    def listing(self, folder: str) -> list[str] | None:
        """What listing ``folder`` ('' or 'a/b/') shows, or None when there is no such folder."""
        names = self._children.get(folder)
        return list(names) if names is not None else None

    def files_below(self, folder: str) -> list[str] | None:
        """Every file below ``folder``, or None when there is no such folder."""
        if folder not in self._children:
            return None
        return [path for path in self.files if path.startswith(folder)]


def _js_sorted(names: set[str]) -> list[str]:
    """JavaScript's order: by UTF-16 code units, which is code-point order for ASCII."""
    if all(name.isascii() for name in names):
        return sorted(names)
    return sorted(names, key=js_sort_key)
