"""One idea, one parameter name, in every dispatcher operation and every single tool; discover
offers only what the profile offers; a former name answers as the canonical one (issues 24,
34)."""

from __future__ import annotations

import pytest

from vaultgate.config import Settings
from vaultgate.errors import InvalidArgument
from vaultgate.tools.arguments import normalized
from vaultgate.tools.catalogue import build_catalogue, listed_entries
from vaultgate.tools.operations import SPLIT, UNIFIED
from vaultgate.tools.parameters import refuse_unknown
from vaultgate.tools.registry import dispatcher_tools, select_tools, single_tools
from vaultgate.tools.routes import tool_parameters

# idea → the one name (seed 004's where it has one), and the spellings it must never have.
# memory's session_start's `directory` is the session's working directory: a folder too.
IDEAS = {
    "the folder a call is limited to": ("directory", {"folder", "folders", "dir", "path"}),
    "the replacement text": ("replacement", {"replace", "replaceWith", "newText"}),
    "a property's key": ("key", {"property", "propertyName"}),
    "the patch operation": ("patchOperation", {"operation", "op"}),
}


def every_parameter_list() -> dict[str, list[str]]:
    """Each single tool's parameters and each operation's of both profiles' dispatchers
    (``vault.create`` is the default profile's, ``vault_edit.create`` the split one's)."""
    lists = {t.__name__: tool_parameters(t) for _, specs in single_tools() for t, _ in specs}
    for table in (UNIFIED, SPLIT):
        for dispatcher, table_entry in table.items():
            for operation, route in table_entry.routes.items():
                lists[f"{dispatcher}.{operation}"] = [p.name for p in route.parameters]
    return lists


@pytest.mark.parametrize("idea", list(IDEAS))
def test_one_idea_has_one_name(idea: str) -> None:
    name, others = IDEAS[idea]
    users = set()
    for where, parameters in every_parameter_list().items():
        wrong = others & set(parameters)
        assert not wrong, f"{where} names {idea} {wrong}, not {name!r}"
        users |= {where} if name in parameters else set()
    assert users  # the idea is somewhere


def test_patch_operation_and_replace_spelled_alike_everywhere() -> None:
    lists = every_parameter_list()
    for dispatcher in ("vault", "vault_edit"):
        assert "patchOperation" in lists[f"{dispatcher}.patch"]
        assert "replacement" in lists[f"{dispatcher}.replace"]
        assert "content" not in lists[f"{dispatcher}.replace"]
        assert lists[f"{dispatcher}.set_property"] == lists["set_note_property"]
    assert "patchOperation" in lists["patch_vault_file"]
    assert lists["active_file.patch"] == lists["vault_edit.active_patch"]
    assert lists["active_file.patch"] == lists["patch_active_file"]


@pytest.mark.parametrize(
    ("operation", "old", "new"),
    [
        ("vault.list", "folder", "directory"),
        ("list_vault_files", "folder", "directory"),
        ("vault.bulk_delete", "folder", "directory"),
        ("vault_edit.bulk_delete", "folder", "directory"),
        ("vault.recent", "folders", "directory"),
        ("vault.replace", "content", "replacement"),
        ("vault_edit.replace", "content", "replacement"),
        ("vault.set_property", "target", "key"),
        ("vault_edit.delete_property", "target", "key"),
        ("patch_vault_file", "operation", "patchOperation"),
        ("patch_active_file", "operation", "patchOperation"),
    ],
)
def test_a_former_name_is_taken_as_the_canonical_one(operation: str, old: str, new: str) -> None:
    accepted = every_parameter_list()[operation]
    meant = normalized({old: "x"}, accepted)

    assert meant == {new: "x"}
    refuse_unknown(operation, meant, accepted)  # nothing to refuse


def test_a_former_name_beside_its_canonical_one_is_still_refused() -> None:
    accepted = every_parameter_list()["vault.list"]
    meant = normalized({"folder": "Archive", "directory": "Projects"}, accepted)

    assert meant == {"folder": "Archive", "directory": "Projects"}
    with pytest.raises(InvalidArgument, match="does not take 'folder'"):
        refuse_unknown("vault.list", meant, accepted)


@pytest.mark.parametrize("guess", ["name", "property", "field"])
def test_a_property_name_is_never_taken_for_a_filename(guess: str) -> None:
    accepted = every_parameter_list()["vault.set_property"]
    with pytest.raises(InvalidArgument) as refused:
        refuse_unknown("set", {"filename": "a.md", guess: "status", "value": 1}, accepted)
    assert "did you mean 'key'" in str(refused.value)


def offered(profile: str) -> tuple[set[str], list[str]]:
    settings = Settings.from_env(
        {"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": profile, "VAULTGATE_MEMORY_DB": ":memory:"}
    )
    tools = select_tools(settings)
    names = {tool.__name__ for tool, _ in tools}
    dispatchers = {name: tool.dispatcher for name, tool in dispatcher_tools(settings).items()}
    catalogue = build_catalogue(single_tools(), names, dispatchers)
    return names, [entry.name for entry in listed_entries(catalogue)]


@pytest.mark.parametrize(
    "profile", ["compact", "split", "full", "vault,get_backlinks,discover", "vault,vault_edit"]
)
def test_discover_lists_only_what_the_profile_offers(profile: str) -> None:
    names, listed = offered(profile)
    for entry in listed:
        assert entry.split(".")[0] in names, f"{profile}: discover lists {entry}"
    assert len(listed) == len(set(listed))


def test_compact_lists_operations_and_full_lists_tools() -> None:
    _, compact = offered("compact")
    _, split = offered("split")
    _, full = offered("full")
    assert {"vault.read", "vault.create", "active_file.read", "memory.delete"} <= set(compact)
    assert "get_vault_file" not in compact
    assert {"vault.read", "vault.active", "vault_edit.create", "memory_edit.delete"} <= set(split)
    assert not {"vault.create", "active_file.read", "memory.delete"} & set(split)
    assert "get_vault_file" in full
    assert "vault.read" not in full
    _, mixed = offered("vault,get_backlinks,discover")
    assert "get_backlinks" in mixed
    assert "vault.backlinks" not in mixed
    assert "vault.read" in mixed
