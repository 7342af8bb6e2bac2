"""A small Dataview (DQL) subset for ``POST /search/`` on plugin versions before 4.0.

The plugin handed DQL to the Dataview plugin and accepted only ``TABLE`` queries that keep
the ID column. This covers what clients send in practice::

    TABLE field [AS "Header"], file.name, ...
    [FROM "folder" | #tag | -#tag | ... and/or ...]
    [WHERE expr]            expr: =, !=, <, <=, >, >=, and, or, !, (...), contains(a, b)
    [SORT field [ASC|DESC], ...]
    [LIMIT n]

Fields are frontmatter keys (exact, or Dataview's lower-case-dashed form), inline
``key:: value`` fields, ``file.name/path/folder/ext/size/tags/mtime/ctime``, and the link
fields ``file.link/inlinks/outlinks``: Dataview's Link objects as the plugin's JSON carries
them, ``{"path", "embed", "type"}``, the path resolved to the file where the link resolves
(an unresolved link keeps its text). Each row is ``{"filename": path, "result": {header:
value}}``.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vaultgate.engine.vault import NoteMeta, Vault

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<string>"(?:[^"\\]|\\.)*")
      | (?P<number>-?\d+(?:\.\d+)?(?![\w-]))
      | (?P<tag>\#[^\s,()"]+)
      | (?P<op>!=|<=|>=|=|<|>|!|\(|\)|,|-)
      | (?P<word>[\w][\w.-]*)
    )""",
    re.VERBOSE,
)
_INLINE_FIELD = re.compile(r"^\s*([\w][\w -]*?)::\s*(.*?)\s*$", re.MULTILINE)


class DqlError(Exception):
    """The query is not valid DQL, or not a kind of query the plugin accepts."""


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str
    text: str


@dataclass
class _Query:
    columns: list[tuple[str, str]] = field(default_factory=list)  # (field, header)
    source: Callable[[_Page], bool] | None = None
    where: Callable[[_Page], Any] | None = None
    sort: list[tuple[str, bool]] = field(default_factory=list)  # (field, descending)
    limit: int | None = None


@dataclass
class _Page:
    path: str
    tags: list[str]  # without '#'
    fields: dict[str, Any]
    file: dict[str, Any]

    def get(self, name: str) -> Any:
        if name.startswith("file."):
            return self.file.get(name[5:])
        if name in self.fields:
            return self.fields[name]
        wanted = _canonical(name)
        for key, value in self.fields.items():
            if _canonical(key) == wanted:
                return value
        return None


def _canonical(name: str) -> str:
    return re.sub(r"\s+", "-", name.strip().lower())


