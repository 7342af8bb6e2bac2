"""Search by meaning over a vault folder: note vectors kept in the index and in memory.

:class:`NoteVectors` holds every note's vector in one float32 matrix in memory (20,000 notes of
256 values: 20 MB), kept equal to the index's ``note_vectors`` table: it is the index's
``TextMirror`` (a note stored again loses its vector, one dropped loses it too), and gains a
vector only through ``VaultIndex.store_vectors``, under the index's lock.

:class:`MeaningIndex` fills both in the background once the index's first sync is done: each
note without a vector is read (its name and its text without frontmatter), embedded in batches
of BATCH in a worker thread (the event loop is never held) and stored. A note the watcher or a
write of vaultgate's changed is embedded again within POLL_SECONDS, or at once by the next
search (:meth:`MeaningIndex.catch_up`). ``done`` and ``total`` tell how far a build is.

:meth:`MeaningIndex.rank` gives the two rankings a hybrid search fuses: by words (the index's
bm25 over the query's words, OR-ed) and by meaning (cosine with every note). Both skip the
notes the caller does not want before ranking, so a hidden note never moves a visible one.
"""

from __future__ import annotations

import logging
import os
import posixpath
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from vaultgate import markdown
from vaultgate.engine.index import IndexedText, VaultIndex
from vaultgate.folder.indexing import KeptIndex
from vaultgate.semantic.embedder import Embedder

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

log = logging.getLogger(__name__)

BATCH = 256  # notes embedded and stored at once
POLL_SECONDS = 0.5  # how soon a changed note is embedded again when no search asks
CATCH_UP_NOTES = 200  # a search embeds up to this many waiting notes itself, else answers now
_GROWTH = 1_024  # rows added to the matrix at a time


