"""``POST /search/`` (JsonLogic; DQL before 4.0), ``POST /search/simple/`` and ``GET /tags/``.

Vault-wide scans run in a worker thread so one slow search does not stall other requests.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from vaultgate.emulator.apierrors import ApiError, ErrorCode
from vaultgate.emulator.context import context_of
from vaultgate.emulator.responses import json_response
from vaultgate.engine.dql import DqlError, run_dql
from vaultgate.engine.search import jsonlogic_search, tag_counts
from vaultgate.engine.simple_search import SimpleSearchOptions, parse_int, simple_search

JSONLOGIC = "application/vnd.olrapi.jsonlogic+json"
DATAVIEW_DQL = "application/vnd.olrapi.dataview.dql+txt"


async def search(request: Request) -> Response:
    context = context_of(request)
    behaviour = context.behaviour
    content_type = request.headers.get("content-type", "")
    body = await request.body()
    query: Any = None
    if _media_type(content_type) == JSONLOGIC:
        query = _parse_json(body)  # the body parser runs (and fails) before the dispatch
    if content_type == JSONLOGIC:
        results = await run_in_threadpool(jsonlogic_search, context.state, behaviour, query)
        return json_response(results)
    if content_type == DATAVIEW_DQL and behaviour.dataview:
        text = body.decode("utf-8", "replace")
        try:
            rows = await run_in_threadpool(run_dql, context.state, text)
        except DqlError as exc:
            raise ApiError(ErrorCode.INVALID_FILTER_QUERY, detail=str(exc)) from None
        return json_response(rows)
    if not content_type or not behaviour.distinct_content_type_errors:
        raise ApiError(ErrorCode.CONTENT_TYPE_SPECIFICATION_REQUIRED)
    raise ApiError(ErrorCode.INVALID_CONTENT_TYPE)


def _media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"Unexpected token {name}")


def _parse_json(body: bytes) -> Any:
    if not body.strip():
        return {}  # body-parser leaves an empty object when there is no body
    try:
        return json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError):
        raise ApiError(ErrorCode.INVALID_CONTENT_FOR_CONTENT_TYPE) from None


async def search_simple(request: Request) -> Response:
    context = context_of(request)
    behaviour = context.behaviour
    queries = request.query_params.getlist("query")
    if len(queries) != 1:
        if behaviour.search_requires_query:
            raise ApiError(
                ErrorCode.INVALID_SEARCH, detail="A single '?query=' parameter is required."
            )
        # 3.x handed `undefined` to Obsidian, which threw
        raise ApiError(
            status=500, detail="Cannot read properties of undefined (reading 'toLowerCase')"
        )
    raw_length = request.query_params.getlist("contextLength")
    context_length = parse_int(",".join(raw_length)) if raw_length else None
    options = SimpleSearchOptions.for_version(behaviour, queries[0], context_length)
    results = await run_in_threadpool(simple_search, context.state, options)
    return json_response(results)


async def tags(request: Request) -> Response:
    context = context_of(request)
    if not context.behaviour.tags:
        raise ApiError(status=404)
    counts = await run_in_threadpool(tag_counts, context.state)
    return json_response({"tags": [{"name": name, "count": n} for name, n in counts]})
