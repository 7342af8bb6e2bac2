"""Plugin versions and the features each one has, at the exact boundary versions."""

from __future__ import annotations

import pytest

from vaultgate.errors import FeatureUnavailable
from vaultgate.obsidian.features import FEATURES, FEATURES_BY_NAME, Feature, FeatureSet, Version


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("5.1.0", Version(5, 1, 0), id="plain"),
        pytest.param("v4.1.7", Version(4, 1, 7), id="v-prefix"),
        pytest.param("  3.6.2", Version(3, 6, 2), id="leading-space"),
        pytest.param("5.1.0-beta.2", Version(5, 1, 0), id="pre-release-suffix"),
        pytest.param("5.1.0+build.7", Version(5, 1, 0), id="build-suffix"),
        pytest.param("4.1", Version(4, 1, 0), id="no-patch"),
        pytest.param("6", Version(6, 0, 0), id="major-only"),
        pytest.param("10.20.30", Version(10, 20, 30), id="multi-digit"),
        pytest.param("3.04.1", Version(3, 4, 1), id="leading-zero"),
        pytest.param("0.0.0", Version(0, 0, 0), id="zero"),
    ],
)
def test_version_parse(text: str, expected: Version) -> None:
    assert Version.parse(text) == expected


@pytest.mark.parametrize("text", ["", "banana", "x.1.0", "-1.0.0", ".5"])
def test_version_parse_refuses_what_is_not_a_version(text: str) -> None:
    with pytest.raises(ValueError, match="not a version"):
        Version.parse(text)


def test_versions_order_numerically_not_as_text() -> None:
    assert Version.parse("3.10.0") > Version.parse("3.9.9")
    assert Version.parse("10.0.0") > Version.parse("9.99.99")
    assert sorted(map(Version.parse, ["5.0.2", "4.1.7", "5.0.10", "3.6.2"])) == [
        Version(3, 6, 2),
        Version(4, 1, 7),
        Version(5, 0, 2),
        Version(5, 0, 10),
    ]


def test_version_prints_as_dotted_triple() -> None:
    assert str(Version.parse("v4.1")) == "4.1.0"


# Each feature at the last version without it and the first with it (or the reverse).
BOUNDARIES = [
    ("dataview_search", "1.3.9", False),
    ("dataview_search", "1.4.0", True),
    ("dataview_search", "3.6.2", True),
    ("dataview_search", "3.99.99", True),
    ("dataview_search", "4.0.0", False),
    ("dataview_search", "5.1.0", False),
    ("filename_search", "3.2.9", False),
    ("filename_search", "3.3.0", True),
    ("document_map", "3.3.9", False),
    ("document_map", "3.4.0", True),
    ("tags", "3.4.9", False),
    ("tags", "3.5.0", True),
    ("targeted_read", "3.5.9", False),
    ("targeted_read", "3.6.0", True),
    ("targeted_patch", "4.1.7", False),
    ("targeted_patch", "5.0.0", True),
    ("links", "3.6.2", False),
    ("links", "4.0.0", True),
    ("move", "4.0.9", False),
    ("move", "4.1.0", True),
    ("copy", "4.1.7", False),
    ("copy", "5.0.0", True),
    ("trash_delete", "4.1.7", False),
    ("trash_delete", "5.0.0", True),
    ("patch_v2", "4.1.7", False),
    ("patch_v2", "5.0.0", True),
    ("unresolved_links", "4.1.7", False),
    ("unresolved_links", "5.0.0", True),
    ("periodic_notes", "1.0.0", True),
    ("periodic_notes", "5.0.1", True),
    ("periodic_notes", "5.0.2", False),
    ("periodic_notes", "5.1.0", False),
    ("periodic_dated", "3.0.4", False),
    ("periodic_dated", "3.1.0", True),
    ("periodic_dated", "5.0.1", True),
    ("periodic_dated", "5.0.2", False),
]


@pytest.mark.parametrize(
    ("name", "version", "available"),
    [pytest.param(n, v, a, id=f"{n}-{v}") for n, v, a in BOUNDARIES],
)
def test_feature_boundaries(name: str, version: str, available: bool) -> None:
    features = FeatureSet(Version.parse(version))

    assert features.has(name) is available
    assert features.table()[name] is available


def test_every_feature_has_its_boundaries_tested() -> None:
    assert {name for name, _v, _a in BOUNDARIES} == {feature.name for feature in FEATURES}


def test_require_passes_silently_when_the_feature_is_there() -> None:
    FeatureSet(Version(3, 6, 2)).require("dataview_search", action="search_vault")


def test_require_names_the_missed_bound_the_running_version_and_the_alternative() -> None:
    with pytest.raises(FeatureUnavailable) as caught:
        FeatureSet(Version(5, 1, 0)).require(
            "dataview_search", action="search_vault with queryType=dataview"
        )

    assert caught.value.feature == "dataview_search"
    assert str(caught.value).startswith(
        "search_vault with queryType=dataview needs Local REST API < 4.0.0; "
        "you run 5.1.0. Use queryType=jsonlogic"
    )


def test_require_below_the_first_version_names_the_lower_bound() -> None:
    with pytest.raises(FeatureUnavailable) as caught:
        FeatureSet(Version(1, 3, 0)).require("dataview_search", action="search_vault")

    assert "needs Local REST API >= 1.4.0; you run 1.3.0" in str(caught.value)


def test_require_without_an_alternative_ends_after_the_versions() -> None:
    with pytest.raises(FeatureUnavailable) as caught:
        FeatureSet(Version(3, 4, 0)).require("tags", action="Listing tags")

    assert str(caught.value) == "Listing tags needs Local REST API >= 3.5.0; you run 3.4.0."


@pytest.mark.parametrize(
    ("name", "requirement"),
    [
        ("dataview_search", ">= 1.4.0 and < 4.0.0"),
        ("tags", ">= 3.5.0"),
        ("periodic_notes", "< 5.0.2"),
    ],
)
def test_requirement_text(name: str, requirement: str) -> None:
    assert FEATURES_BY_NAME[name].requirement() == requirement


def test_unknown_feature_names_are_a_programming_error() -> None:
    with pytest.raises(KeyError):
        FeatureSet(Version(5, 1, 0)).has("teleport")


def test_a_feature_without_bounds_is_in_every_version() -> None:
    feature = Feature("always", "in every release")

    assert feature.requirement() == "any version"
    assert feature.available_in(Version(0, 0, 0))
    assert feature.available_in(Version(99, 0, 0))
