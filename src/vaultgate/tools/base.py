"""What every tool adapter shares: reaching the state, turning our errors into ToolErrors,
and shaping results into MCP content blocks."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeAlias, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import TextContent, ToolAnnotations

from vaultgate.errors import VaultgateError
from vaultgate.paging import ANSWER_CAP, Window
from vaultgate.state import AppState

log = logging.getLogger("vaultgate.tools")

P = ParamSpec("P")
R = TypeVar("R")

ToolContext: TypeAlias = Context[AppState, Any]
Blocks: TypeAlias = list[TextContent]

# A page keeps the item count it was asked (the seeds' defaults: 100 files, 20 results, 50
# rows) within ANSWER_CAP characters; its items get that less what the envelope (pagination,
# a notice) may take. Pages whose items can be shortened (search contexts, query rows) aim for
# the seed's ~5 KB first (paging.shorten_to_fit).
ENVELOPE_RESERVE = 600


def items_budget(response_budget: int = ANSWER_CAP) -> int:
    return response_budget - ENVELOPE_RESERVE


READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)
# An Obsidian command can do anything a plugin can, deleting notes or reaching the network.
ANYTHING = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=True)

# A tool function and its annotations; server.py registers the read-only ones always and the
# others unless VAULTGATE_READ_ONLY is set.
ToolFunction: TypeAlias = Callable[..., Awaitable[Blocks]]
ToolSpec: TypeAlias = tuple[ToolFunction, ToolAnnotations]


def titled(hints: ToolAnnotations, title: str) -> ToolAnnotations:
    """``hints`` with the human-readable title a host shows for the tool."""
    return hints.model_copy(update={"title": title})


def app_state(ctx: ToolContext) -> AppState:
    return ctx.request_context.lifespan_context


def model_facing_errors(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Our errors carry messages written for the model: hand them over as ToolErrors.

    Anything else is a bug. Rather than the SDK's bare "Error executing tool X", the model
    hears that it met an internal error, of which type, in which call, and that it is not its
    fault; the traceback goes to stderr for the bug report. Known failures must still be
    translated where they happen: tests assert that no argument reaches this net.
    """

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except VaultgateError as exc:
            raise ToolError(str(exc)) from exc
        except ToolError:
            raise  # a tool (or a dispatcher's inner tool) already spoke to the model
        except Exception as exc:
            call = _call_shape(fn.__name__, kwargs)
            log.error("internal error in %s", call, exc_info=exc)
            raise ToolError(internal_error_message(call, exc)) from exc

    return wrapper


INTERNAL_ERROR = "vaultgate hit an internal error"


def internal_error_message(call: str, exc: BaseException) -> str:
    return (
        f"{INTERNAL_ERROR} ({type(exc).__name__}) in {call}. This is a bug in vaultgate, not "
        "a mistake in your request: tell the user, so they can report it with the traceback "
        "from the server's log. Meanwhile try other arguments, or reach the goal another way."
    )


def _call_shape(name: str, kwargs: dict[str, Any]) -> str:
    """``tool(arg=..., ...)``: which arguments were given, never their values."""
    given = ", ".join(f"{key}=..." for key in kwargs if key != "ctx")
    return f"{name}({given})"


def text(value: str) -> TextContent:
    return TextContent(type="text", text=value)


def json_blocks(value: str) -> Blocks:
    """A list or search response: one compact JSON block."""
    return [text(value)]


def window_blocks(window: Window) -> Blocks:
    """A windowed read: the content alone when it all fits; else the window's text, its
    metadata, and the truncation notice when more remains (``Window.parts``)."""
    return [text(part) for part in window.parts()]
