"""Search and replace in notes, never in a note that a dry run did not list first.

A dry run lists the notes where the text (or the regex) matches: each with its number of
matches and a few before/after snippets, paged, with the exact total of notes and matches. It
remembers every note it showed for those exact arguments, and the text it saw (a digest). A
real run finds the matches again on the notes as they are now, pages them the same way, and
writes only notes that a dry run with the same arguments showed in the last ten minutes AND
that still read exactly as that dry run saw them: a note changed since is reported, never
written, and the page stops at the first note no dry run showed (saying where to look).
Each write checks once more that the note did not change while the run worked
(``rewriting.write_if_unchanged``). Notes a real run already changed are left out of later
runs with the same arguments, so a replacement that contains the text it replaces ("cat" →
"cats") is not applied twice.

Matching works on the note's exact text: offsets are Python string indexes, the replaced
spans are spliced back, and everything else (CRLF line ends, emoji, CJK) stays byte for byte.
The frontmatter block is skipped unless asked for.

Bounded work:

- A literal text is found with ``str.find`` (linear). Over more than a few notes, the plugin's
  simple search names the notes that can hold it first (every word of the text, matched
  case-insensitively: a superset of the notes holding it), so only those are read.
- A regex (Python ``re``, MULTILINE) cannot be bounded inside this process: ``re`` holds the
  GIL for the whole of a match, so a catastrophic pattern would freeze the server. Regexes run
  in a child Python process (stdlib only, started per call), fed one note at a time; its
  matching in the whole call has ``REGEX_SECONDS`` (the reading of notes in between does not
  count), and the child is killed when they run out. A regex reads at most
  ``REGEX_NOTES`` notes: narrow a larger selection with folder or pattern. The pattern is
  compiled in the child too (a 2.6 MB alternation takes seconds to compile), and is at most
  ``REGEX_CHARS`` long, checked before the child starts.
- Every note holds at most ``MAX_MATCHES`` matches, and a match may not be empty.
- A replace may not grow a note past :func:`growth_limit` (twice its length plus
  ``GROWTH_SLACK`` characters, and never past ``GROWTH_CEILING`` unless it is already
  longer): the child stops expanding matches as soon as a note passes it, so a replacement
  that multiplies its groups cannot fill the server's memory either.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
from anyio.streams.buffered import BufferedByteReceiveStream

from vaultgate import markdown
from vaultgate.backend import Backend
from vaultgate.cache import TTLCache
from vaultgate.calls import Raw, call
from vaultgate.errors import (
    AuthenticationFailed,
    InvalidArgument,
    NoteChanged,
    NotFound,
    ObsidianTimeout,
    ObsidianTLSError,
    ObsidianUnreachable,
    VaultgateError,
)
from vaultgate.paging import Page, compact_json, page_fitting, page_items
from vaultgate.paths import refuse_hidden_pattern, validate_vault_path
from vaultgate.progress import report
from vaultgate.vault.concurrent import READ_CONCURRENCY, map_bounded
from vaultgate.vault.listing import NOTE_SUFFIX, VaultLister, compile_glob
from vaultgate.vault.rewriting import fingerprint, write_if_unchanged

DRY_RUN_MEMORY_SECONDS = 600.0
MAX_LIMIT = 100
SNIPPETS_PER_NOTE = 3
SNIPPET_CONTEXT = 40  # characters each side of a match
SNIPPET_MATCH = 80  # a longer match (or replacement) is shown by its two ends
MAX_MATCHES = 100_000
PREFILTER_FROM = 20  # a literal search over more notes asks the plugin's search first
SEARCH_QUERY_CHARS = 200  # the words of a long find that the search is asked for
REGEX_NOTES = 2_000
REGEX_SECONDS = 10.0
REGEX_CHARS = 10_000
GROWTH_SLACK = 1_000_000  # characters a note may always grow by (within the ceiling)
GROWTH_CEILING = 10_000_000  # characters no replace makes a note longer than
_ANSWER_BYTES = 256 * 1024 * 1024
_STOPPING_ERRORS = (ObsidianUnreachable, ObsidianTimeout, ObsidianTLSError, AuthenticationFailed)


@dataclass(frozen=True, slots=True)
class ReplaceSpec:
    """What to replace and where; a dry run and a real run match when their specs are equal."""

    find: str
    replacement: str
    regex: bool = False
    frontmatter: bool = False  # also inside the frontmatter block
    filename: str | None = None  # one note; else every note below folder matching pattern
    folder: str = ""
    pattern: str | None = None


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    replacement: str


@dataclass(frozen=True, slots=True)
class Affected:
    """A note with matches; its spans and text are kept only for the page being answered."""

    path: str
    fingerprint: str
    matches: int
    spans: Sequence[Span] | None = None
    text: str | None = None


@dataclass(slots=True)
class RunReport:
    replaced: list[dict[str, Any]] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    unlisted_at: int | None = None  # where the first note no dry run showed now sits
    not_attempted: list[str] = field(default_factory=list)
    stopped: str | None = None

    def as_json(self, remaining: int, next_offset: int | None) -> dict[str, Any]:
        body: dict[str, Any] = {"replaced": self.replaced, "remaining": remaining}
        if next_offset is not None:
            # the notes replaced leave the list, so the next ones start where these were
            body["nextOffset"] = next_offset
        if self.changed:
            body["changed"] = {
                "paths": self.changed,
                "reason": "changed since the dry run, so not written; run dryRun=true again",
            }
        if self.failed:
            body["failed"] = self.failed
        if self.unlisted_at is not None:
            at = self.unlisted_at
            body["unlisted"] = (
                f"The notes from offset {at} on were not listed by a dry run with these "
                f"arguments, so nothing was done to them: call with dryRun=true and offset={at} "
                "to see them, then with dryRun=false and the same offset."
            )
        if self.not_attempted:
            body["notAttempted"] = self.not_attempted
        if self.stopped:
            body["stopped"] = self.stopped
        return body


class Replacer:
    """Dry runs and real runs of search-and-replace, with what each dry run showed."""

    def __init__(self, client: Backend, lister: VaultLister) -> None:
        self._client = client
        self._lister = lister
        self._shown: TTLCache[ReplaceSpec, dict[str, str]] = TTLCache(DRY_RUN_MEMORY_SECONDS, 64)
        self._done: TTLCache[ReplaceSpec, dict[str, str]] = TTLCache(DRY_RUN_MEMORY_SECONDS, 64)

    async def dry_run(
        self, spec: ReplaceSpec, *, limit: int, offset: int, budget: int
    ) -> tuple[Page[Affected], list[dict[str, Any]], int]:
        """A page of affected notes, their rendered entries, and the matches in all notes."""
        affected = await self._scan(spec, keep=range(offset, offset + limit))
        page = page_fitting(
            affected,
            limit=limit,
            offset=offset,
            budget=budget,
            render_page=lambda items: (compact_json(entry(a)) for a in items),
        )
        shown = self._shown.get(spec) or {}
        shown.update((a.path, a.fingerprint) for a in page.items)
        self._shown.put(spec, shown)
        return page, [entry(a) for a in page.items], sum(a.matches for a in affected)

    async def run(
        self, spec: ReplaceSpec, *, limit: int, offset: int
    ) -> tuple[RunReport, int, int | None]:
        """Replace in this page of affected notes: the report, how many notes still match,
        and the offset to continue at (None when nothing is left after this page).

        The page stops at the first note no dry run with these arguments showed (the model
        has not seen what would change there). The notes replaced leave the list, so the next
        page starts at ``offset`` plus the notes of this page that stay (changed, failed)."""
        self._lister.invalidate()  # decide on the vault as it is now
        affected = await self._scan(spec, keep=range(offset, offset + limit))
        page = page_items(affected, limit=limit, offset=offset)
        shown = self._shown.get(spec) or {}
        done = self._done.get(spec) or {}
        report_ = RunReport()
        processed = 0
        for index, note in enumerate(page.items):
            seen = shown.get(note.path)
            if seen is None:
                report_.unlisted_at = offset + processed - len(report_.replaced)
                break
            processed += 1
            if seen != note.fingerprint or note.text is None or note.spans is None:
                report_.changed.append(note.path)
                continue
            new = apply_spans(note.text, note.spans)
            if spec.frontmatter and _breaks_frontmatter(note.text, new):
                report_.failed.append({"path": note.path, "reason": _broken_yaml(note.path)})
                continue
            try:
                await write_if_unchanged(
                    self._client, note.path, note.text, new, what_next="Run dryRun=true again."
                )
            except NoteChanged:
                report_.changed.append(note.path)
            except _STOPPING_ERRORS as exc:
                report_.stopped = f"Stopped at {note.path!r}: {exc}"
                report_.not_attempted = [n.path for n in page.items[index + 1 :]]
                break
            except VaultgateError as exc:
                report_.failed.append({"path": note.path, "reason": str(exc)})
            else:
                report_.replaced.append({"path": note.path, "matches": note.matches})
                done[note.path] = fingerprint(new)
                shown.pop(note.path, None)
            await report(index + 1, len(page.items), f"replaced in {len(report_.replaced)}")
        self._done.put(spec, done)
        self._shown.put(spec, shown)
        self._lister.invalidate()
        remaining = len(affected) - len(report_.replaced)
        following = offset + processed - len(report_.replaced)
        if report_.stopped is not None or following >= remaining:
            return report_, remaining, None  # after a stop, a dry run says what is left
        return report_, remaining, following

    async def _scan(self, spec: ReplaceSpec, *, keep: range) -> list[Affected]:
        """Every note of the selection with matches, in path order, less those a real run
        with these arguments already changed; spans and texts are kept for those in ``keep``.

        Notes are read ``READ_CONCURRENCY`` at a time and matched in order, so no more than
        that many texts are held at once besides the page's."""
        candidates = await self._candidates(spec)
        done = self._done.get(spec) or {}
        affected: list[Affected] = []
        async with matcher_for(spec) as find:
            for first in range(0, len(candidates), READ_CONCURRENCY):
                batch = candidates[first : first + READ_CONCURRENCY]
                texts = await self._read_all(batch, named=spec.filename is not None)
                for path, text in zip(batch, texts, strict=True):
                    if text is None:
                        continue  # deleted since it was listed
                    digest = fingerprint(text)
                    if done.get(path) == digest:
                        continue
                    span = None if spec.frontmatter else markdown.frontmatter_span(text)
                    spans = await find(path, text, span[2] if span else 0)
                    if not spans:
                        continue
                    if len(affected) in keep:
                        affected.append(Affected(path, digest, len(spans), spans, text))
                    else:
                        affected.append(Affected(path, digest, len(spans)))
                done_reading = first + len(batch)
                await report(done_reading, len(candidates), f"read {done_reading} notes")
        return affected

    async def _read_all(self, paths: Sequence[str], *, named: bool) -> list[str | None]:
        """The texts of ``paths``, read at once; None for a note gone since it was listed
        (a note the model named is NotFound instead)."""

        async def read(path: str) -> str | None:
            try:
                return (await self._client.read_note(path)).content
            except NotFound:
                if named:
                    raise
                return None

        return await map_bounded(paths, read)

    async def _candidates(self, spec: ReplaceSpec) -> list[str]:
        if spec.filename is not None:
            if spec.pattern is not None or spec.folder:
                raise InvalidArgument(
                    "Give filename (one note) or folder/pattern (several), not both."
                )
            validate_vault_path(spec.filename)
            if not spec.filename.lower().endswith(NOTE_SUFFIX):
                raise InvalidArgument(f"{spec.filename!r} is not a note: replace edits .md notes.")
            return [spec.filename]
        include: Callable[[str], bool] = lambda _path: True  # noqa: E731
        if spec.pattern is not None:
            refuse_hidden_pattern(spec.pattern)
            include = compile_glob(spec.pattern)
        notes = [
            p for p in await self._lister.list_recursive(spec.folder, notes_only=True) if include(p)
        ]
        if spec.regex:
            if len(notes) > REGEX_NOTES:
                raise InvalidArgument(
                    f"A regex reads every note it may change, and this selection holds "
                    f"{len(notes):,} notes (at most {REGEX_NOTES:,}). Narrow it with folder or "
                    "pattern, or use a literal text (regex=false), which the vault's search "
                    "narrows first."
                )
            return notes
        if len(notes) > PREFILTER_FROM and spec.find.split():
            hits = await self._client.search_simple(search_words(spec.find), 0)
            holding = {hit["filename"] for hit in hits}
            notes = [p for p in notes if p in holding]
        return notes


