"""The vault engine: a folder of notes served with the Obsidian Local REST API's semantics.

No HTTP here (no Starlette, no status codes): the emulator (``vaultgate.emulator``) is one
face over this package, parsing requests and turning results and errors into the plugin's
answers; a later folder backend calls the same functions directly.

``vault.py`` holds the vault and its index (files, note texts, metadata, links);
``behaviour.py`` what each plugin version does; ``listing.py`` folder listings;
``simple_search.py``, ``jsonlogic.py`` and ``dql.py`` the three searches;
``instruction.py`` the 5.x PATCH instruction.
"""
