"""One frontmatter key changed in place: every other byte of the note stays as it was.

Setting, deleting or renaming a key, or adding or removing items of a list, rewrites only
the lines of that key (its line, and the lines its value continues on). Every other line of
the block -- comments, blank lines, quoting, list style, key order, CRLF, the ``---`` fences
-- and the body are kept byte for byte. The plugin's engines re-serialise the whole block
(``yaml.stringify``), which drops comments and restyles lines the user never touched; this
is where the emulator departs from them on purpose (docs/design.md).

- A list edited by adding items at one end or removing some keeps its style and the other
  items' bytes: ``[alpha, beta/gamma]`` becomes ``[alpha, beta/gamma, new]``; a block list
  gets a new ``- new`` line with the same indent and dash.
- Any other new value is written on the key's lines in a YAML form that reads back as that
  value, quoted only when needed (dates stay plain strings, as Obsidian writes them); a list
  follows the block's list style (inline when the block's lists are inline).
- A new key is appended at the end of the block, at the keys' indent; a note without a block
  gets one.
- Deleting the last key removes the block (the plugin does too) unless comments remain.

What cannot be changed on the key's own lines is refused with :class:`NotEditableInPlace`,
never done by re-serialising the block: a flow-style mapping block (``{a: 1}``), several YAML
documents, a key spelled twice, anchors or aliases in the key's lines. Every edit is checked
by reading the new block back: it must parse to the old mapping with just that change.

Pure: no I/O. PyYAML's pure-Python composer finds the offsets (it counts characters, CRLF
included); values are read with :func:`vaultgate.markdown.parse_frontmatter`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from vaultgate import markdown

__all__ = ["NotEditableInPlace", "delete_key", "rename_key", "set_value"]

_UNSET: Any = object()
_WIDE = 1 << 30  # never fold a long value across lines
_ITEM_PREFIX = re.compile(r"[ \t]*-[ \t]+")
_COMMENT_TAIL = re.compile(r"[ \t]+#[^\r\n]*")


class NotEditableInPlace(Exception):
    """The change cannot be made on the key's own lines; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class _Entry:
    """One top-level key: offsets into the YAML text of the block."""

    key: str | None  # None for a key that is not a scalar
    key_start: int
    key_end: int
    value: Any  # the yaml node
    value_start: int
    value_end: int
    line_start: int
    lines_end: int  # just past the line break of the value's last line


@dataclass(frozen=True, slots=True)
class _Block:
    text: str  # the note
    yaml_start: int
    yaml_end: int
    end: int  # past the closing fence line
    entries: list[_Entry]
    marked: list[int]  # offsets (in the YAML text) of anchors and aliases
    line_ending: str

    @property
    def yaml(self) -> str:
        return self.text[self.yaml_start : self.yaml_end]


# --- the three edits ------------------------------------------------------------------------


def set_value(text: str, key: str, value: Any) -> str:
    """``text`` with frontmatter ``key`` set to the JSON ``value`` (created when missing)."""
    data = _data(text)
    block = _read(text)
    expected = {**data, key: value}
    if block is None:
        le = markdown_line_ending(text)
        line = f"{_key_text(key)}:{_render(value, flow=False, dash='  - ', indent='')}"
        new = f"---{le}{_lines(line, le)}---{le}{text}"
        return _checked(new, expected, key)
    entry = _entry(block, key)
    if entry is None:
        new_yaml = block.yaml + _lines(_new_key_line(block, key, value), block.line_ending)
    else:
        _refuse_marked(block, entry, key)
        old = data.get(key, _UNSET)
        if old == value and type(old) is type(value):
            return text
        new_yaml = _replace_value(block, entry, old, value)
    return _checked(_with_yaml(block, new_yaml), expected, key)


def delete_key(text: str, key: str) -> str:
    """``text`` without frontmatter ``key``; a key that is not there changes nothing."""
    data = _data(text)
    block = _read(text)
    entry = None if block is None else _entry(block, key)
    if block is None or entry is None:
        return text
    _refuse_marked(block, entry, key)
    yaml_text = block.yaml
    rest = yaml_text[: entry.line_start] + yaml_text[entry.lines_end :]
    expected = {name: v for name, v in data.items() if name != key}
    if not rest.strip():  # nothing left, not even a comment: no empty block stays behind
        return _checked(text[block.end :], expected, key)
    return _checked(_with_yaml(block, rest), expected, key)


