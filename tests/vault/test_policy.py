"""VAULTGATE_ALLOW / VAULTGATE_DENY: what an entry means, and entries that cannot work."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from vaultgate.config import SafetySettings, Settings
from vaultgate.errors import AccessDenied, ConfigError, HiddenPath, LinkNotFollowed, ReadOnlyMode
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


# --- letter case and Unicode forms (issue 21) -------------------------------------------------

CAFE_NFC, CAFE_NFD = "Caf\u00e9", "Cafe\u0301"


@pytest.mark.parametrize(
    ("entry", "path"),
    [
        pytest.param("Private", "private/secret 🙈.md", id="lower"),
        pytest.param("Private", "PRIVATE/secret.md", id="upper"),
        pytest.param("Private", "pRiVaTe/x #1.md", id="mixed"),
        pytest.param("private", "Private/secret.md", id="entry-lower"),
        pytest.param("Private/**/*.md", "PRIVATE/a/b.md", id="glob"),
        pytest.param(CAFE_NFC, f"{CAFE_NFD}/menu.md", id="nfc-entry-nfd-path"),
        pytest.param(CAFE_NFD, f"{CAFE_NFC}/menu.md", id="nfd-entry-nfc-path"),
        pytest.param("STRASSE", "Straße/x.md", id="casefold-not-lower"),
        pytest.param("日本", "日本/メモ.md", id="cjk"),
    ],
)
def test_a_deny_holds_for_every_case_and_unicode_form(entry: str, path: str) -> None:
    policy = AccessPolicy(SafetySettings(deny=(entry,)))

    assert not policy.allows(path)
    if "*" not in entry:  # a folder entry: the folder itself, in any form
        assert not policy.allows_folder(path.rsplit("/", 1)[0] + "/")
    with pytest.raises(AccessDenied):
        policy.check_read(path)
    with pytest.raises(AccessDenied):
        policy.check_write(path)


def test_an_allow_list_matches_every_case_and_unicode_form() -> None:
    policy = AccessPolicy(SafetySettings(allow=(f"Projects/{CAFE_NFC}/*.md",)))

    assert policy.allows(f"projects/{CAFE_NFD}/menu.md")
    assert policy.allows_folder(f"PROJECTS/{CAFE_NFD}/")
    assert policy.allows_folder("projects/")
    assert not policy.allows("projects/other/menu.md")


# --- where a path really is (issue 21) --------------------------------------------------------


@pytest.fixture
def linked_vault(tmp_path: Path) -> Path:
    """A vault with links out of it, into its hidden folders and a denied one, and loops."""
    vault, elsewhere = tmp_path / "vault", tmp_path / "elsewhere"
    for folder in (vault / "Notes", vault / "Private", vault / "Public", vault / ".trash"):
        folder.mkdir(parents=True)
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "app.json").write_text("{}", encoding="utf-8")
    (vault / "Private" / "secret.md").write_text("private", encoding="utf-8")
    (vault / ".trash" / "old.md").write_text("old", encoding="utf-8")
    (elsewhere / "dir").mkdir(parents=True)
    (elsewhere / "secret.md").write_text("outside", encoding="utf-8")
    (vault / "Notes" / "flink.md").symlink_to(elsewhere / "secret.md")
    (vault / "ext").symlink_to(elsewhere / "dir", target_is_directory=True)
    (vault / "Notes" / "key.md").symlink_to("../.obsidian/app.json")
    (vault / "Notes" / "trashdir").symlink_to("../.trash", target_is_directory=True)
    (vault / "Public" / "alias.md").symlink_to("../Private/secret.md")
    (vault / "Notes" / "a.md").symlink_to("b.md")
    (vault / "Notes" / "b.md").symlink_to("a.md")
    return vault


@pytest.mark.parametrize(
    ("path", "leads"),
    [
        pytest.param("Notes/flink.md", "outside", id="file-out"),
        pytest.param("ext/new note.md", "outside", id="folder-out"),
        pytest.param("Notes/key.md", "hidden", id="into-obsidian"),
        pytest.param("Notes/trashdir/old.md", "hidden", id="into-trash"),
        pytest.param("Notes/trashdir/planted.md", "hidden", id="new-into-trash"),
        pytest.param("Notes/a.md", "loop", id="file-loop"),
    ],
)
def test_a_link_that_leads_where_vaultgate_does_not_go_is_refused(
    linked_vault: Path, path: str, leads: str
) -> None:
    policy = AccessPolicy(SafetySettings(), vault=linked_vault)

    for check in (policy.check_read, policy.check_write):
        with pytest.raises(LinkNotFollowed) as refused:
            check(path)
        assert refused.value.leads == leads
        assert "elsewhere" not in str(refused.value)  # the target is never named
        assert ".obsidian" not in str(refused.value)


def test_a_link_to_a_denied_note_is_denied_under_its_own_name(linked_vault: Path) -> None:
    policy = AccessPolicy(SafetySettings(deny=("private",)), vault=linked_vault)

    with pytest.raises(AccessDenied, match=r"Public/alias\.md"):
        policy.check_read("Public/alias.md")
    with pytest.raises(AccessDenied):
        policy.check_write("Public/alias.md")
    policy.check_read("Public/missing.md")  # no link on the way: the name decides


@pytest.mark.anyio
async def test_listed_paths_are_placed_through_the_links_a_walk_met(linked_vault: Path) -> None:
    policy = AccessPolicy(SafetySettings(deny=("Private",)), vault=linked_vault)
    await policy.refresh_links(None)

    assert not policy.allows("Public/alias.md")
    assert not policy.allows("Notes/flink.md")
    assert not policy.allows("ext/inner.md")
    assert not policy.allows("Notes/key.md")
    assert not policy.allows_folder("ext/")
    assert policy.allows("Notes/plain.md")


@pytest.mark.anyio
async def test_with_follow_all_a_link_out_of_the_vault_is_served_but_never_a_hidden_one(
    linked_vault: Path, tmp_path: Path
) -> None:
    ssh = tmp_path / "elsewhere" / ".ssh"
    ssh.mkdir()
    (linked_vault / "Notes" / "ssh").symlink_to(ssh, target_is_directory=True)
    policy = AccessPolicy(SafetySettings(deny=("Private",)), vault=linked_vault, follow="all")
    await policy.refresh_links(None)

    policy.check_read("Notes/flink.md")
    policy.check_write("ext/new.md")
    assert policy.allows("ext/inner.md")
    for path in ("Notes/ssh/id.md", "Notes/key.md"):
        with pytest.raises(LinkNotFollowed):
            policy.check_read(path)
        assert not policy.allows(path)
    with pytest.raises(AccessDenied):
        policy.check_read("Public/alias.md")


def test_follow_links_is_a_setting_with_two_values() -> None:
    assert Settings.from_env({}).vault.follow_links == "inside"
    assert Settings.from_env({"VAULTGATE_FOLLOW_LINKS": " ALL "}).vault.follow_links == "all"
    with pytest.raises(ConfigError, match="VAULTGATE_FOLLOW_LINKS must be one of inside, all"):
        Settings.from_env({"VAULTGATE_FOLLOW_LINKS": "yes"})


# --- a search's many paths at once --------------------------------------------------------

MANY_PATHS = [
    "Notes/plain.md",
    ".obsidian/app.json",
    "Notes/.hidden/x.md",
    f"Projects/{CAFE_NFD}/menu.md",
    "Private/secret.md",
    "private/Diary 📓 #1 100%.md",
    "日本語/メモ.md",
    "Public/alias.md",
    "Notes/flink.md",
    "ext/inner.md",
    "Notes/key.md",
    "Notes/.md",
    "a.b/c.md",
]


@pytest.mark.anyio
@pytest.mark.parametrize(
    "safety",
    [
        pytest.param(SafetySettings(), id="no rules"),
        pytest.param(SafetySettings(deny=("Private",)), id="deny"),
        pytest.param(SafetySettings(allow=("Notes", "日本語")), id="allow"),
    ],
)
@pytest.mark.parametrize("with_links", [False, True], ids=["by name", "through the links"])
async def test_a_search_s_paths_are_refused_as_each_would_be(
    linked_vault: Path, safety: SafetySettings, with_links: bool
) -> None:
    policy = AccessPolicy(safety, vault=linked_vault)
    if with_links:
        await policy.refresh_links(None)

    refused = policy.refused(MANY_PATHS)

    assert refused == {path for path in MANY_PATHS if not policy.allows(path)}
    assert {".obsidian/app.json", "Notes/.hidden/x.md", "Notes/.md"} <= refused
    assert ("Notes/flink.md" in refused) is with_links  # a link out, seen through the walk
