"""Search by meaning, offline: the optional ``semantic`` extra.

Installed with ``pip install "vaultgate[semantic]"``.


- ``embedder.py``: :func:`load_embedder`, the model shipped in the ``wordllama`` wheel (static
  token vectors and their tokenizer, read from the installed package with no network), and
  :func:`why_unavailable` when the extra is missing.
- ``ranking.py``: pure: cosine top-k over a matrix, reciprocal rank fusion.

Nothing here imports numpy at module level: the package imports, and says what is missing,
without the extra.
"""