def rename_key(text: str, key: str, new_key: str) -> str:
    """``text`` with frontmatter ``key`` spelled ``new_key``, its value and place unchanged."""
    data = _data(text)
    block = _read(text)
    entry = None if block is None else _entry(block, key)
    if block is None or entry is None:
        raise KeyError(key)
    yaml_text = block.yaml
    new_yaml = yaml_text[: entry.key_start] + _key_text(new_key) + yaml_text[entry.key_end :]
    expected = {(new_key if name == key else name): v for name, v in data.items()}
    return _checked(_with_yaml(block, new_yaml), expected, new_key)


def markdown_line_ending(text: str) -> str:
    """The line ending a new block gets: CRLF if the note has any (as the plugin picks it)."""
    return "\r\n" if "\r\n" in text else "\n"


# --- reading the block ----------------------------------------------------------------------


def _data(text: str) -> dict[str, Any]:
    frontmatter = markdown.parse_frontmatter(text)
    if not frontmatter.valid:
        raise NotEditableInPlace(
            "The note's frontmatter is not valid YAML, so no key can be changed safely. "
            "Fix the YAML first."
        )
    return frontmatter.data


def _read(text: str) -> _Block | None:
    span = markdown.frontmatter_span(text)
    if span is None:
        return None
    import yaml  # already loaded by parse_frontmatter

    yaml_start, yaml_end, end = span
    source = text[yaml_start:yaml_end]
    try:
        documents = list(yaml.compose_all(source, Loader=yaml.SafeLoader))
        marked = [
            event.start_mark.index
            for event in yaml.parse(source, Loader=yaml.SafeLoader)
            if (isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None))
            and event.start_mark is not None
        ]
    except yaml.YAMLError as exc:
        raise NotEditableInPlace(
            f"The frontmatter cannot be edited in place ({exc.__class__.__name__}). "
            "Edit the note's text instead."
        ) from exc
    le = "\r\n" if text.startswith("---\r\n") else "\n"
    if len(documents) > 1:
        raise NotEditableInPlace(
            "The frontmatter holds several YAML documents, so a key cannot be changed in "
            "place. Edit the note's text instead, keeping one document between the fences."
        )
    root = documents[0] if documents else None
    if root is None:
        return _Block(text, yaml_start, yaml_end, end, [], marked, le)
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        raise NotEditableInPlace(
            "The frontmatter is written as one flow-style mapping ({key: value, ...}), so a "
            "key cannot be changed on its own lines. Edit the note's text instead, or rewrite "
            "the block as one 'key: value' per line first."
        )
    entries = []
    for key_node, value_node in root.value:
        value_start = value_node.start_mark.index
        value_end = max(_end(value_node, source), key_node.end_mark.index)
        line_start = source.rfind("\n", 0, key_node.start_mark.index) + 1
        if value_end > 0 and source[value_end - 1] == "\n":
            lines_end = value_end
        else:
            newline = source.find("\n", value_end)
            lines_end = len(source) if newline == -1 else newline + 1
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        entries.append(
            _Entry(
                key,
                key_node.start_mark.index,
                key_node.end_mark.index,
                value_node,
                value_start,
                value_end,
                line_start,
                lines_end,
            )
        )
    return _Block(text, yaml_start, yaml_end, end, entries, marked, le)


def _end(node: Any, source: str) -> int:
    """Where the node's own text ends: a block collection ends with its last item, not
    where the parser saw it close (after any comment lines that follow)."""
    import yaml

    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return _end(node.value[-1], source)
    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        last_key, last_value = node.value[-1]
        return max(_end(last_key, source), _end(last_value, source))
    end: int = node.end_mark.index
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        header = source[node.start_mark.index : source.find("\n", node.start_mark.index)]
        if "+" not in header:  # trailing blank lines are not the value's: leave them
            body = source[node.start_mark.index : end].rstrip(" \t\r\n")
            stop = source.find("\n", node.start_mark.index + len(body))
            end = end if stop == -1 else min(end, stop + 1)
    return end


def _entry(block: _Block, key: str) -> _Entry | None:
    found = [entry for entry in block.entries if entry.key == key]
    if len(found) > 1:
        raise NotEditableInPlace(
            f"The frontmatter spells {key!r} {len(found)} times, so which one to change is "
            "unclear. Edit the note's text to keep one of them first."
        )
    return found[0] if found else None


def _refuse_marked(block: _Block, entry: _Entry, key: str) -> None:
    if any(entry.line_start <= at < entry.lines_end for at in block.marked):
        raise NotEditableInPlace(
            f"{key!r} uses a YAML anchor or alias (& or *), which other keys may share, so it "
            "is not changed on its own. Edit the note's text instead."
        )


def _with_yaml(block: _Block, new_yaml: str) -> str:
    return block.text[: block.yaml_start] + new_yaml + block.text[block.yaml_end :]


