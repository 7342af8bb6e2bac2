"""Note JSON and document maps, asked of the engine directly."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultgate.engine.behaviour import Behaviour
from vaultgate.engine.errors import InvalidFrontmatter
from vaultgate.engine.representations import document_map, note_json
from vaultgate.engine.vault import Vault

V5 = Behaviour.for_version("5.1.0")


def test_the_map_takes_the_shape_of_the_patch_format(vault: Path) -> None:
    state = Vault(vault)
    assert document_map(state, V5, "Projects/plan.md", version=1)["headings"] == [
        "Plan",
        "Plan::Goals",
    ]
    assert document_map(state, V5, "Projects/plan.md", version=2)["headings"] == {
        "Plan": {"Goals": {}}
    }


def test_broken_frontmatter_has_no_map_from_4_1_5(vault: Path) -> None:
    (vault / "broken.md").write_text("---\nkey: [unclosed\n---\n# Body\n", encoding="utf-8")
    state = Vault(vault)
    with pytest.raises(InvalidFrontmatter):
        document_map(state, V5, "broken.md", version=2)
    older = document_map(state, Behaviour.for_version("4.1.4"), "broken.md", version=1)
    assert older["headings"] == ["Body"]


def test_note_json_links_both_ways(vault: Path) -> None:
    welcome = note_json(Vault(vault), "Welcome.md", V5)
    assert welcome["links"] == ["Projects/plan.md"]
    assert welcome["tags"] == ["project"]
    plan = note_json(Vault(vault), "Projects/plan.md", V5)
    assert plan["backlinks"] == ["Welcome.md"]
    assert plan["frontmatter"] == {"status": "active"}