def search_words(find: str) -> str:
    """A simple-search query that every note holding ``find`` matches, at most
    ``SEARCH_QUERY_CHARS`` long: its first words, or the start of a longer first word (a
    note holding a word holds its start too)."""
    words = find.split()
    query = words[0][:SEARCH_QUERY_CHARS]
    for word in words[1:]:
        if len(query) + 1 + len(word) > SEARCH_QUERY_CHARS:
            break
        query += " " + word
    return query


def _broken_yaml(path: str) -> str:
    change = call("set_note_property", filename=path, key=Raw("<key>"), value=Raw("<value>"))
    return (
        "the replacement would leave its frontmatter unreadable YAML, so it was not written; "
        f"change the property with {change} instead"
    )


def _breaks_frontmatter(old: str, new: str) -> bool:
    """Would replacing inside the frontmatter turn readable YAML into unreadable YAML?"""
    return markdown.parse_frontmatter(old).valid and not markdown.parse_frontmatter(new).valid


def entry(note: Affected) -> dict[str, Any]:
    """A dry run's line for one note: its matches and the first few, before and after."""
    text, spans = note.text or "", note.spans or ()
    return {
        "path": note.path,
        "matches": note.matches,
        "snippets": [snippet(text, span) for span in spans[:SNIPPETS_PER_NOTE]],
    }