# --- parsing --------------------------------------------------------------------------------


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise DqlError(f"Dataview: Error: unexpected text at {text[pos : pos + 20]!r}")
        kind = match.lastgroup or ""
        tokens.append(_Token(kind, match.group(kind)))
        pos = match.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokenize(text)
        self.pos = 0

    def peek(self) -> _Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def keyword(self, *words: str) -> bool:
        token = self.peek()
        if token is not None and token.kind == "word" and token.text.upper() in words:
            self.pos += 1
            return True
        return False

    def expect(self, kind: str, text: str | None = None) -> _Token:
        token = self.peek()
        if token is None or token.kind != kind or (text is not None and token.text != text):
            found = "end of query" if token is None else repr(token.text)
            raise DqlError(f"Dataview: Error: expected {text or kind}, found {found}")
        self.pos += 1
        return token

    def parse(self) -> _Query:
        first = self.peek()
        if first is None or first.kind != "word":
            raise DqlError("Dataview: Error: empty query")
        if first.text.upper() != "TABLE":
            raise DqlError("Only TABLE dataview queries are supported.")
        self.pos += 1
        if self.keyword("WITHOUT"):
            raise DqlError("TABLE WITHOUT ID queries are not supported.")
        query = _Query()
        query.columns = self.columns()
        while self.peek() is not None:
            if self.keyword("FROM"):
                query.source = self.source_or()
            elif self.keyword("WHERE"):
                query.where = self.expr_or()
            elif self.keyword("SORT"):
                query.sort = self.sort_fields()
            elif self.keyword("LIMIT"):
                query.limit = int(float(self.expect("number").text))
            else:
                token = self.peek()
                raise DqlError(f"Dataview: Error: unexpected {token.text if token else ''!r}")
        return query

    def columns(self) -> list[tuple[str, str]]:
        columns: list[tuple[str, str]] = []
        while True:
            token = self.peek()
            if (
                token is None
                or token.kind != "word"
                or token.text.upper()
                in (
                    "FROM",
                    "WHERE",
                    "SORT",
                    "LIMIT",
                )
            ):
                break
            self.pos += 1
            header = token.text
            if self.keyword("AS"):
                alias = self.peek()
                if alias is None or alias.kind not in ("string", "word"):
                    raise DqlError("Dataview: Error: expected a column name after AS")
                self.pos += 1
                header = _unquote(alias.text) if alias.kind == "string" else alias.text
            columns.append((token.text, header))
            if not self.accept_op(","):
                break
        return columns

    def accept_op(self, text: str) -> bool:
        token = self.peek()
        if token is not None and token.kind == "op" and token.text == text:
            self.pos += 1
            return True
        return False

    def source_or(self) -> Callable[[_Page], bool]:
        left = self.source_and()
        while self.keyword("OR"):
            right = self.source_and()
            left = _either(left, right)
        return left

    def source_and(self) -> Callable[[_Page], bool]:
        left = self.source_atom()
        while self.keyword("AND"):
            right = self.source_atom()
            left = _both(left, right)
        return left

    def source_atom(self) -> Callable[[_Page], bool]:
        if self.accept_op("-"):
            inner = self.source_atom()
            return lambda page: not inner(page)
        if self.accept_op("("):
            inner = self.source_or()
            self.expect("op", ")")
            return inner
        token = self.peek()
        if token is not None and token.kind == "tag":
            self.pos += 1
            tag = token.text[1:]
            return lambda page: any(t == tag or t.startswith(f"{tag}/") for t in page.tags)
        if token is not None and token.kind == "string":
            self.pos += 1
            folder = _unquote(token.text).strip("/")
            return lambda page: (
                not folder
                or page.path.startswith(f"{folder}/")
                or page.path in (folder, f"{folder}.md")
            )
        raise DqlError("Dataview: Error: expected a folder in quotes or a #tag after FROM")

    def expr_or(self) -> Callable[[_Page], Any]:
        left = self.expr_and()
        while self.keyword("OR"):
            right = self.expr_and()
            left = _either(left, right)
        return left

    def expr_and(self) -> Callable[[_Page], Any]:
        left = self.expr_not()
        while self.keyword("AND"):
            right = self.expr_not()
            left = _both(left, right)
        return left

    def expr_not(self) -> Callable[[_Page], Any]:
        if self.accept_op("!"):
            inner = self.expr_not()
            return lambda page: not _truthy(inner(page))
        return self.comparison()

    def comparison(self) -> Callable[[_Page], Any]:
        left = self.primary()
        token = self.peek()
        if token is not None and token.kind == "op" and token.text in _COMPARE:
            self.pos += 1
            right = self.primary()
            compare = _COMPARE[token.text]
            return lambda page: compare(left(page), right(page))
        return left

    def primary(self) -> Callable[[_Page], Any]:
        if self.accept_op("("):
            inner = self.expr_or()
            self.expect("op", ")")
            return inner
        token = self.peek()
        if token is None:
            raise DqlError("Dataview: Error: unexpected end of query")
        self.pos += 1
        if token.kind == "string":
            value: Any = _unquote(token.text)
            return lambda page: value
        if token.kind == "number":
            number = float(token.text)
            constant = int(number) if number.is_integer() else number
            return lambda page: constant
        if token.kind == "word":
            lowered = token.text.lower()
            if lowered in ("true", "false", "null"):
                literal = {"true": True, "false": False, "null": None}[lowered]
                return lambda page: literal
            if self.accept_op("("):
                return self.call(lowered)
            name = token.text
            return lambda page: page.get(name)
        raise DqlError(f"Dataview: Error: unexpected {token.text!r}")

    def call(self, name: str) -> Callable[[_Page], Any]:
        args: list[Callable[[_Page], Any]] = []
        if not self.accept_op(")"):
            while True:
                args.append(self.expr_or())
                if self.accept_op(")"):
                    break
                self.expect("op", ",")
        if name in ("contains", "icontains") and len(args) == 2:
            fold = name == "icontains"
            haystack, needle = args
            return lambda page: _contains(haystack(page), needle(page), fold)
        if name == "length" and len(args) == 1:
            (inner,) = args
            return lambda page: _length(inner(page))
        raise DqlError(f"Dataview: Error: unknown function '{name}'")

    def sort_fields(self) -> list[tuple[str, bool]]:
        fields: list[tuple[str, bool]] = []
        while True:
            name = self.expect("word").text
            descending = False
            if self.keyword("DESC", "DESCENDING"):
                descending = True
            else:
                self.keyword("ASC", "ASCENDING")
            fields.append((name, descending))
            if not self.accept_op(","):
                return fields


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text[1:-1])


def _either(a: Callable[[_Page], Any], b: Callable[[_Page], Any]) -> Callable[[_Page], bool]:
    return lambda page: _truthy(a(page)) or _truthy(b(page))


def _both(a: Callable[[_Page], Any], b: Callable[[_Page], Any]) -> Callable[[_Page], bool]:
    return lambda page: _truthy(a(page)) and _truthy(b(page))


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "", [], {})


