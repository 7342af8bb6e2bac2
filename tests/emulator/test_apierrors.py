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

from .conftest import Api


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


# --- each version's wording -----------------------------------------------------------------

NOTE = "/vault/Projects/plan.md"
BAD_TYPE_GET = ("GET", NOTE, {"Markdown-Patch-Version": "1", "Target-Type": "bogus", "Target": "A"})
BOTH_TARGETS_GET = ("GET", f"{NOTE}/heading/Plan", {"Target-Type": "heading", "Target": "Plan"})
BAD_TYPE_PATCH = (
    "PATCH",
    NOTE,
    {
        "Content-Type": "text/markdown",
        "Markdown-Patch-Version": "1",
        "Operation": "append",
        "Target-Type": "line",
        "Target": "A",
    },
)
BAD_SCOPE_PATCH = (
    "PATCH",
    NOTE,
    {
        "Content-Type": "text/markdown",
        "Markdown-Patch-Version": "1",
        "Operation": "append",
        "Target-Type": "heading",
        "Target": "Plan",
        "Target-Scope": "parent",
    },
)
NO_DESTINATION_MOVE = ("MOVE", NOTE, {})
FOUR_X_TYPE = "The 'Target-Type' header you provided was invalid."
FOUR_X_BOTH = (
    "Target type/target specified in both URL path and request headers. Use one or the other."
)
FOUR_X_SCOPE = (
    "The 'Target-Scope' header you provided was invalid. Valid values are 'content', "
    "'marker', and 'markerAndContent'."
)


# The real handlers' answers at 3.6.2 and 4.1.7 (constants.ts; differential run cases 33, 34,
# 65, 67), and 5.1.0's reworded sentences, which add where the bad value came from.
@pytest.mark.parametrize(
    ("version", "request_", "error_code", "message"),
    [
        pytest.param("3.6.2", BAD_TYPE_GET, 40054, FOUR_X_TYPE, id="3.6.2-40054-get"),
        pytest.param("3.6.2", BAD_TYPE_PATCH, 40054, FOUR_X_TYPE, id="3.6.2-40054-patch"),
        pytest.param("3.6.2", BOTH_TARGETS_GET, 42200, FOUR_X_BOTH, id="3.6.2-42200"),
        pytest.param("4.1.7", BAD_TYPE_GET, 40054, FOUR_X_TYPE, id="4.1.7-40054-get"),
        pytest.param("4.1.7", BAD_TYPE_PATCH, 40054, FOUR_X_TYPE, id="4.1.7-40054-patch"),
        pytest.param("4.1.7", BOTH_TARGETS_GET, 42200, FOUR_X_BOTH, id="4.1.7-42200"),
        pytest.param("4.1.7", BAD_SCOPE_PATCH, 40059, FOUR_X_SCOPE, id="4.1.7-40059"),
        pytest.param(
            "4.1.7",
            NO_DESTINATION_MOVE,
            40020,
            "Destination header is required for MOVE operations.",
            id="4.1.7-40020",
        ),
        pytest.param(
            "5.1.0",
            BAD_TYPE_PATCH,
            40054,
            "The target type you specified was invalid. Valid target types are 'heading', "
            "'block', and 'frontmatter'.",
            id="5.1.0-40054-patch",
        ),
        pytest.param(
            "5.1.0",
            NO_DESTINATION_MOVE,
            40020,
            "Destination header is required for MOVE and COPY operations.",
            id="5.1.0-40020",
        ),
    ],
)
@pytest.mark.anyio
async def test_each_version_answers_in_its_own_words(
    api: Api,
    version: str,
    request_: tuple[str, str, dict[str, str]],
    error_code: int,
    message: str,
) -> None:
    method, url, headers = request_
    async with api(version) as http:
        response = await http.request(method, url, content=b"x", headers=headers)
    assert response.status_code == error_code // 100
    assert response.json() == {"message": message, "errorCode": error_code}
