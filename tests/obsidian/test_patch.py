"""PatchRequest and its encoding: 1.x headers before plugin 5.0, the JSON instruction after."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

import pytest

from vaultgate.errors import InvalidArgument
from vaultgate.obsidian.features import Version
from vaultgate.obsidian.patch import encode_patch
from vaultgate.patch_request import PatchRequest

V3 = Version(3, 6, 2)
V4 = Version(4, 1, 7)
V5 = Version(5, 1, 0)

UNICODE_PATH = ("Résumé", "Ünïcode 🚀")
UNICODE_TARGET = "R%C3%A9sum%C3%A9::%C3%9Cn%C3%AFcode %F0%9F%9A%80"


def v1_headers(**changes: str | None) -> dict[str, str]:
    """The 1.x headers of an append under heading 'Plan::Goals' on 4.x, with ``changes``."""
    headers: dict[str, str | None] = {
        "Operation": "append",
        "Target-Type": "heading",
        "Target": "Plan::Goals",
        "Target-Delimiter": "::",
        "Create-Target-If-Missing": "false",
        "Content-Type": "text/markdown",
        "Markdown-Patch-Version": "1",
    }
    headers.update(changes)
    return {name: value for name, value in headers.items() if value is not None}


def request(**changes: Any) -> PatchRequest:
    values: dict[str, Any] = {
        "operation": "append",
        "target_type": "heading",
        "target": ("Plan", "Goals"),
        "content": "- ship it\n",
    }
    values.update(changes)
    return PatchRequest(**values)


# --- the 1.x header format (plugin < 5.0) -----------------------------------------------------


@pytest.mark.parametrize(
    ("patch", "version", "headers"),
    [
        pytest.param(request(), V4, v1_headers(), id="heading-4.1.7"),
        pytest.param(
            request(),
            V3,
            v1_headers(**{"Apply-If-Content-Preexists": "true"}),
            id="heading-3.6.2-allows-existing-content",
        ),
        pytest.param(
            request(),
            Version(3, 0, 1),
            v1_headers(**{"Apply-If-Content-Preexists": "true"}),
            id="heading-3.0.1",
        ),
        pytest.param(request(), Version(4, 0, 0), v1_headers(), id="heading-4.0.0"),
        pytest.param(request(), Version(4, 99, 99), v1_headers(), id="heading-last-4.x"),
        pytest.param(
            request(operation="prepend"), V4, v1_headers(Operation="prepend"), id="prepend"
        ),
        pytest.param(
            request(operation="replace"), V4, v1_headers(Operation="replace"), id="replace"
        ),
        pytest.param(
            request(target="Plan::Goals"), V4, v1_headers(), id="heading-given-as-a-string"
        ),
        pytest.param(
            request(target=("Top",)), V4, v1_headers(Target="Top"), id="top-level-heading"
        ),
        pytest.param(
            request(target=UNICODE_PATH),
            V4,
            v1_headers(Target=UNICODE_TARGET),
            id="unicode-heading-percent-encoded",
        ),
        pytest.param(
            request(target=("100% done", "a/b")),
            V4,
            v1_headers(Target="100%25 done::a/b"),
            id="percent-sign-encoded",
        ),
        pytest.param(
            request(target_type="block", target="intro"),
            V4,
            v1_headers(**{"Target-Type": "block", "Target": "intro"}),
            id="block",
        ),
        pytest.param(
            request(target_type="block", target="^intro"),
            V4,
            v1_headers(**{"Target-Type": "block", "Target": "intro"}),
            id="block-caret-dropped",
        ),
        pytest.param(
            request(target_type="frontmatter", target="clé", operation="replace"),
            V3,
            v1_headers(
                **{
                    "Operation": "replace",
                    "Target-Type": "frontmatter",
                    "Target": "cl%C3%A9",
                    "Apply-If-Content-Preexists": "true",
                }
            ),
            id="frontmatter-unicode-key",
        ),
        pytest.param(
            request(create_target_if_missing=True),
            V4,
            v1_headers(**{"Create-Target-If-Missing": "true"}),
            id="create-target",
        ),
    ],
)
def test_before_5_0_the_patch_travels_in_1x_headers(
    patch: PatchRequest, version: Version, headers: dict[str, str]
) -> None:
    sent_headers, body = encode_patch(patch, version)

    assert sent_headers == headers
    assert body == patch.content.encode("utf-8")
    assert all(value.isascii() for value in sent_headers.values())


def test_1x_targets_decode_back_to_the_heading_path() -> None:
    headers, _body = encode_patch(request(target=UNICODE_PATH), V4)

    assert unquote(headers["Target"]).split(headers["Target-Delimiter"]) == list(UNICODE_PATH)


def test_1x_markdown_body_is_utf8_text() -> None:
    _headers, body = encode_patch(request(content="Été 🚀 — done"), V3)

    assert body == "Été 🚀 — done".encode()


def test_1x_cannot_express_a_heading_containing_the_delimiter() -> None:
    with pytest.raises(InvalidArgument, match=r"contains '::'.*before plugin 5\.0"):
        encode_patch(request(target=("a::b", "c")), V4)


# --- the JSON instruction (plugin >= 5.0) ------------------------------------------------------


@pytest.mark.parametrize(
    ("patch", "instruction"),
    [
        pytest.param(
            request(),
            {
                "targetType": "heading",
                "target": ["Plan", "Goals"],
                "operation": "append",
                "content": "- ship it\n",
                "createTargetIfMissing": False,
            },
            id="heading",
        ),
        pytest.param(
            request(target="Plan::Goals", operation="prepend"),
            {
                "targetType": "heading",
                "target": ["Plan", "Goals"],
                "operation": "prepend",
                "content": "- ship it\n",
                "createTargetIfMissing": False,
            },
            id="heading-given-as-a-string",
        ),
        pytest.param(
            request(target=("a::b", "c"), operation="replace", create_target_if_missing=True),
            {
                "targetType": "heading",
                "target": ["a::b", "c"],
                "operation": "replace",
                "content": "- ship it\n",
                "createTargetIfMissing": True,
            },
            id="heading-text-with-the-delimiter",
        ),
        pytest.param(
            request(target_type="block", target="^intro"),
            {
                "targetType": "block",
                "target": "intro",
                "operation": "append",
                "content": "- ship it\n",
                "createTargetIfMissing": False,
            },
            id="block",
        ),
        pytest.param(
            request(target_type="frontmatter", target="status", content="draft"),
            {
                "targetType": "frontmatter",
                "target": "status",
                "operation": "append",
                "value": "draft",
                "createTargetIfMissing": False,
            },
            id="frontmatter-markdown-is-a-string-value",
        ),
    ],
)
def test_from_5_0_the_patch_is_a_json_instruction(
    patch: PatchRequest, instruction: dict[str, Any]
) -> None:
    headers, body = encode_patch(patch, V5)

    assert headers == {"Content-Type": "application/json"}
    assert json.loads(body) == instruction


@pytest.mark.parametrize("version", [Version(5, 0, 0), Version(5, 0, 2), V5, Version(6, 0, 0)])
def test_every_5x_version_gets_the_instruction_without_a_patch_version_header(
    version: Version,
) -> None:
    headers, body = encode_patch(request(), version)

    assert "Markdown-Patch-Version" not in headers
    assert "Target" not in headers
    assert json.loads(body)["target"] == ["Plan", "Goals"]


def test_5x_keeps_unicode_raw_in_the_json_body() -> None:
    headers, body = encode_patch(request(target=UNICODE_PATH, content="Été"), V5)

    assert all(value.isascii() for value in headers.values())
    assert "Résumé".encode() in body
    assert "Ünïcode 🚀".encode() in body
    assert b"\\u" not in body
    assert json.loads(body)["target"] == list(UNICODE_PATH)
    assert json.loads(body)["content"] == "Été"


# --- JSON content ------------------------------------------------------------------------------

JSON_VALUES = [
    pytest.param('"in progress"', "in progress", id="string"),
    pytest.param("3.5", 3.5, id="number"),
    pytest.param("-7", -7, id="integer"),
    pytest.param("true", True, id="true"),
    pytest.param("false", False, id="false"),
    pytest.param("null", None, id="null"),
    pytest.param('["a", "b"]', ["a", "b"], id="list"),
    pytest.param('{"k": {"n": 1}, "é": [true]}', {"k": {"n": 1}, "é": [True]}, id="object"),
    pytest.param('[["Chicago, IL", "16"]]', [["Chicago, IL", "16"]], id="table-rows"),
]


@pytest.mark.parametrize(("text", "value"), JSON_VALUES)
def test_json_content_on_1x_is_sent_as_json_text(text: str, value: Any) -> None:
    patch = request(target_type="frontmatter", target="k", content=text, content_type="json")

    headers, body = encode_patch(patch, V4)

    assert headers["Content-Type"] == "application/json"
    assert json.loads(body) == value
    assert body == text.encode("utf-8")


@pytest.mark.parametrize(("text", "value"), JSON_VALUES)
def test_json_content_on_5x_is_the_instruction_value(text: str, value: Any) -> None:
    patch = request(target_type="frontmatter", target="k", content=text, content_type="json")

    _headers, body = encode_patch(patch, V5)

    instruction = json.loads(body)
    assert "value" in instruction
    assert instruction["value"] == value
    assert type(instruction["value"]) is type(value)
    assert "content" not in instruction


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("draft", id="bare-word"),
        pytest.param("", id="empty"),
        pytest.param("{'k': 1}", id="single-quotes"),
        pytest.param("[1, 2", id="unclosed"),
        pytest.param("NaN", id="nan"),
        pytest.param("[Infinity]", id="infinity"),
    ],
)
def test_json_content_that_is_not_json_is_refused_with_examples(text: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        request(target_type="frontmatter", target="k", content=text, content_type="json")

    message = str(caught.value)
    assert "contentType='json'" in message
    assert '"draft" (quotes included)' in message
    assert '["a", "b"]' in message


# --- targets that cannot work ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target_type", "target"),
    [
        pytest.param("heading", (), id="no-heading"),
        pytest.param("heading", "", id="empty-heading"),
        pytest.param("heading", ("Plan", ""), id="empty-component"),
        pytest.param("heading", "Plan::", id="trailing-delimiter"),
        pytest.param("heading", ("Plan", "  "), id="blank-component"),
        pytest.param("block", "", id="empty-block"),
        pytest.param("block", "^", id="caret-only"),
        pytest.param("block", ("intro",), id="block-as-a-path"),
        pytest.param("frontmatter", " ", id="blank-key"),
        pytest.param("frontmatter", ("a", "b"), id="key-as-a-path"),
    ],
)
def test_malformed_targets_are_refused_when_the_request_is_built(
    target_type: str, target: Any
) -> None:
    with pytest.raises(InvalidArgument, match=f"Invalid {target_type} target"):
        request(target_type=target_type, target=target)


def test_a_request_is_an_immutable_value() -> None:
    patch = request()

    with pytest.raises(AttributeError):
        patch.content = "other"  # type: ignore[misc]
    assert patch == request()
    assert patch.heading_path() == ("Plan", "Goals")
