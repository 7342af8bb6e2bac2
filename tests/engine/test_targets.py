"""Reading a heading, block or frontmatter field of a note's text."""

from __future__ import annotations

from vaultgate import markdown
from vaultgate.engine.targets import Target, heading_addresses, read_target

NESTED = """\
# Top

Top text.

## Child

Child text.

### Grandchild

Deep text.

## TODO/DONE

Slash heading.

## Log

Monday.

## Log

Tuesday.
"""


def test_addresses_mark_later_repeats_like_the_heading_tree() -> None:
    addresses = heading_addresses(markdown.parse_headings(NESTED))
    tree = markdown.heading_tree(NESTED)

    def walk(node: dict[str, object], prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
        found: list[tuple[str, ...]] = []
        for key, child in node.items():
            assert isinstance(child, dict)
            found.append((*prefix, key))
            found.extend(walk(child, (*prefix, key)))
        return found

    assert addresses == walk(tree, ())


def test_a_block_marker_and_content_read_keeps_the_id() -> None:
    text = "Para one ^b1\n\nnext\n"
    read = read_target(text, Target("block", name="b1"), engine=2, scope="markerAndContent")
    assert read.value == "Para one ^b1"
