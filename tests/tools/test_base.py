"""model_facing_errors: our errors as they are, anything else as a described internal error."""

from __future__ import annotations

import logging

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from vaultgate.errors import InvalidArgument
from vaultgate.tools.base import INTERNAL_ERROR, model_facing_errors

pytestmark = pytest.mark.anyio


@model_facing_errors
async def failing(ctx: object, path: str, limit: int = 1, *, error: BaseException) -> str:
    raise error


async def test_our_errors_reach_the_model_as_written() -> None:
    with pytest.raises(ToolError) as caught:
        await failing(ctx=None, path="x", error=InvalidArgument("Use limit=5."))

    assert str(caught.value) == "Use limit=5."


async def test_a_tool_error_passes_through_untouched() -> None:
    with pytest.raises(ToolError, match=r"^already said$"):
        await failing(ctx=None, path="x", error=ToolError("already said"))


async def test_an_unexpected_exception_is_an_internal_error_with_its_type_and_call(
    caplog: pytest.LogCaptureFixture,
) -> None:
    secret_value = "s3cret-argument-value"
    with (
        caplog.at_level(logging.ERROR, logger="vaultgate.tools"),
        pytest.raises(ToolError) as caught,
    ):
        await failing(ctx=None, path=secret_value, limit=3, error=OverflowError("too big"))

    message = str(caught.value)
    assert message.startswith(INTERNAL_ERROR)
    assert "OverflowError" in message
    assert "failing(path=..., limit=..., error=...)" in message
    assert "bug" in message
    assert secret_value not in message
    assert caplog.records[0].exc_info is not None  # the traceback goes to the log
