"""The spelling of calls in hints (vaultgate.calls) for the tools this server offers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from vaultgate.calls import render_call
from vaultgate.tools.dispatch import DISPATCHERS
from vaultgate.tools.routes import Route


@dataclass(frozen=True, slots=True)
class OfferedTools:
    """Names a single tool where it is offered, else the dispatcher operation that reaches it."""

    names: frozenset[str]

    def offers(self, tool: str) -> bool:
        return tool in self.names

    def call(self, tool: str, arguments: Mapping[str, object]) -> str:
        if tool in self.names:
            return render_call(tool, arguments)
        reached = self._operation(tool, arguments)
        if reached is None:
            return render_call(tool, arguments)  # offered by no tool here: say what it is
        dispatcher, operation, route = reached
        to_dispatcher = {tool_name: name for name, tool_name in route.renames.items()}
        rest = {
            to_dispatcher.get(name, name): value
            for name, value in arguments.items()
            if name not in route.fixed
        }
        return render_call(dispatcher, {"operation": operation, **rest})

    def _operation(
        self, tool: str, arguments: Mapping[str, object]
    ) -> tuple[str, str, Route] | None:
        """The operation answering for ``tool``; one fixing given arguments (map) first."""
        candidates = [
            (dispatcher, operation, route)
            for dispatcher, (routes, operations) in DISPATCHERS.items()
            if dispatcher in self.names
            for operation in operations
            if tool in (route := routes[operation]).single_tools
            and all(k in arguments and arguments[k] == v for k, v in route.fixed.items())
        ]
        candidates.sort(key=lambda candidate: -len(candidate[2].fixed))
        return candidates[0] if candidates else None
