"""VAULTGATE_ALLOW / VAULTGATE_DENY: what an entry means, and entries that cannot work."""

from __future__ import annotations

import logging

import pytest

from vaultgate.config import SafetySettings
from vaultgate.errors import AccessDenied, ConfigError, HiddenPath, ReadOnlyMode
from vaultgate.vault.policy import AccessPolicy, normalise_entry

FOLDER_SPELLINGS = [
    "Private",
    "Private/",
    "./Private/**",
    "Private/**",
    " ./Private// ",
    "Private/**/",
]


@pytest.mark.parametrize("entry", FOLDER_SPELLINGS)
def test_every_spelling_of_a_folder_denies_it_and_everything_below(entry: str) -> None:
    policy = AccessPolicy(SafetySettings(deny=(entry,)))

    for path in ("Private", "Private/", "Private/diary.md", "Private/2026/Nov/x.md"):
        assert not policy.allows(path), path
    for folder in ("Private/", "Private/Sub/", "Private/Sub/Deeper/"):
        assert not policy.allows_folder(folder), folder
    for path in ("Private2/x.md", "Public/Private/x.md", "Private.md", "Notes/a.md"):
        assert policy.allows(path), path
    assert policy.allows_folder("Public/")


@pytest.mark.parametrize("entry", FOLDER_SPELLINGS)
def test_every_spelling_of_a_folder_allows_it_and_everything_below(entry: str) -> None:
    policy = AccessPolicy(SafetySettings(allow=(entry,)))

    assert policy.allows("Private/diary.md")
    assert policy.allows("Private/a/b/c.md")
    assert policy.allows_folder("Private/a/")
    assert policy.allows_folder("")
    assert not policy.allows("Public/x.md")
    assert not policy.allows_folder("Public/")


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("Private", "Private"),
        ("./Private/**", "Private"),
        ("Private/**/**", "Private"),
        ("a/*.md", "a/*.md"),
        ("**/secret/**", "**/secret"),
        ("./", "**"),
        ("**", "**"),
    ],
)
def test_entries_are_normalised_once(raw: str, normalised: str) -> None:
    assert normalise_entry(raw) == normalised


def test_a_glob_entry_covers_what_it_matches_and_what_lies_below() -> None:
    policy = AccessPolicy(SafetySettings(deny=("**/secret", "*.key.md")))

    assert not policy.allows("a/b/secret/x.md")
    assert not policy.allows_folder("a/secret/")
    assert not policy.allows("vault.key.md")
    assert policy.allows("a/secretary.md")


def test_a_folder_with_only_some_files_denied_stays_listable() -> None:
    policy = AccessPolicy(SafetySettings(deny=("Projects/*.draft.md",)))

    assert policy.allows_folder("Projects/")
    assert not policy.allows("Projects/plan.draft.md")
    assert policy.allows("Projects/plan.md")


@pytest.mark.parametrize("path", [".obsidian/app.json", ".trash/a.md", "a/.hidden/b.md", ".git"])
def test_hidden_paths_are_never_allowed_with_or_without_a_policy(path: str) -> None:
    for safety in (SafetySettings(), SafetySettings(allow=("**",)), SafetySettings(deny=("x",))):
        assert not AccessPolicy(safety).allows(path)


@pytest.mark.parametrize("path", [".obsidian/app.json", "Notes/.draft.md"])
def test_a_hidden_path_is_refused_as_hidden_not_as_denied(path: str) -> None:
    for policy in (AccessPolicy(SafetySettings()), AccessPolicy(SafetySettings(deny=("x",)))):
        with pytest.raises(HiddenPath):
            policy.check_read(path)
        with pytest.raises(HiddenPath):
            policy.check_write(path)


@pytest.mark.parametrize("entry", [".obsidian/**", ".trash", "Notes/.private/*", "../Other/**"])
def test_an_entry_that_can_never_match_is_a_one_line_warning(
    entry: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="vaultgate.policy"):
        AccessPolicy(SafetySettings(deny=(entry,)))

    [record] = caplog.records
    assert entry in record.getMessage()
    assert "never match" in record.getMessage()
    assert "\n" not in record.getMessage()


def test_ordinary_entries_warn_about_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="vaultgate.policy"):
        AccessPolicy(SafetySettings(allow=("Projects/**", "*.md"), deny=FOLDER_SPELLINGS))

    assert caplog.records == []


def test_a_malformed_entry_is_a_configuration_error() -> None:
    with pytest.raises(ConfigError, match="VAULTGATE_DENY"):
        AccessPolicy(SafetySettings(deny=("/abs/**",)))


def test_a_denial_names_the_path_only_when_the_model_gave_it() -> None:
    policy = AccessPolicy(SafetySettings(deny=("Private",), read_only=False))

    with pytest.raises(AccessDenied, match=r"'Private/x\.md'"):
        policy.check_read("Private/x.md")
    with pytest.raises(AccessDenied) as caught:
        policy.check_write("Private/x.md", shown="the note open in Obsidian")
    assert "Private" not in str(caught.value)
    with pytest.raises(ReadOnlyMode):
        AccessPolicy(SafetySettings(read_only=True)).check_write("a.md")
