"""The simple search on the index's candidates answers exactly what the full scan answers."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.engine.index.conftest import write

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.index import VaultIndex
from vaultgate.engine.simple_search import SimpleSearchOptions, simple_search
from vaultgate.engine.vault import Vault

# Awkward on purpose: case pairs SQLite's own folding misses (i with İ and ı, Cherokee),
# pairs re.IGNORECASE adds (KELVIN SIGN, LONG S, final sigma, MICRO SIGN), accents precomposed
# and combining, CJK, emoji beyond the BMP, CRLF, quotes and FTS5 operators, NUL.
ALPHABET = [
    *"abcikosxyzABCIKOSXYZ",
    *"İıK\u212a\u017fſßẞΣσςµμÉéèe\u0301",
    *"ᏣᎳᎩꮳꮃꭹ中文字日本",
    *"😀🎉👍🏽",
    *" \t\r\n#%\"'*()-_:^",
    "\x00",  # SQLite's trigram tokenizer stops at a NUL
]
NAME_ALPHABET = [c for c in ALPHABET if c not in "\t\r\n\x00"]

texts = st.text(st.sampled_from(ALPHABET), max_size=60)
names = st.text(st.sampled_from(NAME_ALPHABET), min_size=1, max_size=12).filter(
    lambda name: not name.startswith(".") and name.strip() == name
)
folders = st.sampled_from(["", "Sub/", "Ünï côdé/", "a#b%c/"])
vaults = st.dictionaries(
    st.tuples(folders, names).map(lambda pair: f"{pair[0]}{pair[1]}.md"), texts, max_size=6
)


def _case_variant(text: str, flips: list[bool]) -> str:
    return "".join(
        (c.swapcase() if len(c.swapcase()) == 1 else c) if flip else c
        for c, flip in zip(text, flips + [False] * len(text), strict=False)
    )


@st.composite
def queries(draw: st.DrawFn, notes: dict[str, str]) -> str:
    """A few terms: pieces of the notes' searched texts in mixed case, and stray text."""
    sources = [f"{path.rsplit('/', 1)[-1][:-3]}\n\n{text}" for path, text in notes.items()]
    terms: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        if sources and draw(st.booleans()):
            source = draw(st.sampled_from(sources))
            start = draw(st.integers(0, len(source)))
            piece = source[start : start + draw(st.integers(1, 8))]
            flips = draw(st.lists(st.booleans(), max_size=len(piece)))
            terms.extend(_case_variant(piece, flips).split())
        else:
            terms.append(draw(st.text(st.sampled_from(ALPHABET), min_size=1, max_size=5)))
    return " ".join(terms)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), notes=vaults, version=st.sampled_from(["5.1.0", "3.2.0"]))
def test_search_on_candidates_equals_the_full_scan(
    data: st.DataObject, notes: dict[str, str], version: str
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "vault"
        root.mkdir()
        for path, text in notes.items():
            write(root, path, text)
        vault = Vault(root)
        with VaultIndex(root, location=Path(scratch) / "index.sqlite3") as index:
            index.sync()
            for _ in range(4):
                query = data.draw(queries(notes), label="query")
                options = SimpleSearchOptions.for_version(Behaviour.for_version(version), query, 8)
                full = simple_search(vault, options)
                candidates = index.candidates(query)
                if candidates is None:
                    continue
                assert {hit["filename"] for hit in full} <= set(candidates)
                assert candidates == [p for p in vault.markdown_files() if p in set(candidates)]
                assert simple_search(vault, options, candidates) == full