def snippet(text: str, span: Span) -> dict[str, Any]:
    start = max(0, span.start - SNIPPET_CONTEXT)
    end = min(len(text), span.end + SNIPPET_CONTEXT)
    lead = ("…" if start > 0 else "") + text[start : span.start]
    tail = text[span.end : end] + ("…" if end < len(text) else "")
    return {
        "line": text.count("\n", 0, span.start) + 1,
        "before": lead + _shortened(text[span.start : span.end]) + tail,
        "after": lead + _shortened(span.replacement) + tail,
    }


def _shortened(part: str) -> str:
    if len(part) <= SNIPPET_MATCH:
        return part
    half = SNIPPET_MATCH // 2
    return f"{part[:half]}…[{len(part):,} chars]…{part[-half:]}"


def apply_spans(text: str, spans: Sequence[Span]) -> str:
    pieces: list[str] = []
    at = 0
    for span in spans:
        pieces += (text[at : span.start], span.replacement)
        at = span.end
    pieces.append(text[at:])
    return "".join(pieces)


# --- matching -------------------------------------------------------------------------------


class Find(Protocol):
    async def __call__(self, path: str, text: str, start: int) -> list[Span]: ...


def check_pattern(spec: ReplaceSpec) -> None:
    """What can be checked of a regex without compiling it: its length. Compiling is the
    child's (a long alternation keeps ``re.compile`` busy for seconds, holding the GIL)."""
    if len(spec.find) > REGEX_CHARS:
        raise InvalidArgument(
            f"The regex is {len(spec.find):,} characters long, more than the {REGEX_CHARS:,} a "
            "regex may have. Split it into several replaces, or use a literal text "
            "(regex=false) for each word."
        )


