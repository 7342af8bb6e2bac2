"""One idea, one parameter name, in every dispatcher operation and every single tool; discover
offers only what the profile offers; an old name is refused with the new one (issue 24)."""

from __future__ import annotations

import pytest

from vaultgate.config import Settings
from vaultgate.errors import InvalidArgument
from vaultgate.tools.catalogue import build_catalogue, listed_entries
from vaultgate.tools.dispatch import DISPATCHERS
from vaultgate.tools.parameters import RENAMED, refuse_unknown
from vaultgate.tools.registry import select_tools, single_tools
from vaultgate.tools.routes import tool_parameters

# idea → the one name, and the spellings it must never have. memory's session_start keeps
# `directory`: the session's working directory, not a vault folder a call is limited to.
IDEAS = {
    "the folder a call is limited to": ("folder", {"directory", "folders", "dir", "path"}),
    "the replacement text": ("replacement", {"replace", "replaceWith", "newText"}),
    "a property's key": ("key", {"property", "propertyName"}),
    "the patch operation": ("patchOperation", {"operation", "op"}),
}
MEMORY_WORKING_DIRECTORY = {"mem_session_start", "memory.session_start"}


def every_parameter_list() -> dict[str, list[str]]:
    lists = {t.__name__: tool_parameters(t) for _, specs in single_tools() for t, _ in specs}
    for dispatcher, (routes, operations) in DISPATCHERS.items():
        for operation in operations:
            lists[f"{dispatcher}.{operation}"] = [p.name for p in routes[operation].parameters]
    return lists


@pytest.mark.parametrize("idea", list(IDEAS))
def test_one_idea_has_one_name(idea: str) -> None:
    name, others = IDEAS[idea]
    users = set()
    for where, parameters in every_parameter_list().items():
        wrong = others & set(parameters)
        if where in MEMORY_WORKING_DIRECTORY:
            wrong -= {"directory"}
        assert not wrong, f"{where} names {idea} {wrong}, not {name!r}"
        users |= {where} if name in parameters else set()
    assert users  # the idea is somewhere


def test_patch_operation_and_replace_spelled_alike_everywhere() -> None:
    lists = every_parameter_list()
    assert "patchOperation" in lists["vault_edit.patch"]
    assert "patchOperation" in lists["patch_vault_file"]
    assert "replacement" in lists["vault_edit.replace"]
    assert "content" not in lists["vault_edit.replace"]
    assert lists["vault_edit.set_property"] == lists["set_note_property"]


@pytest.mark.parametrize(
    ("operation", "old", "new"),
    [
        ("vault.list", "directory", "folder"),
        ("vault_edit.bulk_delete", "directory", "folder"),
        ("vault.search_smart", "folders", "folder"),
        ("vault_edit.replace", "content", "replacement"),
        ("vault_edit.set_property", "target", "key"),
        ("vault_edit.delete_property", "target", "key"),
        ("patch_vault_file", "operation", "patchOperation"),
        ("patch_active_file", "operation", "patchOperation"),
    ],
)
def test_an_old_name_is_refused_with_the_new_one(operation: str, old: str, new: str) -> None:
    accepted = every_parameter_list()[operation]
    assert RENAMED[old] == new
    with pytest.raises(InvalidArgument, match=f"'{old}' \\(now called '{new}'\\)"):
        refuse_unknown(operation, {old: "x"}, accepted)


@pytest.mark.parametrize("guess", ["name", "property", "field"])
def test_a_property_name_is_never_taken_for_a_filename(guess: str) -> None:
    accepted = every_parameter_list()["vault_edit.set_property"]
    with pytest.raises(InvalidArgument) as refused:
        refuse_unknown("set", {"filename": "a.md", guess: "status", "value": 1}, accepted)
    assert "did you mean 'key'" in str(refused.value)


def offered(profile: str) -> tuple[set[str], list[str]]:
    settings = Settings.from_env(
        {"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": profile, "VAULTGATE_MEMORY_DB": ":memory:"}
    )
    tools = select_tools(settings)
    names = {tool.__name__ for tool, _ in tools}
    catalogue = build_catalogue(single_tools(), names)
    return names, [entry.name for entry in listed_entries(catalogue)]


@pytest.mark.parametrize("profile", ["compact", "full", "vault,get_backlinks,discover"])
def test_discover_lists_only_what_the_profile_offers(profile: str) -> None:
    names, listed = offered(profile)
    for entry in listed:
        assert entry.split(".")[0] in names, f"{profile}: discover lists {entry}"
    assert len(listed) == len(set(listed))


def test_compact_lists_operations_and_full_lists_tools() -> None:
    _, compact = offered("compact")
    _, full = offered("full")
    assert "vault.read" in compact
    assert "get_vault_file" not in compact
    assert "get_vault_file" in full
    assert "vault.read" not in full
    _, mixed = offered("vault,get_backlinks,discover")
    assert "get_backlinks" in mixed
    assert "vault.backlinks" not in mixed
    assert "vault.read" in mixed
