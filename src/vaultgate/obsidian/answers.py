"""Reading the plugin's JSON answers: tolerant where it is sloppy, precise where it is wrong.

Up to 5.1.0 the plugin cuts simple-search contexts by UTF-16 code units, so a context can
start or end in half an emoji, and its JSON then holds a lone surrogate escape
(``"…日本 \\ud83d"``). That is valid JSON but not valid Unicode, and a strict parser rejects
the whole answer. The standard library's reader keeps the lone half; every one is replaced
by U+FFFD before anything reaches the model.

An answer that is not JSON, or JSON of the wrong shape, raises MalformedAnswer naming what
was wrong (``[3].filename``): the connection worked, so the message never blames it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError

from vaultgate.errors import MalformedAnswer
from vaultgate.unicode import replace_lone_surrogates

_SHOWN_BODY = 60  # characters of a non-JSON body quoted in the error
# A \uD800–\uDFFF escape: the only way a JSON text can carry half a character.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")

_Model = TypeVar("_Model", bound=BaseModel)
_T = TypeVar("_T")


def scrub(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys included) replaced by U+FFFD."""
    if isinstance(value, str):
        return replace_lone_surrogates(value)
    if isinstance(value, list):
        return [scrub(item) for item in value]
    if isinstance(value, dict):
        return {scrub(key): scrub(item) for key, item in value.items()}
    return value


def load_json(response: httpx.Response, what: str) -> Any:
    """The answer's JSON, lone surrogates replaced; MalformedAnswer if it is not JSON."""
    try:
        value = json.loads(response.content)
    except ValueError as exc:  # JSONDecodeError, or bytes that are not UTF-8/16/32
        raise _not_json(response, what) from exc
    return scrub(value)


def parse_model(response: httpx.Response, model: type[_Model], what: str) -> _Model:
    """The answer as ``model``; MalformedAnswer naming the first field that does not fit."""
    return _parse(response, what, model.model_validate_json, model.model_validate)


def parse_as(response: httpx.Response, adapter: TypeAdapter[_T], what: str) -> _T:
    return _parse(response, what, adapter.validate_json, adapter.validate_python)


def _parse(
    response: httpx.Response,
    what: str,
    from_json: Callable[[bytes], _T],
    from_python: Callable[[Any], _T],
) -> _T:
    try:
        if _SURROGATE_ESCAPE.search(response.content) is None:
            # No half character can be in it: pydantic's own reader, three times faster on
            # a 10 MB search answer than reading, scrubbing and validating in two steps.
            return from_json(response.content)
        return from_python(load_json(response, what))
    except ValidationError as exc:
        if exc.errors(include_url=False)[0]["type"] == "json_invalid":
            raise _not_json(response, what) from exc
        raise MalformedAnswer(what, describe(exc)) from exc


def _not_json(response: httpx.Response, what: str) -> MalformedAnswer:
    shown = response.content[:_SHOWN_BODY].decode("utf-8", "replace")
    more = "…" if len(response.content) > _SHOWN_BODY else ""
    return MalformedAnswer(what, f"it is not JSON (it starts {shown + more!r})", foreign=True)


def describe(error: ValidationError) -> str:
    """'[3].filename: Input should be a valid string' for the first problem, and how many more."""
    problems = error.errors(include_url=False)
    first = problems[0]
    location = location_text(first["loc"]) or "the top level"
    others = len(problems) - 1
    more = f" (and {others} more {'problem' if others == 1 else 'problems'})" if others else ""
    return f"{location}: {first['msg']}{more}"


def location_text(loc: tuple[int | str, ...]) -> str:
    """('results', 3, 'filename') → 'results[3].filename'.

    pydantic also names the branch of a union it tried ('list[str]'); that is no field.
    """
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif "[" not in part:
            text += f".{part}" if text else part
    return text
