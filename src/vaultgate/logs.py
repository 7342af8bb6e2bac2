"""Log lines never carry a secret: the formatter every handler gets once the secrets are known.

The CLI sets up logging before it reads the settings, then hands the API key and the HTTP token
to ``hide_in_logs``. Whatever logs them afterwards (our code, the SDK, httpx or httpcore, whose
debug log repeats a header value it refuses) shows ``***`` instead.

Notices: a one-off fact worth a line at the default level (WARNING) that is not a warning, such
as the vault index's first build, is logged at INFO on the ``NOTICES`` logger, which
``set_log_level`` lets through at the default level. A normal start so logs no WARNING record,
and still says what took its seconds; ``VAULTGATE_LOG_LEVEL=error`` hides notices too.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

# Secrets shorter than this are not searched for in log lines: they would match ordinary words.
# (The HTTP token must be 16 characters or more; the plugin's keys are 64.)
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"  # on stderr, every process
MIN_REDACTED_LENGTH = 6
NOTICES = "vaultgate.notice"


class RedactingFormatter(logging.Formatter):
    """Formats as ``inner`` does, then writes each secret as ``***``: a key or token never
    reaches a log line, whoever logs it (httpcore's debug log repeats a header it refuses)."""

    def __init__(self, inner: logging.Formatter, secrets: Iterable[str]) -> None:
        super().__init__()
        self._inner = inner
        forms: set[str] = set()
        for secret in secrets:
            if len(secret) < MIN_REDACTED_LENGTH:
                continue  # too short to tell from ordinary text; config refuses short tokens
            # As written, and as repr() writes it once or twice over (a quoted header value
            # inside an exception's repr): backslashes doubled, a quote maybe escaped.
            for slashes in (1, 2, 4):
                escaped = secret.replace("\\", "\\" * slashes)
                forms.update(escaped.replace("'", "\\" * quote + "'") for quote in range(4))
        self._forms = sorted(forms, key=len, reverse=True)

    def format(self, record: logging.LogRecord) -> str:
        text = self._inner.format(record)
        for form in self._forms:
            text = text.replace(form, "***")
        return text


def set_log_level(level: str | int) -> None:
    """The root logger's level; at WARNING (the default) the notices' INFO lines show too."""
    root = logging.getLogger()
    root.setLevel(level)
    shown = logging.INFO if root.level == logging.WARNING else logging.NOTSET  # NOTSET: as root
    logging.getLogger(NOTICES).setLevel(shown)


def hide_in_logs(secrets: Iterable[str]) -> None:
    """Every handler of the root logger redacts ``secrets`` from here on."""
    values = list(secrets)
    for handler in logging.getLogger().handlers:
        inner = handler.formatter or logging.Formatter()
        handler.setFormatter(RedactingFormatter(inner, values))