class NoteVectors:
    """Every embedded note's vector, by path, in one float32 matrix. Thread-safe."""

    def __init__(self, dimensions: int) -> None:
        import numpy as np

        self.dimensions = dimensions
        # float32, though stored as float16: numpy has no fast float16 product (20,000 notes:
        # 33 ms a query converting, 2 ms as float32), and 20 MB is within the budget
        self._matrix = np.zeros((0, dimensions), dtype=np.float32)
        self._paths: list[str | None] = []  # by row; None for a free row (its vector zero)
        self._rows: dict[str, int] = {}
        self._free: list[int] = []
        self._lock = threading.Lock()
        self.changed = threading.Event()  # set when a note waits to be embedded (again)

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def capacity(self) -> int:
        """Rows the matrix has room for before it must grow."""
        return int(self._matrix.shape[0])

    def reserve(self, rows: int) -> None:
        """Room for ``rows`` vectors in all, made at once. Growing copies the matrix, and the
        old and the new copy are held together meanwhile: a first build of 20,000 notes grew
        it twenty times, the last copy holding 40 MB at once."""
        with self._lock:
            self._grow(rows - self._matrix.shape[0])

    # --- the index's TextMirror ---------------------------------------------------------------

    def stored(self, texts: Sequence[IndexedText]) -> None:
        """The index read these notes again: their vectors are gone with their old rows."""
        self._drop([text.path for text in texts])
        if texts:
            self.changed.set()

    def dropped(self, paths: Sequence[str]) -> None:
        self._drop(paths)

    # --- filled from the index ----------------------------------------------------------------

    def put(self, vectors: list[tuple[str, bytes]]) -> None:
        """Vectors as the index stores them (float16 bytes), by path."""
        import numpy as np

        with self._lock:
            for path, blob in vectors:
                vector = np.frombuffer(blob, dtype=np.float16)
                if vector.shape != (self.dimensions,):
                    continue  # another model's, about to be deleted
                row = self._rows.get(path)
                if row is None:
                    row = self._free_row()
                    self._rows[path] = row
                    self._paths[row] = path
                self._matrix[row] = vector

    def count(self, wanted: Callable[[str], bool]) -> int:
        """How many notes ``wanted`` accepts have a vector."""
        with self._lock:
            paths = list(self._rows)
        return sum(1 for path in paths if wanted(path))

    def ranked(
        self, query: npt.NDArray[np.float32], wanted: Callable[[str], bool], limit: int
    ) -> list[tuple[str, float]]:
        """The first ``limit`` notes ``wanted`` accepts, most similar first: ``(path,
        cosine)``. Every note is scored (one product with the matrix), then the wanted ones
        taken in order."""
        import numpy as np

        with self._lock:
            scores = self._matrix @ query
            paths = list(self._paths)
        # the best few rows first (a partition, not a sort of every row); all of them only
        # when the caller refuses so many that those run out
        rows = len(paths)
        first = min(rows, 4 * limit + 64)
        best = np.argpartition(-scores, first - 1)[:first] if 0 < first < rows else None
        for order in (best, None):
            candidates = np.arange(rows) if order is None else order
            ranked = candidates[np.lexsort((candidates, -scores[candidates]))]
            found: list[tuple[str, float]] = []
            for row in ranked:
                path = paths[row]
                if path is not None and wanted(path):
                    found.append((path, float(scores[row])))
                    if len(found) >= limit:
                        return found
            if order is None:
                break
        return found

    def _drop(self, paths: Sequence[str]) -> None:
        with self._lock:
            for path in paths:
                row = self._rows.pop(path, None)
                if row is not None:
                    self._matrix[row] = 0
                    self._paths[row] = None
                    self._free.append(row)

    def _free_row(self) -> int:
        if not self._free:
            self._grow(max(_GROWTH, self._matrix.shape[0] // 8))  # few copies as it grows
        return self._free.pop()

    def _grow(self, extra: int) -> None:
        """``extra`` more rows, all free (lowest handed out first); none when not positive."""
        import numpy as np

        if extra <= 0:
            return
        start = self._matrix.shape[0]
        grown = np.zeros((start + extra, self.dimensions), dtype=np.float32)
        grown[:start] = self._matrix
        self._matrix = grown
        self._paths.extend([None] * extra)
        self._free[:0] = range(start + extra - 1, start - 1, -1)  # below the rows freed before


@dataclass(frozen=True, slots=True)
class Rankings:
    """What a local search by words and by meaning found, each best first."""

    words: list[tuple[str, float]]  # (path, bm25: lower is better)
    meaning: list[tuple[str, float]]  # (path, cosine)
    embedded: int  # notes with a vector
    notes: int  # notes in the index


class MeaningIndex:
    """The folder's note vectors while the server runs (``keep`` is the background task)."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.vectors = NoteVectors(embedder.dimensions)
        self.building = False  # the first fill runs: done of total notes embedded
        self.done, self.total = 0, 0
        self.loaded = False  # the stored vectors are in memory
        self._step = threading.Lock()  # one batch at a time, the background's or a search's

    async def keep_running(self, kept: KeptIndex, loaded: anyio.Event) -> None:
        """Until cancelled: once the index's first sync is done, load the stored vectors
        (then set ``loaded``), embed every note without one, then every note read again."""
        try:
            if not await kept.wait_synced() or kept.index is None:
                return
            index = kept.index
            await anyio.to_thread.run_sync(lambda: self._load(index), abandon_on_cancel=True)
        except Exception:
            log.warning("note vectors could not be loaded: search by meaning is off", exc_info=True)
            return
        finally:
            loaded.set()
        self.vectors.changed.set()  # the first fill: every note without a vector
        while True:
            if self.vectors.changed.is_set():
                self.vectors.changed.clear()
                try:
                    await anyio.to_thread.run_sync(
                        lambda: self._fill(index), abandon_on_cancel=True
                    )
                except Exception:
                    log.warning("embedding notes failed; trying again later", exc_info=True)
                self.building = False
            # a thread-safe flag the index's writes set, looked at every POLL_SECONDS: an
            # anyio.Event cannot be set from the index's worker threads
            await anyio.sleep(POLL_SECONDS)

    async def catch_up(self, index: VaultIndex) -> None:
        """Embed the notes waiting for a vector now, when there are few (a note just
        written); during a first build, answer with what there is."""
        if self.loaded:  # (more than CATCH_UP_NOTES waiting: a build, left to the background)
            await anyio.to_thread.run_sync(lambda: self._fill(index, at_most=CATCH_UP_NOTES))

    def rank(
        self,
        index: VaultIndex,
        query: str,
        wanted: Callable[[str], bool],
        depth: int,
        *,
        by_words: bool = True,
    ) -> Rankings | None:
        """Both rankings, ``depth`` notes deep each, or the one by meaning alone when not
        ``by_words`` (the semantic mode shows no ranking by words: it is not paid for) (blocking:
        call in a worker thread); None when the index cannot answer."""
        words = index.ranked_by_words(query, wanted, depth) if by_words else []
        if words is None:
            return None
        meaning = self.vectors.ranked(self.embedder.embed_query(query), wanted, depth)
        missing, notes = index.vector_counts()
        if not missing:
            return Rankings(words, meaning, notes, notes)
        # still embedding: counted over the notes the caller may search, so the notice
        # counts no hidden or denied note
        searched = sum(1 for path in index.files() or () if wanted(path))
        return Rankings(words, meaning, min(self.vectors.count(wanted), searched), searched)

    def _load(self, index: VaultIndex) -> None:
        index.use_vector_model(self.embedder.model)
        notes = index.vector_counts()[1]
        self.vectors.reserve(notes + _GROWTH)  # every note's row at once, and room for new ones
        index.load_vectors(self.vectors.put)
        missing, self.total = index.vector_counts()
        self.done = self.total - missing
        self.building = missing > 0
        self.loaded = True

    def _fill(self, index: VaultIndex, at_most: int | None = None) -> None:
        """Embed notes without a vector, batch by batch; with ``at_most``, only when no more
        than that many wait."""
        if at_most is not None:
            # counted before taking the step: a first build holds it until every note is
            # embedded, and a search must not wait minutes for it
            waiting = index.unembedded(at_most + 1)
            if not waiting or len(waiting) > at_most:
                return
        with self._step:
            started = self.done
            while batch := index.unembedded(BATCH):
                self._embed(index, batch)
                self.done += len(batch)
                self.total = max(self.total, self.done)
            if self.building and self.done > started:
                log.info("note vectors: %d notes embedded", self.done - started)

    def _embed(self, index: VaultIndex, batch: list[tuple[int, str, int, int]]) -> None:
        texts = [_embedded_text(str(index.folder), path) for _, path, _, _ in batch]
        rows = self.embedder.embed(texts).astype("<f2")
        index.store_vectors(
            [
                (note_id, mtime_ns, size, rows[i].tobytes())
                for i, (note_id, _, mtime_ns, size) in enumerate(batch)
            ],
            self.vectors.put,
        )


def _embedded_text(root: str, path: str) -> str:
    """What a note's vector is made of: its name, then its text without frontmatter ('' when
    it cannot be read: a zero vector, similar to nothing, until it is read again)."""
    try:
        with open(os.path.join(root, *path.split("/")), "rb") as handle:
            text = handle.read(4 * 16_000).decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""
    body = text[markdown.parse_frontmatter(text).end :]
    return f"{posixpath.splitext(posixpath.basename(path))[0]}\n\n{body}"
