"""The MCP Tools companion plugin's search route (NOTES §10), mounted only with ``extensions``.

(Its other route, ``POST /templates/execute``, lives in ``templates.py``.)

``POST /search/smart`` stands in for Smart Connections with a deterministic fake: each note
is split into blocks (the text before the first heading, then one block per heading with
its own lines), and a block scores the cosine of the query's and the block's word sets.
Results are ``{"path", "text", "score", "breadcrumbs"}``, best first, at most
``filter.limit`` (default 10), keeping paths that start with one of ``filter.folders`` and
none of ``filter.excludeFolders``.

The quirk is kept: the handler parses the body from a *string*, so a JSON body must be sent
as ``text/markdown`` (as the companion MCP server does). With ``application/json`` the
Local REST API has already parsed it into an object and validation fails with 400.
"""

from __future__ import annotations

import json
import math
import posixpath
import re
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from vaultgate import markdown
from vaultgate.emulator.context import context_of
from vaultgate.emulator.responses import json_response
from vaultgate.engine.vault import Vault

DEFAULT_LIMIT = 10
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class SmartQuery:
    query: str
    folders: tuple[str, ...] = ()
    exclude_folders: tuple[str, ...] = ()
    limit: int = DEFAULT_LIMIT


class InvalidBody(Exception):
    def __init__(self, summary: str) -> None:
        self.summary = summary
        super().__init__(summary)


def _invalid(summary: str) -> Response:
    return json_response({"error": "Invalid request body", "summary": summary}, status=400)


async def search_smart(request: Request) -> Response:
    context = context_of(request)
    content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if not content_type.startswith("text/"):
        kind = "object" if content_type in ("application/json", "") else "Buffer"
        return _invalid(f"must be a string (was {kind})")
    body = (await request.body()).decode("utf-8", "replace")
    try:
        query = parse_smart_query(body)
    except InvalidBody as exc:
        return _invalid(exc.summary)
    results = await run_in_threadpool(smart_search, context.state, query)
    return json_response({"results": results})


def parse_smart_query(body: str) -> SmartQuery:
    try:
        data = json.loads(body)
    except ValueError:
        raise InvalidBody("must be a JSON string (was string)") from None
    if not isinstance(data, dict):
        raise InvalidBody("must be an object")
    query = data.get("query")
    if not isinstance(query, str) or not query:
        raise InvalidBody("query must be a non-empty string")
    raw_filter = data.get("filter", {})
    if not isinstance(raw_filter, dict):
        raise InvalidBody("filter must be an object")
    folders = _strings(raw_filter, "folders")
    excluded = _strings(raw_filter, "excludeFolders")
    limit = raw_filter.get("limit", DEFAULT_LIMIT)
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or limit <= 0:
        raise InvalidBody("filter.limit must be a positive number")
    return SmartQuery(query, folders, excluded, math.ceil(limit))


def _strings(raw_filter: dict[str, Any], key: str) -> tuple[str, ...]:
    value = raw_filter.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidBody(f"filter.{key} must be an array of strings")
    return tuple(value)


def _words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text)}


def _blocks(text: str) -> list[tuple[tuple[str, ...], str]]:
    """(heading path, text) for the preamble and each heading's own lines."""
    start = markdown.parse_frontmatter(text).end
    headings = markdown.parse_headings(text)
    blocks: list[tuple[tuple[str, ...], str]] = []
    first = headings[0].start if headings else len(text)
    if text[start:first].strip():
        blocks.append(((), text[start:first].strip()))
    for i, heading in enumerate(headings):
        end = headings[i + 1].start if i + 1 < len(headings) else len(text)
        blocks.append((heading.path, text[heading.start : end].strip()))
    return blocks


def smart_search(state: Vault, query: SmartQuery) -> list[dict[str, Any]]:
    wanted = _words(query.query)
    if not wanted:
        return []
    scored: list[tuple[float, str, int, dict[str, Any]]] = []
    for path in state.markdown_files():
        if query.folders and not path.startswith(query.folders):
            continue
        if query.exclude_folders and path.startswith(query.exclude_folders):
            continue
        try:
            text = state.read_text(path)
        except OSError:
            continue
        trail = posixpath.splitext(path)[0].split("/")
        for position, (heading_path, block) in enumerate(_blocks(text)):
            words = _words(block)
            overlap = len(wanted & words)
            if not overlap:
                continue
            score = overlap / math.sqrt(len(wanted) * len(words))
            result = {
                "path": path,
                "text": block,
                "score": round(score, 6),
                "breadcrumbs": " > ".join([*trail, *heading_path]),
            }
            scored.append((-score, path, position, result))
    scored.sort(key=lambda item: item[:3])
    return [item[3] for item in scored[: query.limit]]
