"""What the store accepts, and in which form it keeps it: caps, redaction, normal forms, hashes.

Pure functions; every refusal is an InvalidMemoryInput whose message says what would work.
Stored text is never cut: a value over its cap is refused, so nothing is lost silently.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime

from vaultgate.calls import Raw, call
from vaultgate.errors import InvalidMemoryInput, quoted
from vaultgate.memory.models import SCOPES, Scope
from vaultgate.unicode import half_character, replace_lone_surrogates

# The documented caps (docs/tool-reference.md). Characters are Unicode code points.
MAX_CONTENT_CHARS = 100_000
MAX_TITLE_CHARS = 500
MAX_PROJECT_CHARS = 200
MAX_TYPE_CHARS = 40
MAX_TOPIC_KEY_CHARS = 120
# the ids vaultgate makes hold the project's name ('auto/<project>/<day>', '<project>/<time>-2'),
# so a session id may be longer than a project name by what those add
MAX_SESSION_ID_CHARS = MAX_PROJECT_CHARS + 64
MAX_DIRECTORY_CHARS = 4_096
MAX_QUERY_CHARS = 50_000  # a search uses its first 32 words; longer is a pasted document
MAX_ID = 2**63 - 1  # SQLite's largest INTEGER: no row can have a larger id
MAX_AGE_DAYS = 36_500  # a hundred years: older than the memory store can be

REDACTED = "[REDACTED]"
# A tag as a writer or a model may spell it: any case, spaces and line breaks inside the
# brackets, attributes (``<private reason="key">``); ``<privately>`` is not one.
_PRIVATE_TAG = re.compile(r"<\s*(/?)\s*private(?=[\s/>])[^>]*>", re.IGNORECASE)
_TYPE = re.compile(r"[a-z0-9][a-z0-9_-]*")
_SPACE = re.compile(r"\s+")
_SLUG_DROP = re.compile(r"[^a-z0-9]+")


def redact(text: str) -> tuple[str, int]:
    """Replace each ``<private>…</private>`` span by ``[REDACTED]``: tags in any case, with
    spaces or line breaks inside the brackets and any attributes (``<Private x=1>``,
    ``< PRIVATE >``, ``</private >``), spans across lines.

    Nested spans count as one; an opening tag that is never closed hides everything after it,
    so a forgotten closing tag fails closed. Returns the text and the number of spans replaced.
    """
    if "<" not in text or _PRIVATE_TAG.search(text) is None:
        return text, 0
    out: list[str] = []
    spans = 0
    depth = 0
    position = 0
    for tag in _PRIVATE_TAG.finditer(text):
        closing = tag.group(1) == "/"
        if depth == 0:
            if closing:
                continue  # a stray closing tag outside any span is ordinary text
            out.append(text[position : tag.start()])
            depth = 1
        elif closing:
            depth -= 1
            if depth == 0:
                out.append(REDACTED)
                spans += 1
                position = tag.end()
        else:
            depth += 1
    if depth > 0:
        out.append(REDACTED)
        spans += 1
    else:
        out.append(text[position:])
    return "".join(out), spans


def clean_text(name: str, value: str, *, cap: int, required: bool = True) -> tuple[str, int]:
    """Redacted, trimmed ``value``; refused when empty (if required) or over ``cap``."""
    _check_encodable(name, value)
    text, spans = redact(value)
    text = text.strip()
    if required and not text:
        raise InvalidMemoryInput(f"{name} is empty. Give it some text.")
    if len(text) > cap:
        raise InvalidMemoryInput(
            f"{name} is {len(text):,} characters long; the memory store keeps at most {cap:,} "
            f"per {name}. Nothing was saved. Split it into several observations (for example "
            "one per section), or save a shorter version."
        )
    return text, spans


def normalize_project(value: str | None) -> str:
    """Lower case, trimmed, inner runs of spaces as one: 'My Repo ' and 'my  repo' are one
    project. ``None`` or blank is the empty project."""
    if value is None:
        return ""
    _check_encodable("project", value)
    _refuse_private("project", value, "the repository's name")
    project = _SPACE.sub(" ", value).strip().lower()
    if len(project) > MAX_PROJECT_CHARS:
        raise InvalidMemoryInput(
            f"project is {len(project)} characters long; use a name of at most "
            f"{MAX_PROJECT_CHARS}, such as the repository's name."
        )
    return project


def optional_project(value: str | None) -> str | None:
    """A project filter: ``None`` (or blank) means every project."""
    if value is None or not value.strip():
        return None
    return normalize_project(value)


def normalize_type(value: str) -> str:
    kind = value.strip().lower()
    if len(kind) > MAX_TYPE_CHARS or _TYPE.fullmatch(kind) is None:
        raise InvalidMemoryInput(
            f"type {quoted(value, 60)} is not usable: use one lower-case word of letters, "
            f"digits, '-' or '_' (at most {MAX_TYPE_CHARS} characters), such as decision, "
            "bugfix, discovery, pattern, config or manual."
        )
    return kind


def normalize_scope(value: str) -> Scope:
    for scope in SCOPES:
        if value.strip().lower() == scope:
            return scope
    raise InvalidMemoryInput(f"scope must be 'project' or 'personal', not {quoted(value, 60)}.")


def normalize_topic_key(value: str | None) -> str | None:
    """Lower case, trimmed, spaces as '-'; ``None`` or blank means no topic."""
    if value is None or not value.strip():
        return None
    _check_encodable("topic_key", value)
    _refuse_private("topic_key", value, "'architecture/auth-flow'")
    key = _SPACE.sub("-", value.strip().lower())
    if len(key) > MAX_TOPIC_KEY_CHARS:
        raise InvalidMemoryInput(
            f"topic_key is {len(key)} characters long; use at most {MAX_TOPIC_KEY_CHARS}, "
            "such as 'architecture/auth-flow'."
        )
    return key


def normalize_session_id(value: str) -> str:
    _check_encodable("session_id", value)
    _refuse_private(
        "session_id",
        value,
        f"the id {call('mem_session_start', project=Raw('<project>'))} returned",
    )
    session_id = value.strip()
    if not session_id or len(session_id) > MAX_SESSION_ID_CHARS:
        raise InvalidMemoryInput(
            f"session_id must be 1 to {MAX_SESSION_ID_CHARS} characters; use the id "
            f"{call('mem_session_start', project=Raw('<project>'))} returned."
        )
    if any(ord(ch) < 32 for ch in session_id):
        raise InvalidMemoryInput("session_id must not contain control characters.")
    return session_id


def normalize_directory(value: str | None) -> str:
    """Trimmed, with ``<private>`` spans as ``[REDACTED]``: a session's working directory is
    only shown back, never looked up, so it can lose a part the way content does."""
    if value is None:
        return ""
    _check_encodable("directory", value)
    directory = redact(value)[0].strip()
    if len(directory) > MAX_DIRECTORY_CHARS:
        raise InvalidMemoryInput(f"directory is longer than {MAX_DIRECTORY_CHARS} characters.")
    return directory


def content_hash(title: str, content: str) -> str:
    """Equal for texts that differ only in case and whitespace: the 15-minute duplicate key."""
    # str.split() splits at runs of exactly the characters \s matches (str.isspace), and drops
    # them at both ends: the same text as _SPACE.sub(" ", part).strip(), in about a quarter of
    # the time (8 µs against 31 µs for a 120-word content).
    normal = "\0".join(" ".join(part.split()).casefold() for part in (title, content))
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()


def suggest_topic_key(kind: str, title: str) -> str:
    """``type/title-slug``: what to pass as topic_key to update this memory in place later."""
    slug = _SLUG_DROP.sub("-", title.lower()).strip("-")[:60].rstrip("-")
    return f"{kind}/{slug or 'topic'}"


def unique_ids(ids: Sequence[int], *, maximum: int, name: str) -> tuple[int, ...]:
    """The ids in first-seen order without repeats; refused when empty or over ``maximum``."""
    seen = tuple(dict.fromkeys(ids))
    if not seen:
        raise InvalidMemoryInput(f"{name} is empty: pass at least one observation id.")
    if len(seen) > maximum:
        raise InvalidMemoryInput(
            f"{name} has {len(seen)} ids; pass at most {maximum} per call and call again "
            "for the rest."
        )
    if any(i < 1 or i > MAX_ID for i in seen):
        raise InvalidMemoryInput(
            f"{name} must hold observation ids from 1 to {MAX_ID} such as 12; "
            f"{call('mem_search', query='')} lists the most recent, with their ids."
        )
    return seen


def check_id(observation_id: int, *, name: str = "id") -> None:
    """Refuse an id no row can have (SQLite cannot even be asked about a larger one)."""
    if not 1 <= observation_id <= MAX_ID:
        raise InvalidMemoryInput(
            f"{name} {_shown_number(observation_id)} is not an observation id: ids run from 1 "
            f"to {MAX_ID}. {call('mem_search', query='')} lists the most recent, with their ids."
        )


def parse_anchor(value: str | None, now: datetime) -> datetime:
    """A timeline's anchor (seed 002: an ISO datetime, default now), as an aware UTC time.

    ISO 8601 as Python reads it: ``2026-05-01T09:30:00Z``, with an offset (``+02:00``), or a
    date alone (its midnight); a time without an offset is UTC.
    """
    if value is None or not value.strip():
        return now.astimezone(UTC)
    try:
        moment = datetime.fromisoformat(value.strip())
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.astimezone(UTC)
    except (ValueError, OverflowError):  # OverflowError: an offset past year 1 or 9999
        raise InvalidMemoryInput(
            f"anchor {quoted(value)} is not an ISO datetime. Give one such as "
            f'"2026-05-01T09:30:00Z" (UTC), "2026-05-01T11:30:00+02:00" or "2026-05-01", or '
            "leave anchor out for now."
        ) from None


def check_days(older_than_days: int) -> None:
    """An age filter the clock can subtract: more than 0 and at most a hundred years."""
    if not 0 < older_than_days <= MAX_AGE_DAYS:
        raise InvalidMemoryInput(
            f"older_than_days must be between 1 and {MAX_AGE_DAYS:,} (a hundred years); got "
            f"{_shown_number(older_than_days)}. Try 30."
        )


def check_query(query: str) -> None:
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidMemoryInput(
            f"The search query is {len(query):,} characters long; a memory search takes at most "
            f"{MAX_QUERY_CHARS:,} and searches only its first 32 words. Pass a few distinctive "
            "words (a name, an error message, a topic), or an empty query to list the newest."
        )


def _shown_number(value: int) -> str:
    if abs(value) < 10**24:
        return str(value)
    return "a number of about " + f"{abs(value).bit_length() * 0.30103:,.0f} digits"


def parse_id_list(value: str | Sequence[int], *, name: str) -> list[int]:
    """Ids given as a list, or as the JSON text of one ("[1, 2, 3]"), as mem_compact allows."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = None
        if not isinstance(parsed, list):
            raise InvalidMemoryInput(
                f"{name} must be a JSON array of observation ids such as [12, 15, 40]; "
                f"got {value[:80]!r}."
            )
        value = parsed
    ids = list(value)
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise InvalidMemoryInput(
            f"{name} must hold whole numbers only (observation ids such as [12, 15, 40])."
        )
    return ids


def searchable(value: str) -> str:
    """A query made safe to bind: lone surrogates (undecodable input) become U+FFFD, and NUL,
    which would end FTS5's copy of the query mid-string, becomes a space (a word separator)."""
    return replace_lone_surrogates(value).replace("\0", " ")


def _refuse_private(name: str, value: str, example: str) -> None:
    """Refuse a ``<private>`` tag in a key. A key finds memories again by its exact value, so
    redacting it would file unrelated memories under one '[redacted]' key (a topic_key upsert
    would even replace one with another); and a key is shown in every answer about its
    memories. The message never repeats the value."""
    if "<" in value and _PRIVATE_TAG.search(value) is not None:
        raise InvalidMemoryInput(
            f"{name} holds a <private> tag. A {name} is a key that finds memories again and is "
            f"stored as written, so it cannot be redacted: the call was refused, nothing was "
            "stored. Use one without "
            f"private text, such as {example}, and put the private part in content, where "
            "<private>…</private> is stored as [REDACTED]."
        )


def _check_encodable(name: str, value: str) -> None:
    problem = half_character(value, name)
    if problem is not None:
        raise InvalidMemoryInput(problem)
