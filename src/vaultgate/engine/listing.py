"""Folder listings as the plugin makes them, at the plugin's cost: passes over the whole index.

The plugin keeps no folder tree. To list a folder it asks Obsidian for every file
(``vault.getFiles()``, a new array each time), keeps the paths under the folder, cuts each to
its first segment below it (a folder keeps its '/'), drops duplicates and sorts. From 3.6.0 a
GET that is not a file first asks whether any file lies below the path at all, with a second
``getFiles()``. So one listing costs the same for a folder of one note as for the root, in
proportion to the whole vault: about 9 ms on 20,000 notes in Obsidian, and a walk of 2,000
folders 18-21 s, since the plugin answers one request at a time. The engine does the same
work per request, so benchmarks and tests meet the cost a client meets in Obsidian.
"""

from __future__ import annotations

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.vault import Vault, js_sort_key


def list_folder(vault: Vault, behaviour: Behaviour, path: str) -> list[str] | None:
    """What ``GET /vault/<path>/`` lists (``path`` without its final '/', '' for the root).

    From 3.6.0: the names one level below a folder that holds a file somewhere below it;
    the root lists even when empty from 3.6.1. None when the plugin lists nothing there, so
    the path may still name a note and a target. Before 3.6.0: None when nothing lies
    below it, the root included.
    """
    prefix = f"{path}/" if path else ""
    if not behaviour.subdocument_paths:
        return list_directory(vault, prefix) or None
    if has_files_below(vault, prefix) or not path:
        entries = list_directory(vault, prefix)
        if entries or (path == "" and behaviour.empty_root_lists):
            return entries
    return None


def has_files_below(vault: Vault, prefix: str) -> bool:
    """Whether any file's path starts with ``prefix`` ('' or 'a/b/'): the 3.6.0+ check."""
    return any(file.path.startswith(prefix) for file in vault.get_files())


def list_directory(vault: Vault, prefix: str) -> list[str]:
    """The names one level below ``prefix`` ('' or 'a/b/'), folders ending in '/', sorted by
    UTF-16 code units as JavaScript sorts; [] when no file lies below it."""
    paths = [file.path for file in vault.get_files()]
    start = len(prefix)
    names = {_first_segment(path, start) for path in paths if path.startswith(prefix)}
    return sorted(names, key=js_sort_key)


def _first_segment(path: str, start: int) -> str:
    """``path`` from ``start`` up to and including the next '/', or to its end."""
    slash = path.find("/", start)
    return path[start:] if slash < 0 else path[start : slash + 1]
