"""What the SDD answers look like at each detail level, and that every budget holds."""

from __future__ import annotations

import pytest

from vaultgate.memory.models import Observation, SearchResult
from vaultgate.memory.render import SUMMARY_FOOTER, DetailLevel
from vaultgate.sdd import render
from vaultgate.sdd.layout import STAGES, ChangeLayout, Stage
from vaultgate.sdd.models import Artifact, Change


def change(slug: str, sizes: dict[Stage, int], project: str = "atlas") -> Change:
    folder = f"sdd/{project}/changes/{slug}/"
    layout = ChangeLayout(
        project=project,
        slug=slug,
        folder=folder,
        stages={stage: f"{folder}{stage}.md" for stage in sizes},
    )
    artifacts = tuple(
        Artifact(stage, f"{folder}{stage}.md", f"# {stage.title()} of {slug}\n" + "x" * size)
        for stage, size in sizes.items()
    )
    return Change(layout, artifacts)


def observation(n: int, content: str) -> Observation:
    return Observation(
        id=n,
        session_id="s1",
        type="decision",
        project="atlas",
        scope="project",
        topic_key=None,
        revision_count=1,
        duplicate_count=1,
        created_at="2026-11-22 12:00:00",
        updated_at="2026-11-22 12:00:00",
        title=f"Decision {n}",
        content=content,
    )


def search_result(observations: list[Observation], total: int | None = None) -> SearchResult:
    return SearchResult(
        observations=observations,
        total=len(observations) if total is None else total,
        mode="all",
        terms=("cache",),
        ignored_terms=0,
        ranked_window=None,
        other_projects=None,
    )


def test_summary_line_names_stages_with_sizes_and_the_missing_ones() -> None:
    cache = change("cache", {"proposal": 1_000, "tasks": 10})

    line = render.change_summary(cache, qualified=True)

    # Each artifact is a heading line ("# Proposal of cache\n", 20 characters) and its size.
    assert line == "- atlas/cache: proposal 1,020, tasks 27; missing spec, design, verify"


def test_standard_entry_has_an_excerpt_of_500_characters_per_artifact() -> None:
    entry = render.change_standard(change("cache", {"spec": 2000}), qualified=False)

    heading, artifact = entry.splitlines()
    assert heading == "### cache (missing proposal, design, tasks, verify)"
    prefix = "- spec.md (2,016 chars): "
    assert artifact.startswith(prefix)
    assert len(artifact) == len(prefix) + render.ARTIFACT_EXCERPT + len("...")


@pytest.mark.parametrize("room", [1_200, 2_000, 3_000, 6_000, 12_000])
def test_a_full_change_stays_within_its_room_and_says_how_to_read_on(room: int) -> None:
    big = change("cache", dict.fromkeys(STAGES, 5_000))

    text = render.change_full(big, qualified=True, room=room)

    assert len(text) <= room
    for stage in STAGES:
        assert f"#### {stage}.md (5,0" in text
    assert "get_vault_file" in text


def test_a_full_window_ends_with_the_exact_call_that_reads_on() -> None:
    artifact = Artifact("spec", "sdd/a/changes/b/spec.md", "y" * 5_000)

    body = render.window_body(artifact, 1_000)

    assert body is not None
    text, notice = body.split("\n\n")
    assert len(body) <= 1_000
    assert notice == (
        f"Content truncated at {len(text):,} of 5,000 characters. Call get_vault_file("
        f'filename="sdd/a/changes/b/spec.md", startIndex={len(text)}) to get more.'
    )


def test_a_short_artifact_is_whole_and_a_tiny_room_gives_a_pointer_instead() -> None:
    artifact = Artifact("spec", "sdd/a/changes/b/spec.md", "short")

    assert render.window_body(artifact, 100) == "short"
    assert render.window_body(Artifact("spec", "p.md", "z" * 1_000), 250) is None


@pytest.mark.parametrize("level", ["summary", "standard", "full"])
def test_a_list_of_changes_fits_its_budget_and_counts_what_it_shows(level: DetailLevel) -> None:
    changes = [change(f"c{n:03}", {"proposal": 3_000, "spec": 2_000}) for n in range(200)]

    fitted = render.fit_changes(changes, level, qualified=True, budget=8_000)

    assert len(fitted.text) <= 8_000
    assert 1 <= fitted.shown < 200
    marker = "- atlas/c" if level == "summary" else "### atlas/c"
    assert fitted.text.count(marker) == fitted.shown


def test_the_first_change_is_always_shown_so_the_answer_is_never_empty() -> None:
    fitted = render.fit_changes(
        [change("big", {"spec": 1_000})], "standard", qualified=False, budget=10
    )

    assert fitted.shown == 1


@pytest.mark.parametrize(
    ("level", "present", "absent"),
    [
        pytest.param("summary", ["- #1 [decision] Decision 1"], ["abc"], id="summary-titles"),
        pytest.param(
            "standard", ["abc" * 66 + "ab...", "project: atlas"], ["abc" * 67], id="standard-200"
        ),
        pytest.param("full", ["abc" * 200], [], id="full-whole"),
    ],
)
def test_memory_part_at_each_level(
    level: DetailLevel, present: list[str], absent: list[str]
) -> None:
    text = render.memory_section(search_result([observation(1, "abc" * 200)]), level, about="")

    for fragment in present:
        assert fragment in text
    for fragment in absent:
        assert fragment not in text


def test_memory_part_keeps_whole_entries_within_its_budget_and_names_the_rest() -> None:
    found = [observation(n, "w" * 1_500) for n in range(1, 6)]

    text = render.memory_section(search_result(found, total=9), "full", about="", budget=4_000)

    assert len(text) <= 4_000
    assert "Left out to stay small: mem_get_observations(ids=[3, 4, 5])" in text
    assert text.endswith(
        "Showing 2 of 9 related observations. Use mem_search(query=<words>) for more, or "
        "mem_get_observation #ID."
    )


def test_no_navigation_hint_when_everything_is_shown() -> None:
    text = render.memory_section(search_result([observation(1, "x")]), "standard", about="")

    assert "Showing" not in text


def test_summary_answers_end_with_the_footer_and_others_do_not() -> None:
    assert render.finish(["a", "", "b"], "summary") == f"a\nb\n{SUMMARY_FOOTER}"
    assert render.finish(["a"], "standard") == "a"
    assert SUMMARY_FOOTER == "Use detail_level: standard or full for more detail"


def test_names_are_bounded() -> None:
    assert render.names([str(n) for n in range(25)], limit=3) == "0, 1, 2 and 22 more"


def test_whole_changes_are_never_cut_and_the_first_always_shows() -> None:
    big = change("缓存 cache 🗄", dict.fromkeys(STAGES, 6_000))
    small = change("small", {"spec": 100})
    third = change("third", {"spec": 100})

    fitted = render.fit_changes([big, small, third], "full", qualified=True, budget=500, whole=True)
    roomy = render.fit_changes([small, big, third], "full", qualified=True, budget=500, whole=True)

    assert fitted.shown == 1
    assert all(artifact.content.rstrip("\n") in fitted.text for artifact in big.artifacts)
    assert "get_vault_file" not in fitted.text
    assert roomy.shown == 1  # the small one fits; the big one would not, so it stops there


def test_the_first_related_observation_at_full_is_whole_past_the_budget() -> None:
    found = [observation(1, "長い 🧾 " * 2_000), observation(2, "short")]

    text = render.memory_section(search_result(found), "full", about="", budget=2_000)

    assert found[0].content in text
    assert "Left out to stay small: mem_get_observations(ids=[2])" in text