def _order(a: Any, b: Any) -> int | None:
    """-1/0/1, or None when the two values cannot be compared."""
    if isinstance(a, bool) or isinstance(b, bool):
        return None if type(a) is not type(b) else (a > b) - (a < b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return (a > b) - (a < b)
    if isinstance(a, str) and isinstance(b, str):
        return (a > b) - (a < b)
    return None


def _equals(a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    order = _order(a, b)
    return order == 0 if order is not None else a == b


_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "=": _equals,
    "!=": lambda a, b: not _equals(a, b),
    "<": lambda a, b: _order(a, b) == -1,
    ">": lambda a, b: _order(a, b) == 1,
    "<=": lambda a, b: _order(a, b) in (-1, 0),
    ">=": lambda a, b: _order(a, b) in (0, 1),
}


def _contains(haystack: Any, needle: Any, fold: bool) -> bool:
    if isinstance(haystack, str):
        text = str(needle)
        return text.lower() in haystack.lower() if fold else text in haystack
    if isinstance(haystack, list):
        if fold and isinstance(needle, str):
            return any(isinstance(h, str) and h.lower() == needle.lower() for h in haystack)
        return any(_equals(item, needle) for item in haystack)
    if isinstance(haystack, dict):
        return str(needle) in haystack
    return False


def _length(value: Any) -> int:
    return len(value) if isinstance(value, (str, list, dict)) else 0


# --- evaluation -----------------------------------------------------------------------------


def _link(path: str) -> dict[str, Any]:
    """Dataview's ``Link.file(path)`` as JSON.stringify writes it (undefined fields left out)."""
    return {"path": path, "embed": False, "type": "file"}


def _page(vault: Vault, path: str, backlinks: dict[str, list[str]]) -> _Page:
    meta = vault.meta(path)
    stat = vault.stat(path)
    fields: dict[str, Any] = dict(meta.frontmatter)
    for match in _INLINE_FIELD.finditer(vault.read_text(path)):
        fields.setdefault(match.group(1).strip(), _inline_value(match.group(2)))
    expanded: list[str] = []
    for tag in meta.tags:
        parts = tag.split("/")
        for i in range(1, len(parts) + 1):
            expanded.append("#" + "/".join(parts[:i]))
    folder = posixpath.dirname(path)
    file = {
        "name": posixpath.splitext(posixpath.basename(path))[0],
        "path": path,
        "folder": folder,
        "ext": posixpath.splitext(path)[1].lstrip("."),
        "size": stat.size,
        "tags": list(dict.fromkeys(expanded)),
        "mtime": _iso(stat.mtime),
        "ctime": _iso(stat.ctime),
        "link": _link(path),
        "inlinks": [_link(source) for source in backlinks.get(path, [])],
        "outlinks": [_link(target) for target in _outgoing(vault, path, meta)],
    }
    return _Page(path, list(meta.tags), fields, file)


def _outgoing(vault: Vault, path: str, meta: NoteMeta) -> list[str]:
    """Every link of the note in document order, resolved where it resolves (Dataview's
    ``file.outlinks``: each distinct link, normalised to the file's path)."""
    targets = (vault.resolve_link(link, path) or link for link in meta.link_targets)
    return list(dict.fromkeys(targets))


def _inline_value(text: str) -> Any:
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"-?\d+\.\d+", text):
        return float(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def _iso(epoch_ms: int) -> str:
    moment = dt.datetime.fromtimestamp(epoch_ms / 1000, tz=dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _sort_key(value: Any) -> tuple[int, Any]:
    if value is None:
        return (0, 0)
    if isinstance(value, bool):
        return (1, int(value))
    if isinstance(value, (int, float)):
        return (2, value)
    if isinstance(value, str):
        return (3, value)
    return (4, str(value))


def _field_sort_key(name: str) -> Callable[[_Page], tuple[int, Any]]:
    return lambda page: _sort_key(page.get(name))


def run_dql(vault: Vault, text: str) -> list[dict[str, Any]]:
    """Evaluate ``text``; DqlError when it is not a supported TABLE query."""
    query = _Parser(text).parse()
    backlinks = vault.backlinks_index()
    pages = [_page(vault, path, backlinks) for path in vault.markdown_files()]
    if query.source is not None:
        source = query.source
        pages = [page for page in pages if source(page)]
    if query.where is not None:
        where = query.where
        pages = [page for page in pages if _truthy(where(page))]
    for name, descending in reversed(query.sort):
        pages.sort(key=_field_sort_key(name), reverse=descending)
    if query.limit is not None:
        pages = pages[: query.limit]
    return [
        {"filename": page.path, "result": {header: page.get(f) for f, header in query.columns}}
        for page in pages
    ]
