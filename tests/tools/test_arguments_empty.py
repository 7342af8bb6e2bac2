"""tools/arguments.py's empty values of a parameter the call takes: strict mode's fills of an
optional list, object or text mean absent; a value's, a required parameter's and the vault
root's stay (issue 35 item 2)."""

from __future__ import annotations

from typing import Any

import pytest

from vaultgate.tools.arguments import normalized


@pytest.mark.parametrize(
    ("accepted", "required", "arguments", "meant"),
    [
        pytest.param(["id", "ids"], [], {"id": 1, "ids": []}, {"id": 1}, id="mem_get ids=[]"),
        pytest.param(
            ["name", "arguments"],
            ["name"],
            {"name": "T.md", "arguments": {}},
            {"name": "T.md"},
            id="template arguments={}",
        ),
        pytest.param(
            ["id", "title", "content"],
            ["id"],
            {"id": 1, "title": "t", "content": ""},
            {"id": 1, "title": "t"},
            id="mem_update content=''",
        ),
        pytest.param(
            ["filename", "content"],
            ["filename", "content"],
            {"filename": "a.md", "content": ""},
            {"filename": "a.md", "content": ""},
            id="a note's empty text",
        ),
        pytest.param(
            ["filename", "key", "value"],
            ["filename", "key", "value"],
            {"filename": "a.md", "key": "k", "value": []},
            {"filename": "a.md", "key": "k", "value": []},
            id="an empty list property",
        ),
        pytest.param(["directory"], [], {"directory": ""}, {"directory": ""}, id="vault root"),
        pytest.param(
            ["query", "ids"],
            ["query"],
            {"query": "", "ids": []},
            {"query": ""},
            id="a required empty query",
        ),
    ],
)
def test_an_empty_value_means_absent_only_where_it_says_nothing(
    accepted: list[str], required: list[str], arguments: dict[str, Any], meant: dict[str, Any]
) -> None:
    assert normalized(arguments, accepted, required=required) == meant