@asynccontextmanager
async def matcher_for(spec: ReplaceSpec) -> AsyncIterator[Find]:
    if not spec.find:
        raise InvalidArgument("find is empty: give the text (or regex) to replace.")
    if not spec.regex:
        yield _literal(spec.find, spec.replacement)
        return
    check_pattern(spec)
    async with _regex_worker(spec.find, spec.replacement) as find:
        yield find


def _literal(find: str, replacement: str) -> Find:
    async def spans(path: str, text: str, start: int) -> list[Span]:
        found: list[Span] = []
        at = text.find(find, start)
        while at != -1:
            if len(found) == MAX_MATCHES:
                raise _too_many(path)
            found.append(Span(at, at + len(find), replacement))
            at = text.find(find, at + len(find))
        grown = len(text) + len(found) * (len(replacement) - len(find))
        if grown > growth_limit(len(text)):
            raise _too_big(path, len(text), grown)
        return found

    return spans


def _too_many(path: str) -> InvalidArgument:
    return InvalidArgument(
        f"{path!r} holds more than {MAX_MATCHES:,} matches: make find more specific, or edit "
        "that note by hand."
    )


def growth_limit(length: int) -> int:
    """The most characters a replace may leave in a note of ``length`` characters: twice its
    length plus ``GROWTH_SLACK``, at most ``GROWTH_CEILING``, and never less than it holds."""
    return max(length, min(2 * length + GROWTH_SLACK, GROWTH_CEILING))


def _too_big(path: str, length: int, grown: int | None) -> InvalidArgument:
    limit = growth_limit(length)
    reached = f"to {grown:,} characters" if grown is not None else f"past {limit:,} characters"
    return InvalidArgument(
        f"The replacement would grow {path!r} from {length:,} {reached}, more than the "
        f"{limit:,} a replace may leave in it (twice its length plus {GROWTH_SLACK:,}, at most "
        f"{GROWTH_CEILING:,} characters). Nothing was written: use a shorter replacement, fewer "
        "groups in it, or a more specific find."
    )


