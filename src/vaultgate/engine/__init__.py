"""The vault engine: a folder of notes with the Obsidian Local REST API's semantics.

No HTTP here (no Starlette, no status codes): the emulator (``vaultgate.emulator``) is one
face over this package, parsing requests and turning results and errors into the plugin's
answers; a later folder backend calls the same functions directly. Every function takes the
:class:`~vaultgate.engine.vault.Vault` first and, where versions differ, the plugin's
:class:`~vaultgate.engine.behaviour.Behaviour`.

- ``vault.py``: the vault and its index (files without dot-paths, note texts cached by mtime
  and size, metadata, links and backlinks).
- ``vaultfs.py``: every change to the folder (paths checked again, atomic writes, ``.trash/``;
  ``update_text``: a change computed from a note is never written over a newer copy).
- ``relink.py``: the links that follow a moved note (``plan_relink``, ``apply_relink``).
- ``index/``: the vault index, a SQLite file that narrows simple searches (folder backend).
- ``writes.py``: whole-file writes, appends, deletes, moves and copies with the plugin's rules.
- ``listing.py``: ``list_folder``, one level as the plugin lists it.
- ``representations.py``: ``note_json`` and ``document_map``; ``targets.py``: ``read_target``
  (a heading, block or frontmatter field).
- ``simple_search.py``, ``search.py`` (JsonLogic over every note, tags), ``jsonlogic.py``,
  ``dql.py`` (3.x).
- ``patch.py``: ``patch_v1`` and ``patch_v2``, a note patched and written back
  (``vaultgate.patching`` for 1.x; ``instruction.py`` and ``patch_v2.py`` for 2.x).
- ``errors.py``: the engine's failures, which each face translates once.

Importing the package imports none of its modules (a test checks none of them loads HTTP).
"""
