"""The vault engine: a folder of notes served with the Obsidian Local REST API's semantics.

No HTTP here (no Starlette, no status codes): the emulator (``vaultgate.emulator``) is one
face over this package, parsing requests and turning results and errors into the plugin's
answers; a later folder backend calls the same functions directly.

``vault.py`` holds the vault and its index (files, note texts, metadata, links), and
``vaultfs.py`` every change to the folder (paths checked again, ``.trash/``);
``behaviour.py`` says what each plugin version does; ``listing.py`` lists folders;
``representations.py`` makes note JSON and document maps; ``targets.py`` reads a heading,
block or frontmatter field; ``simple_search.py``, ``jsonlogic.py`` and ``dql.py`` are the
three searches; ``instruction.py`` and ``patch_v2.py`` the 5.x PATCH (the 1.x one is
``vaultgate.patching``). Failures are the small tree in ``errors.py``.
"""
