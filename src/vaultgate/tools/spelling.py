"""The spelling of calls in hints (vaultgate.calls) for the tools this server offers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from vaultgate.calls import render_call
from vaultgate.tools.dispatch import DISPATCHERS


@dataclass(frozen=True, slots=True)
class OfferedTools:
    """Names a single tool where it is offered, else the dispatcher operation that reaches it."""

    names: frozenset[str]

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
        return next(
            (
                (dispatcher, operation)
                for dispatcher, (routes, operations) in DISPATCHERS.items()
                if dispatcher in self.names
                for operation in operations
                if tool in routes[operation].single_tools
            ),
            None,
        )
