"""docs/seed-contract.md stays true: every test it names exists, every seed test is named in it,
every status is held or a recorded contradiction, and every numbered requirement has a row."""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
TABLE = HERE.parents[1] / "docs" / "seed-contract.md"
TEST_REF = re.compile(r"`tests/seed/(test_seed_\d{3}\.py)::(test_\w+)`")
CONTRADICTION_REF = re.compile(r"\((C\d+)")
REQUIRED = {
    "000": [*(f"FR-{n:03d}" for n in range(1, 9)), *(f"NFR-{n:03d}" for n in range(1, 5))],
    "001": [*(f"FR-{n:03d}" for n in range(1, 22)), *(f"NFR-{n:03d}" for n in range(1, 5))],
    "003": [*(f"FR-{n:03d}" for n in range(1, 10)), *(f"NFR-{n:03d}" for n in range(1, 5))],
}


@dataclass(frozen=True)
class Row:
    line: str
    test_module: str
    test_name: str
    status: str


def rows() -> list[Row]:
    found = []
    for raw in TABLE.read_text(encoding="utf-8").splitlines():
        if not re.match(r"\| 00\d · ", raw):
            continue
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", raw)[1:-1]]
        assert len(cells) == 5, raw
        ref = TEST_REF.search(cells[3])
        assert ref is not None, raw
        found.append(Row(cells[0], ref.group(1), ref.group(2), cells[4]))
    return found


def contradictions() -> set[str]:
    return set(re.findall(r"^- \*\*(C\d+)\.\*\*", TABLE.read_text(encoding="utf-8"), re.M))


@functools.cache
def functions_in(module: str) -> set[str]:
    tree = ast.parse((HERE / module).read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    }


def test_the_table_names_only_tests_that_exist() -> None:
    missing = [
        f"{row.test_module}::{row.test_name}"
        for row in rows()
        if row.test_name not in functions_in(row.test_module)
    ]

    assert missing == []


@pytest.mark.parametrize("seed", ["000", "001", "002", "003", "004"])
def test_every_seed_test_is_in_the_table(seed: str) -> None:
    module = f"test_seed_{seed}.py"
    named = {row.test_name for row in rows() if row.test_module == module}

    assert sorted(functions_in(module) - named) == []


def test_every_test_is_named_after_its_seed() -> None:
    for row in rows():
        seed = row.line.split(" · ")[0]
        assert row.test_module == f"test_seed_{seed}.py", row
        assert row.test_name.startswith(f"test_{seed}_"), row


def test_every_status_is_held_or_a_recorded_contradiction() -> None:
    recorded = contradictions()
    for row in rows():
        assert row.status.startswith(("held", "departure")), row
        cited = set(CONTRADICTION_REF.findall(row.status))
        assert cited <= recorded, row
        if row.status.startswith("departure"):
            assert cited, row  # a departure names the contradiction that allows it


@pytest.mark.parametrize("seed", sorted(REQUIRED))
def test_every_numbered_requirement_has_a_row(seed: str) -> None:
    lines = {row.line for row in rows()}
    missing = [
        number
        for number in REQUIRED[seed]
        if not any(
            line == f"{seed} · {number}" or line.startswith(f"{seed} · {number} ") for line in lines
        )
    ]

    assert missing == []
