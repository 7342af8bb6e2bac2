"""The fold the index stores text in keeps together whatever re.IGNORECASE lets match."""

from __future__ import annotations

import re
import sys

import pytest

from vaultgate.engine.index import fold as folding
from vaultgate.engine.index.fold import current_fold, fold


def _cased_and_their_mappings() -> str:
    """Every character with a case mapping, and the one-character mappings themselves: the
    only characters re.IGNORECASE can match with another one."""
    chars: set[str] = set()
    for code in range(sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        lower, upper = char.lower(), char.upper()
        if lower != char or upper != char:
            chars.add(char)
            chars.update(m for m in (lower, upper) if len(m) == 1)
    return "".join(sorted(chars))


CASED = _cased_and_their_mappings()


@pytest.mark.parametrize(
    "table",
    [
        pytest.param(current_fold().table, id="from re's internals"),
        pytest.param(folding._table_measured_with_re(), id="measured with re"),
    ],
)
def test_characters_that_match_ignoring_case_fold_alike(table: dict[int, int]) -> None:
    for char in CASED:
        for other in re.findall(re.escape(char), CASED, re.IGNORECASE):
            assert chr(table.get(ord(char), ord(char))) == chr(table.get(ord(other), ord(other))), (
                f"{char!r} U+{ord(char):04X} matches {other!r} U+{ord(other):04X}"
            )


def test_the_fold_is_read_from_re_s_own_tables_on_this_python() -> None:
    """The measured fallback is for a Python whose internals moved; CI must use the fast one."""
    assert folding._groups_from_internals() is not None


def test_no_character_beyond_the_scanned_planes_has_a_case() -> None:
    assert all(ord(char) < folding._CASED_LIMIT for char in CASED)


def test_every_character_folds_to_one_of_the_same_utf16_length() -> None:
    """So an offset counted in the folded text, in UTF-16 units, is the original's too (the
    folder's search scores notes on the index's folded text, folder/search.py)."""
    for code, folded in current_fold().table.items():
        assert (code > 0xFFFF) == (folded > 0xFFFF), f"U+{code:04X} folds to U+{folded:04X}"


def test_ascii_text_folds_by_lowercase_as_the_table_would() -> None:
    ascii_text = "".join(map(chr, range(128)))
    assert fold(ascii_text) == ascii_text.translate(current_fold().table) == ascii_text.lower()


@pytest.mark.parametrize(
    ("text", "alike"),
    [
        pytest.param("\u212aelvin", "kelvin", id="KELVIN SIGN"),
        pytest.param("\u017ftraße", "STRAßE", id="LONG S; sharp s stays (re does not expand it)"),
        pytest.param("İSTANBUL ıi", "istanbul ii", id="dotted and dotless i"),
        pytest.param("ΣΟΦΟΣ σοφος", "σοφοσ σοφοσ", id="final sigma"),
        pytest.param("µ", "μ", id="MICRO SIGN and mu"),
    ],
)
def test_pairs_that_sqlite_would_not_fold_are_folded_alike(text: str, alike: str) -> None:
    assert fold(text) == fold(alike)
    assert len(fold(text)) == len(text)


def test_the_fingerprint_names_the_table() -> None:
    fingerprint = current_fold().fingerprint
    assert re.fullmatch("[0-9a-f]{16}", fingerprint)
    assert folding.Fold({1: 2}, "x").fingerprint != fingerprint
