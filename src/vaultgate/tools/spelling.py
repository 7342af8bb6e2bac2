"""The spelling of calls in hints (vaultgate.calls) for the tools this server offers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from vaultgate.calls import render_call
from vaultgate.tools.equivalents import operation_here
from vaultgate.tools.operations import Dispatcher


@dataclass(frozen=True, slots=True)
class OfferedTools:
    """Names a single tool where it is offered, else the dispatcher operation that reaches it.

    ``dispatchers``: the profile's, by name (the default profile's and the split one's share
    names, so the server says which are in force)."""

    names: frozenset[str]
    dispatchers: Mapping[str, Dispatcher]

    def offers(self, tool: str) -> bool:
        return tool in self.names

    def call(self, tool: str, arguments: Mapping[str, object]) -> str:
        if tool in self.names:
            return render_call(tool, arguments)
        reached = self._operation(tool)
        if reached is None:
            return render_call(tool, arguments)  # offered by no tool here: say what it is
        dispatcher, operation = reached
        return render_call(dispatcher, {"operation": operation, **arguments})

    def _operation(self, tool: str) -> tuple[str, str] | None:
        """The dispatcher operation answering for ``tool``, if this server offers it."""
        offered = {name: d for name, d in self.dispatchers.items() if name in self.names}
        return operation_here(tool, offered)
