"""The vault index: a SQLite file per vault that makes a folder vault's searches fast.

It holds each markdown note's path, ``(mtime_ns, size)``, frontmatter, tags, headings and
links, and an FTS5 trigram table over its searched text (``basename + "\\n\\n" + content``),
so a simple search looks only at the notes that may match instead of every note. It never
answers a search itself: it narrows, and hands over the folded text it holds of each
candidate (``texts``), which the folder's search counts matches in while the note's
file still has the stat that text was read at; the matches themselves are built by the
engine's exact matcher (``simple_search.py``), so the answers are the full scan's.

- ``vault_index.py``: :class:`VaultIndex`, its sync with the folder, refreshes and reads.
- ``watcher.py``: ``watch``, the task that keeps an index current while the server runs.
- ``generation.py``: the number each committed change moves, which kept answers are keyed to.
- ``database.py``: the file (where, schema, replacing an unusable one); ``scan.py``: the notes
  on disk; ``records.py``: one note read and parsed.
- ``fold.py`` and ``query.py``: the case fold that lets trigrams find whatever
  ``re.IGNORECASE`` finds, and the FTS5 query built from a simple search's terms.

Only this package and ``vaultgate.memory`` speak SQL.
"""

from vaultgate.engine.index.records import IndexedNote
from vaultgate.engine.index.vault_index import IndexedText, Progress, SyncReport, VaultIndex

__all__ = ["IndexedNote", "IndexedText", "Progress", "SyncReport", "VaultIndex"]
