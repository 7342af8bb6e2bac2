"""The engine's errors reach a client as the plugin's status and errorCode."""

from __future__ import annotations

import pytest

from vaultgate.emulator.apierrors import ApiError, engine_errors, from_engine
from vaultgate.engine.errors import (
    DiskFailed,
    EngineError,
    InvalidFrontmatter,
    InvalidQuery,
    NotFound,
    PathRefused,
)


@pytest.mark.parametrize(
    ("error", "status", "error_code"),
    [
        pytest.param(PathRefused("../x.md"), 400, 40021, id="path-refused"),
        pytest.param(NotFound("a.md", target="Goals"), 404, 40400, id="not-found"),
        pytest.param(InvalidFrontmatter("a.md"), 400, 40005, id="invalid-frontmatter"),
        pytest.param(InvalidQuery("bad", path="a.md"), 400, 40070, id="invalid-query"),
        pytest.param(DiskFailed("a.md", "Not a directory"), 500, 50000, id="disk-failed"),
    ],
)
def test_each_engine_error_maps_to_the_plugins_answer(
    error: EngineError, status: int, error_code: int
) -> None:
    answer = from_engine(error)
    assert (answer.status, answer.error_code) == (status, error_code)


def test_a_disk_failure_gives_its_reason_on_the_second_line() -> None:
    assert from_engine(DiskFailed("a.md", "Not a directory")).message.endswith("\nNot a directory")


def test_engine_errors_leave_the_block_as_api_errors() -> None:
    with pytest.raises(ApiError) as caught, engine_errors():
        raise NotFound("a.md")
    assert isinstance(caught.value.__cause__, NotFound)