def _checked(new: str, expected: dict[str, Any], key: str) -> str:
    after = markdown.parse_frontmatter(new)
    if not after.valid or after.data != expected:
        raise NotEditableInPlace(
            f"Changing {key!r} on its own lines would change how other frontmatter reads, so "
            "nothing was changed. Edit the note's text instead."
        )
    return new


# --- writing values -------------------------------------------------------------------------


def _replace_value(block: _Block, entry: _Entry, old: Any, value: Any) -> str:
    import yaml

    yaml_text = block.yaml
    node = entry.value
    if isinstance(node, yaml.SequenceNode) and isinstance(old, list) and isinstance(value, list):
        edited = _edit_list(block, entry, old, value)
        if edited is not None:
            return edited
    flow = node.flow_style if isinstance(node, yaml.SequenceNode) else _flow_lists(block)
    rendered = _render(value, flow=flow, dash=_dash(block, entry), indent=_indent(entry, block))
    rendered = rendered.removesuffix("\n")
    same_line = "\n" not in yaml_text[entry.key_end : entry.value_end].rstrip("\r\n")
    inline_old = (
        entry.value_start < entry.value_end
        and same_line
        and not (isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"))
    )
    if inline_old and rendered.startswith(" ") and "\n" not in rendered:
        # the value alone: the key's spacing and a trailing comment stay as they were
        return yaml_text[: entry.value_start] + rendered[1:] + yaml_text[entry.value_end :]
    tail = yaml_text[entry.value_end : entry.lines_end].rstrip("\r\n")
    comment = tail if _COMMENT_TAIL.fullmatch(tail) and "\n" not in rendered else ""
    head = yaml_text[entry.line_start : entry.key_end]
    colon = yaml_text.find(":", entry.key_end)
    line = head + yaml_text[entry.key_end : colon] + ":" + rendered + comment
    return (
        yaml_text[: entry.line_start]
        + _lines(line, block.line_ending)
        + yaml_text[entry.lines_end :]
    )


def _edit_list(block: _Block, entry: _Entry, old: list[Any], new: list[Any]) -> str | None:
    """The list edited item by item when ``new`` is ``old`` with items added at one end or
    some removed; None for any other change (the key's value is then written whole)."""
    yaml_text = block.yaml
    node = entry.value
    items = node.value
    if len(items) != len(old):
        return None
    if len(new) > len(old) and new[: len(old)] == old:
        added = new[len(old) :]
        return _insert_items(block, entry, added, at_end=True)
    if len(new) > len(old) and new[len(new) - len(old) :] == old:
        added = new[: len(new) - len(old)]
        return _insert_items(block, entry, added, at_end=False)
    gone = _removed(old, new)
    if gone is None or not new:
        return None
    spans: list[tuple[int, int]] = []
    for i in gone:
        if node.flow_style:
            start, end = items[i].start_mark.index, _end(items[i], yaml_text)
            if i + 1 < len(items):
                end = items[i + 1].start_mark.index
            elif i > 0:
                start = _end(items[i - 1], yaml_text)
        else:
            start = yaml_text.rfind("\n", 0, items[i].start_mark.index) + 1
            last = _end(items[i], yaml_text)
            end = last if yaml_text[last - 1] == "\n" else yaml_text.find("\n", last) + 1
            if end == 0:
                end = len(yaml_text)
        spans.append((start, end))
    pieces, at = [], 0
    for start, end in _merged(spans):
        pieces.append(yaml_text[at:start])
        at = end
    pieces.append(yaml_text[at:])
    return "".join(pieces)


def _removed(old: list[Any], new: list[Any]) -> list[int] | None:
    """Indexes of ``old`` whose removal leaves ``new`` (earliest matches kept), or None."""
    gone: list[int] = []
    j = 0
    for i, item in enumerate(old):
        if j < len(new) and new[j] == item and type(new[j]) is type(item):
            j += 1
        else:
            gone.append(i)
    return gone if j == len(new) and gone else None


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _insert_items(block: _Block, entry: _Entry, added: list[Any], *, at_end: bool) -> str | None:
    yaml_text = block.yaml
    node = entry.value
    items = node.value
    if not all(_is_scalar(item) for item in added):
        return None
    rendered = [_flow_scalar(item) if node.flow_style else _block_scalar(item) for item in added]
    if any("\n" in text for text in rendered):
        return None  # an item on several lines: the value is written whole
    if node.flow_style:
        if not items:
            close = node.end_mark.index - 1
            return yaml_text[: node.start_mark.index + 1] + ", ".join(rendered) + yaml_text[close:]
        if at_end:
            at = _end(items[-1], yaml_text)
            return yaml_text[:at] + "".join(", " + text for text in rendered) + yaml_text[at:]
        at = items[0].start_mark.index
        return yaml_text[:at] + "".join(text + ", " for text in rendered) + yaml_text[at:]
    if not items:
        return None
    first = items[0].start_mark.index
    first_line = yaml_text.rfind("\n", 0, first) + 1
    prefix = yaml_text[first_line:first]
    if not _ITEM_PREFIX.fullmatch(prefix):
        return None
    lines = "".join(prefix + text + block.line_ending for text in rendered)
    if not at_end:
        return yaml_text[:first_line] + lines + yaml_text[first_line:]
    last = _end(items[-1], yaml_text)
    if yaml_text[last - 1 : last] != "\n":
        newline = yaml_text.find("\n", last)
        if newline == -1:
            return None
        last = newline + 1
    return yaml_text[:last] + lines + yaml_text[last:]


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _flow_lists(block: _Block) -> bool:
    """Whether the block writes its lists inline: as its first list does."""
    import yaml

    for entry in block.entries:
        if isinstance(entry.value, yaml.SequenceNode) and entry.value.value:
            return bool(entry.value.flow_style)
    return False


def _dash(block: _Block, entry: _Entry | None) -> str:
    """The block's ``- `` item prefix, indent included (the plugin's two spaces if none)."""
    import yaml

    for candidate in ([entry] if entry is not None else []) + block.entries:
        node = candidate.value
        if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
            first = node.value[0].start_mark.index
            prefix = block.yaml[block.yaml.rfind("\n", 0, first) + 1 : first]
            key_indent = len(block.yaml[candidate.line_start : candidate.key_start])
            if _ITEM_PREFIX.fullmatch(prefix) and len(prefix) - len(prefix.lstrip()) >= key_indent:
                return prefix[key_indent:]
    return "  - "


def _indent(entry: _Entry | None, block: _Block) -> str:
    source = entry or (block.entries[0] if block.entries else None)
    return "" if source is None else block.yaml[source.line_start : source.key_start]


def _new_key_line(block: _Block, key: str, value: Any) -> str:
    indent = _indent(None, block)
    flow = _flow_lists(block)
    rendered = _render(value, flow=flow, dash=_dash(block, None), indent=indent)
    return f"{indent}{_key_text(key)}:{rendered}"


def _lines(line: str, le: str) -> str:
    """Text written with ``\\n`` as the block's line ending, ending in one."""
    return line.rstrip("\n").replace("\n", le) + le


# --- YAML forms -----------------------------------------------------------------------------


@functools.cache
def _dumper(dash: str) -> type[Any]:
    """A dumper that quotes only what our loader would misread (YAML 1.2 booleans, no
    implicit dates: ``2026-11-15`` stays plain, as Obsidian writes it), writes multi-line
    strings as ``|`` blocks, and indents list items as ``dash`` shows."""
    import yaml

    from vaultgate.markdown import _yaml_loader

    loader = _yaml_loader()
    indented = len(dash) - len(dash.lstrip()) > 0

    class _Dumper(yaml.SafeDumper):
        def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
            super().increase_indent(flow, indentless and not indented)

    _Dumper.yaml_implicit_resolvers = {
        first: list(resolvers) for first, resolvers in loader.yaml_implicit_resolvers.items()
    }

    def _str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
        style = "|" if "\n" in data.strip("\n") else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    _Dumper.add_representer(str, _str)
    return _Dumper


def _dump(data: Any, *, flow: bool | None, dash: str = "  - ") -> str:
    import yaml

    indent = max(2, min(9, len(dash) - len(dash.lstrip()) or 2))
    text: str = yaml.dump(
        data,
        Dumper=_dumper(dash),
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=flow,
        width=_WIDE,
        indent=indent,
    )
    return text


def _render(value: Any, *, flow: bool, dash: str, indent: str) -> str:
    """What follows ``key:`` for ``value``: `` scalar`` or line breaks and indented lines."""
    if flow and isinstance(value, (list, dict)):
        text = " " + _dump(value, flow=True).rstrip("\n")
    else:
        text = _dump({"k": value}, flow=False, dash=dash)[len("k:") :]
    if indent:
        text = text.replace("\n", "\n" + indent).rstrip(" \t")
    return text


def _key_text(key: str) -> str:
    text = _dump({key: None}, flow=False)
    if not text.endswith(": null\n") or text.startswith("? "):
        raise NotEditableInPlace(
            f"{key[:80]!r} cannot be written as a one-line frontmatter key. Use a shorter name "
            "on one line."
        )
    return text[: -len(": null\n")]


def _flow_scalar(value: Any) -> str:
    return _dump([value], flow=True).strip()[1:-1]


def _block_scalar(value: Any) -> str:
    return _dump([value], flow=False, dash="- ").rstrip("\n")[2:]
