"""Spec-driven-development (SDD) context: artifacts kept as notes in the vault.

The layout, under ``VAULTGATE_SDD_FOLDER`` (default ``sdd/``)::

    sdd/<project>/changes/<slug>/proposal.md
                                 spec.md
                                 design.md
                                 tasks.md
                                 verify.md

- ``layout``: stage names and the listing → inventory parse (pure).
- ``models``: the values (changes, artifacts, the vault part of an answer).
- ``reader``: the inventory and the artifacts, read through the guarded Obsidian client.
- ``matching``: which change slugs match a change description (pure).
- ``render``: what the model reads at each detail level, within a character budget (pure).
- ``context``: the two answers, sdd_get_context and sdd_context_check, vault and memory parts.
"""
