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
            folder = ""
            *parents, name = path.split("/")
            for part in parents:
                children.setdefault(folder, set()).add(f"{part}/")
                folder = f"{folder}{part}/"
            children.setdefault(folder, set()).add(name)
        self._children = {
            folder: sorted(names, key=js_sort_key) for folder, names in children.items()
        }

    def listing(self, folder: str) -> list[str] | None:
        """What listing ``folder`` ('' or 'a/b/') shows, or None when there is no such folder."""
        names = self._children.get(folder)
        return list(names) if names is not None else None

    def files_below(self, folder: str) -> list[str] | None:
        """Every file below ``folder``, or None when there is no such folder."""
        if folder not in self._children:
            return None
        return [path for path in self.files if path.startswith(folder)]
