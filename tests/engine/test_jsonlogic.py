"""The JsonLogic evaluator, with json-logic-js semantics."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest

from vaultgate.engine import jsonlogic
from vaultgate.engine.jsonlogic import JsonLogicError, apply, is_sane_truthy, truthy

DATA = {
    "path": "Projects/plan.md",
    "tags": ["project", "work/tasks"],
    "frontmatter": {"priority": 42, "status": "active", "owner": None, "url": "https://x.io/a/b"},
    "stat": {"size": 120},
    "items": [1, 2, 3, 4],
}


@pytest.mark.parametrize(
    ("logic", "expected"),
    [
        pytest.param({"var": "frontmatter.priority"}, 42, id="var-dotted"),
        pytest.param({"var": ["frontmatter.nope", "dflt"]}, "dflt", id="var-default"),
        pytest.param({"var": "frontmatter.owner"}, None, id="var-null-value"),
        pytest.param({"var": "tags.1"}, "work/tasks", id="var-index"),
        pytest.param({"var": "tags.length"}, 2, id="var-length"),
        pytest.param({"==": [{"var": "frontmatter.priority"}, "42"]}, True, id="loose-equal"),
        pytest.param({"===": [{"var": "frontmatter.priority"}, "42"]}, False, id="strict-equal"),
        pytest.param({"==": [1, True]}, True, id="loose-bool"),
        pytest.param({"===": [1, True]}, False, id="strict-bool"),
        pytest.param({"==": [None, 0]}, False, id="null-is-not-zero"),
        pytest.param({"!=": ["a", "b"]}, True, id="not-equal"),
        pytest.param({"!==": [1, 1.0]}, False, id="int-and-float-are-one-number"),
        pytest.param({"!": [[]]}, True, id="not-empty-array"),
        pytest.param({"!!": [{}]}, True, id="object-is-truthy-inside-logic"),
        pytest.param({"!!": ["0"]}, True, id="string-zero-is-truthy"),
        pytest.param({"or": [0, "", "x"]}, "x", id="or-returns-value"),
        pytest.param({"and": [1, "", "x"]}, "", id="and-returns-falsy-value"),
        pytest.param({"if": [False, "a", None, "b", "c"]}, "c", id="if-chain"),
        pytest.param({"<": [1, 2, 3]}, True, id="between"),
        pytest.param({"<=": [1, 1, 0]}, False, id="between-inclusive"),
        pytest.param({">": ["b", "a"]}, True, id="string-compare"),
        pytest.param({">=": ["10", 9]}, True, id="numeric-string-compare"),
        pytest.param({"in": ["work", {"var": "frontmatter.status"}]}, False, id="in-string-miss"),
        pytest.param({"in": ["act", {"var": "frontmatter.status"}]}, True, id="in-string"),
        pytest.param({"in": ["project", {"var": "tags"}]}, True, id="in-array"),
        pytest.param({"in": ["x", None]}, False, id="in-nothing"),
        pytest.param({"cat": ["p", 1, None, True, 2.5]}, "p1nulltrue2.5", id="cat"),
        pytest.param({"+": ["1", 2, "3.5"]}, 6.5, id="plus-parse-float"),
        pytest.param({"-": [5]}, -5, id="negate"),
        pytest.param({"*": [2, "3"]}, 6, id="times"),
        pytest.param({"/": [7, 2]}, 3.5, id="divide"),
        pytest.param({"%": [-7, 3]}, -1, id="remainder-sign"),
        pytest.param({"min": [3, 1, 2]}, 1, id="min"),
        pytest.param({"max": [3, "9", 2]}, 9, id="max"),
        pytest.param({"merge": [[1], 2, [3, [4]]]}, [1, 2, 3, [4]], id="merge"),
        pytest.param({"map": [{"var": "items"}, {"*": [{"var": ""}, 2]}]}, [2, 4, 6, 8], id="map"),
        pytest.param({"filter": [{"var": "items"}, {">": [{"var": ""}, 2]}]}, [3, 4], id="filter"),
        pytest.param(
            {"reduce": [{"var": "items"}, {"+": [{"var": "current"}, {"var": "accumulator"}]}, 0]},
            10,
            id="reduce",
        ),
        pytest.param({"all": [{"var": "items"}, {">": [{"var": ""}, 0]}]}, True, id="all"),
        pytest.param({"all": [[], True]}, False, id="all-of-nothing"),
        pytest.param(
            {"some": [{"var": "tags"}, {"==": [{"var": ""}, "project"]}]}, True, id="some"
        ),
        pytest.param({"none": [{"var": "tags"}, {"==": [{"var": ""}, "x"]}]}, True, id="none"),
        pytest.param(
            {"missing": ["path", "frontmatter.owner", "nope"]},
            ["frontmatter.owner", "nope"],
            id="missing",
        ),
        pytest.param({"missing_some": [1, ["nope", "path"]]}, [], id="missing-some"),
        pytest.param({"substr": ["Projects", -4]}, "ects", id="substr"),
        pytest.param({"glob": ["Projects/*", {"var": "path"}]}, True, id="glob-star-crosses-slash"),
        pytest.param({"glob": ["*.canvas", {"var": "path"}]}, False, id="glob-miss"),
        pytest.param({"glob": ["plan?.md", "plan?.md"]}, True, id="glob-question-is-literal"),
        pytest.param({"glob": ["plan?.md", "plans.md"]}, False, id="glob-question-not-wildcard"),
        pytest.param({"glob": ["*", None]}, False, id="glob-non-string"),
        pytest.param({"regexp": ["^Proj.*\\.md$", {"var": "path"}]}, True, id="regexp"),
        pytest.param({"regexp": ["plan", {"var": "path"}]}, True, id="regexp-searches"),
        pytest.param({"regexp": ["x", 5]}, False, id="regexp-non-string"),
        pytest.param({"unknown": 1, "two": 2}, {"unknown": 1, "two": 2}, id="data-not-logic"),
    ],
)
def test_operations(logic: Any, expected: Any) -> None:
    assert apply(logic, DATA) == expected


def test_division_by_zero_is_infinity_as_in_javascript() -> None:
    assert apply({"/": [1, 0]}) == math.inf
    assert math.isnan(apply({"/": [0, 0]}))


@pytest.mark.parametrize(
    "logic",
    [
        pytest.param({"frobnicate": [1]}, id="unknown-op"),
        pytest.param({"regexp": ["(", "x"]}, id="bad-regexp"),
    ],
)
def test_errors(logic: Any) -> None:
    with pytest.raises(JsonLogicError):
        apply(logic, DATA)


@pytest.mark.parametrize(
    ("value", "inside", "filtered"),
    [
        (False, False, False),
        (None, False, False),
        (0, False, False),
        ("", False, False),
        ([], False, False),
        ({}, True, False),
        ("0", True, True),
        ([0], True, True),
        ({"a": 1}, True, True),
        (0.5, True, True),
    ],
)
def test_truthiness_inside_logic_and_in_the_plugins_filter(
    value: Any, inside: bool, filtered: bool
) -> None:
    assert truthy(value) is inside
    assert is_sane_truthy(value) is filtered


def test_only_matching_spends_a_searchs_pattern_budget() -> None:
    # a search reads notes between matches (seconds on a big vault, cold): that time is not
    # the pattern's, so a quick pattern still matches after it
    with jsonlogic.regex_budget(1.0):
        time.sleep(1.1)
        # (a|aa)+$ on 24 a's: tens of milliseconds of backtracking, far within the budget
        assert jsonlogic.apply({"regexp": ["(a|aa)+$", "a" * 24 + "b"]}) is False
        assert jsonlogic.apply({"glob": ["*.md", "日本 🚀.md"]}) is True


def test_a_pattern_past_the_budget_is_stopped_with_why() -> None:
    with (
        jsonlogic.regex_budget(0.2),
        pytest.raises(JsonLogicError, match=r"took more than 0\.2 s of matching"),
    ):
        jsonlogic.apply({"regexp": ["(a|aa)+$", "a" * 60 + "b"]})
