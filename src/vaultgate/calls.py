"""How a hint names a call, so that it names a call the model can make.

Errors and navigation hints are written deep below the tools (the client, the memory store),
where nothing knows which tools this server offers. They name the call they mean by its single
tool, ``call("list_vault_files", directory="Projects")``, and the spelling in force renders
it: ``list_vault_files(folder="Projects")`` where that tool is offered,
``vault(operation="list", folder="Projects")`` where only the dispatcher is. The server
puts its spelling in force around every tool call (server.py); outside one, and in tests of
the layers below, single tools are named.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol


class Raw(str):
    """An argument shown as written, not quoted: a placeholder such as ``<slug>``."""


class Spelling(Protocol):
    def offers(self, tool: str) -> bool:
        """Whether ``tool`` is a tool the model has, under its own name."""
        ...

    def call(self, tool: str, arguments: Mapping[str, object]) -> str: ...


def render_call(name: str, arguments: Mapping[str, object]) -> str:
    rendered = ", ".join(f"{key}={_value(value)}" for key, value in arguments.items())
    return f"{name}({rendered})"


def _value(value: object) -> str:
    if isinstance(value, Raw):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


class SingleTools:
    """Every tool named as itself: the full profile, and code running outside a tool call."""

    def offers(self, tool: str) -> bool:
        return True

    def call(self, tool: str, arguments: Mapping[str, object]) -> str:
        return render_call(tool, arguments)


_SINGLE_TOOLS = SingleTools()  # stateless, so one shared default is safe
_spelling: ContextVar[Spelling] = ContextVar(
    "vaultgate_call_spelling",
    default=_SINGLE_TOOLS,
)


@contextmanager
def spelled_by(spelling: Spelling) -> Iterator[None]:
    token = _spelling.set(spelling)
    try:
        yield
    finally:
        _spelling.reset(token)


def call(tool: str, /, **arguments: object) -> str:
    """The call of single tool ``tool`` with ``arguments``, as the model can make it here."""
    return _spelling.get().call(tool, arguments)


def offers(tool: str) -> bool:
    """Whether the model has ``tool`` under its own name (a seed's exact wording may apply)."""
    return _spelling.get().offers(tool)


class Later:
    """Text that names calls, spelled each time it is shown: for hints written once, at
    import, before any server exists (``str(hint)`` or an f-string renders it)."""

    def __init__(self, render: Callable[[], str]) -> None:
        self._render = render

    def __str__(self) -> str:
        return self._render()
