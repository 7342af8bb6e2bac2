"""The vault folder behind the plugin, found without being told (issue 25).

With no ``VAULTGATE_VAULT``, ``VAULTGATE_BACKEND=auto`` (the default) and the plugin on this
machine, vaultgate reads Obsidian's own vault list (``vault_list``), asks the plugin whether
it serves one of those folders (``verify``: its root listing and a few notes' size and mtime
must match the folder's), and, for exactly one match, serves the vault from that folder as
``VAULTGATE_VAULT`` would (``finder``). Until then, and whenever the plugin stops agreeing
with the folder, every call goes to the plugin (``switching``).
"""
