"""Secrets never reach a log line, whoever logs them and however they are quoted."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from vaultgate.logs import NOTICES, RedactingFormatter, hide_in_logs, set_log_level

KEY = "9f2c" * 16
TOKEN = "it's\\a-token-0123456789"


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    formatters = [(each, each.formatter) for each in root.handlers]
    try:
        yield stream
    finally:
        for each, formatter in formatters:
            each.setFormatter(formatter)
        root.removeHandler(handler)


def test_a_secret_is_hidden_in_messages_arguments_and_tracebacks(captured: io.StringIO) -> None:
    hide_in_logs([KEY, TOKEN])
    log = logging.getLogger("httpcore.http11")
    log.warning("send_request_headers.failed %r", ValueError(f"b'Bearer {KEY}\\t'"))
    log.warning("token %s, nested %r", TOKEN, repr(TOKEN.encode()))
    try:
        raise RuntimeError(f"Illegal header value b'Bearer {KEY}'")
    except RuntimeError:
        log.exception("failed")

    text = captured.getvalue()
    assert KEY not in text
    assert TOKEN not in text
    assert "a-token" not in text  # nor its repr'd forms (backslash doubled, quote escaped)
    assert text.count("***") >= 4
    assert "Traceback" in text  # the rest of the record is kept


def test_short_values_are_not_redacted_from_ordinary_words() -> None:
    formatter = RedactingFormatter(logging.Formatter("%(message)s"), ["abc"])
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "abc def", None, None)

    assert formatter.format(record) == "abc def"


@pytest.fixture
def levels() -> Iterator[None]:
    """The root's and the notices' levels as they were, after the test."""
    root, notices = logging.getLogger(), logging.getLogger(NOTICES)
    kept = root.level, notices.level
    try:
        yield
    finally:
        root.setLevel(kept[0])
        notices.setLevel(kept[1])


@pytest.mark.parametrize(
    ("level", "shown"),
    [
        pytest.param("WARNING", ["INFO vaultgate.notice: built", "WARNING vaultgate.x: odd"]),
        pytest.param(
            "DEBUG",
            ["INFO vaultgate.notice: built", "INFO vaultgate.x: fact", "WARNING vaultgate.x: odd"],
        ),
        pytest.param("ERROR", []),
    ],
)
def test_notices_show_at_the_default_level_as_info_not_as_warnings(
    captured: io.StringIO, levels: None, level: str, shown: list[str]
) -> None:
    set_log_level(level)

    logging.getLogger(NOTICES).info("built")
    logging.getLogger("vaultgate.x").info("fact")
    logging.getLogger("vaultgate.x").warning("odd")

    assert captured.getvalue().splitlines() == shown
