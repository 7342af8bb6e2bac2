"""The engine's errors reach a client as the plugin's status and errorCode."""

from __future__ import annotations

import pytest

from vaultgate.emulator.apierrors import ApiError, engine_errors, from_engine
from vaultgate.engine.errors import (
    CannotReplace,
    DestinationExists,
    DiskFailed,
    EngineError,
    InvalidFrontmatter,
    InvalidQuery,
    IsAFolder,
    NotAFile,
    NotFound,
    PathRefused,
)


@pytest.mark.parametrize(
    ("error", "status", "error_code"),
    [
        pytest.param(PathRefused("../x.md"), 400, 40021, id="path-refused"),
        pytest.param(NotFound("a.md", target="Goals"), 404, 40400, id="not-found"),
        pytest.param(InvalidFrontmatter("a.md"), 400, 40005, id="invalid-frontmatter"),
        pytest.param(NotAFile("Notes/"), 405, 40510, id="not-a-file"),
        pytest.param(IsAFolder("Notes"), 500, 50000, id="is-a-folder"),
        pytest.param(DestinationExists("a.md"), 409, 40920, id="destination-exists"),
        pytest.param(CannotReplace("Notes", "move"), 500, 50020, id="cannot-replace"),
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


def test_a_folder_that_cannot_be_replaced_names_the_operation() -> None:
    assert from_engine(CannotReplace("Notes", "copy")).message.endswith(
        "\nFailed to copy file: the destination cannot be replaced."
    )