# The child: stdlib only, so it starts in isolated mode without site-packages (~20 ms). It
# compiles the pattern and answers the first line with what it found wrong, then one line
# per note. It keeps the note's grown length as it expands matches, and stops at the limit
# the server sent, so no answer is bigger than the note may become.
_WORKER = r"""
import json, re, sys
setup = json.loads(sys.stdin.readline())
try:
    pattern = re.compile(setup["pattern"], setup["flags"])
except (re.error, OverflowError, RecursionError, MemoryError) as exc:
    sys.stdout.write(json.dumps({"invalid": str(exc)}) + "\n")
    sys.exit()
empty = pattern.fullmatch("") is not None
sys.stdout.write(json.dumps({"emptyMatch": True} if empty else {"ready": True}) + "\n")
sys.stdout.flush()
for line in sys.stdin:
    job = json.loads(line)
    spans, answer, grown = [], None, len(job["text"])
    try:
        for m in pattern.finditer(job["text"], job["start"]):
            if m.start() == m.end():
                answer = {"empty": m.start()}
                break
            if len(spans) == setup["limit"]:
                answer = {"tooMany": True}
                break
            expanded = m.expand(setup["replacement"])
            grown += len(expanded) - (m.end() - m.start())
            if grown > job["most"]:
                answer = {"tooBig": True}
                break
            spans.append([m.start(), m.end(), expanded])
    except (re.error, IndexError) as exc:
        answer = {"error": str(exc)}
    sys.stdout.write(json.dumps(answer or {"spans": spans}) + "\n")
    sys.stdout.flush()
"""


@asynccontextmanager
async def _regex_worker(pattern: str, replacement: str) -> AsyncIterator[Find]:
    try:
        process = await anyio.open_process(
            [sys.executable, "-I", "-S", "-c", _WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError as exc:
        raise InvalidArgument(
            f"A regex runs in a separate Python process, which could not start here ({exc}). "
            "Use a literal text (regex=false) instead."
        ) from exc
    assert process.stdin is not None
    assert process.stdout is not None
    answers = BufferedByteReceiveStream(process.stdout)
    spent = 0.0  # the worker's time only: reading notes between jobs does not count
    setup = {
        "pattern": pattern,
        "flags": re.MULTILINE,
        "replacement": replacement,
        "limit": MAX_MATCHES,
    }

    async def ask(job: dict[str, Any] | None, where: str) -> dict[str, Any]:
        """The child's answer to ``job`` (None: the answer to the setup), in the time left."""
        nonlocal spent
        assert process.stdin is not None
        started = anyio.current_time()
        try:
            with anyio.fail_after(max(0.0, REGEX_SECONDS - spent)):
                if job is not None:
                    await process.stdin.send(json.dumps(job).encode("ascii") + b"\n")
                line = await answers.receive_until(b"\n", _ANSWER_BYTES)
        except TimeoutError:
            raise InvalidArgument(
                f"The regex ran for more than {REGEX_SECONDS:g} s ({where}) and was stopped. "
                "Patterns with nested repeats such as (a+)+ or (.*)* can take forever on some "
                "text: simplify it, or narrow the notes with filename, folder or pattern."
            ) from None
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError) as exc:
            raise InvalidArgument(
                f"The regex could not be run ({where}: its worker process ended). "
                "Simplify the regex or narrow the notes."
            ) from exc
        finally:
            spent += anyio.current_time() - started
        answer: dict[str, Any] = json.loads(line)
        return answer

    async def spans(path: str, text: str, start: int) -> list[Span]:
        job = {"text": text, "start": start, "most": growth_limit(len(text))}
        return _spans_from(path, len(text), await ask(job, f"stopped at {path!r}"))

    try:
        await process.stdin.send(json.dumps(setup).encode("ascii") + b"\n")
        _check_compiled(pattern, await ask(None, "compiling it"))
        yield spans
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                process.kill()
            await process.wait()
            await process.aclose()


def _check_compiled(pattern: str, answer: dict[str, Any]) -> None:
    if "invalid" in answer:
        raise InvalidArgument(
            f"find is not a valid Python regex ({answer['invalid']}). Escape special characters "
            "with '\\', or pass regex=false to replace the text as it is."
        )
    if "emptyMatch" in answer:
        raise InvalidArgument(
            f"The regex {pattern!r} matches an empty string, so it would insert the "
            "replacement everywhere. Make it match at least one character."
        )


def _spans_from(path: str, length: int, answer: dict[str, Any]) -> list[Span]:
    if "error" in answer:
        raise InvalidArgument(
            f"The replacement does not fit the regex ({answer['error']}): refer to groups as "
            "\\1 or \\g<name>, and write a literal backslash as \\\\."
        )
    if "empty" in answer:
        raise InvalidArgument(
            f"The regex matches an empty string in {path!r} (at character {answer['empty']}); "
            "make it match at least one character."
        )
    if "tooMany" in answer:
        raise _too_many(path)
    if "tooBig" in answer:
        raise _too_big(path, length, None)
    return [Span(start, end, text) for start, end, text in answer["spans"]]
