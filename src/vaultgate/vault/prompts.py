"""MCP prompts made from vault notes: finding them, their arguments, rendering them.

A prompt note is a note below the prompts folder (VAULTGATE_PROMPTS_FOLDER, ``Prompts/`` by
default, subfolders included) tagged ``mcp-tools-prompt``, in its frontmatter ``tags`` or
inline as ``#mcp-tools-prompt`` (any case; not inside code). It becomes one prompt:

- **name**: the file name without ``.md``, each run of characters other than letters, digits,
  ``_``, ``-`` and ``.`` made one ``-`` (``Summarize meeting 📝.md`` → ``Summarize-meeting``),
  so that every host can name it (Claude Code turns prompts into slash commands); at most
  ``MAX_NAME_LENGTH`` characters. The file name as written is the prompt's **title**. A note
  whose name keeps no letter or digit is left out.
- **description**: frontmatter ``description`` (cut at ``MAX_DESCRIPTION_LENGTH``).
- **arguments**: the ``{{name}}`` placeholders of the body, in order of first use; one given
  a default everywhere it appears (``{{tone|friendly}}``, or ``{{tone|}}`` for an empty
  default) is optional, any other is required. Names are letters, digits, ``_`` and ``-``;
  anything else between double braces (``{{date:YYYY}}``) is text, not a placeholder. A note
  with more than ``MAX_ARGUMENTS`` different placeholders is left out (no host offers a form
  of thousands of fields, and each one would lengthen ``prompts/list``); a default is shown
  in the argument's description cut at ``MAX_DEFAULT_SHOWN`` characters.
- **text**: the body (the note without its frontmatter), each placeholder replaced by its
  argument, or by that placeholder's own default; inline ``#mcp-tools-prompt`` tags are
  removed (they mark the note for vaultgate and say nothing to the model). Values are
  inserted as given: a value holding ``{{x}}`` is not expanded again.

Two notes that come to the same name: the one nearer the prompts folder wins, then the one
whose path sorts first; the other is left out (``Catalogue.left_out`` says why, and asking
for it by name says so too). At most ``MAX_PROMPT_NOTES`` notes below the folder are read,
in path order, so that a prompts folder set to a large part of the vault stays bounded, and
the prompts offered take at most ``MAX_LIST_CHARACTERS`` of JSON in ``prompts/list`` all
together: in name order, a prompt that would pass it is left out (saying so), and the next
ones still have their chance.

A note's body longer than ``MAX_PROMPT_CHARACTERS`` is rendered up to that point (never in
the middle of a placeholder), and the text ends with a notice naming the note and where to
read on. Argument values are the client's own text and are not cut.

The catalogue is built from one listing (the lister's) and one read per note. ``prompts/list``
builds it again unless the vault's generation says nothing changed since (the folder's index,
within its watcher's delay; through the plugin alone, every list builds it); completion and
``prompts/get`` may take one built within ``LISTING_TTL_SECONDS`` (a rendered prompt reads its
note again anyway), and a write made through vaultgate (``invalidate``) makes it stale at
once. ``check`` rebuilds it from a fresh listing and says whether it differs from what was
last listed, which is what the server's ``notifications/prompts/list_changed`` announces.
Everything goes through the guarded client, so allow/deny and hidden paths apply to prompt
notes as to every read.
"""

from __future__ import annotations

import json
import logging
import re
import time
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import anyio

from vaultgate.backend import Backend
from vaultgate.calls import call
from vaultgate.change_watch import StaleHint
from vaultgate.errors import AccessDenied, InvalidArgument, NotFound, VaultgateError
from vaultgate.markdown import extract_tags, parse_frontmatter
from vaultgate.vault.concurrent import map_bounded
from vaultgate.vault.listing import LISTING_TTL_SECONDS, NOTE_SUFFIX, VaultLister

log = logging.getLogger("vaultgate.prompts")

PROMPT_TAG = "mcp-tools-prompt"
MAX_PROMPT_NOTES = 200
MAX_PROMPT_CHARACTERS = 100_000
MAX_NAME_LENGTH = 128
MAX_DESCRIPTION_LENGTH = 1_000
MAX_ARGUMENTS = 20
MAX_DEFAULT_SHOWN = 100
MAX_LIST_CHARACTERS = 100_000  # the JSON of every prompt offered, all together

# {{name}} or {{name|default}}; spaces around the name and the default are ignored.
_PLACEHOLDER = re.compile(r"\{\{[ \t]*([\w-]+)[ \t]*(?:\|([^\n]*?))?\}\}")
_NOT_IN_NAME = re.compile(r"[^\w.-]+")
# The marker tag as written inline: after a blank or the line start, not followed by more tag.
_INLINE_MARKER = re.compile(
    rf"(?:(?<=\s)|^)#{re.escape(PROMPT_TAG)}(?![\w/-])", re.MULTILINE | re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class PromptArgument:
    name: str
    required: bool
    default: str | None  # the first default written for it, shown in its description

    @property
    def description(self) -> str | None:
        if self.default is None:
            return None
        if not self.default:
            return "Default: empty"
        if len(self.default) > MAX_DEFAULT_SHOWN:
            return f"Default: {self.default[: MAX_DEFAULT_SHOWN - 1]!r}…"
        return f"Default: {self.default!r}"


@dataclass(frozen=True, slots=True)
class PromptNote:
    """One prompt: what ``prompts/list`` shows of it, and the note it comes from."""

    name: str
    title: str
    description: str | None
    arguments: tuple[PromptArgument, ...]
    path: str


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A note tagged as a prompt that is not offered, and why."""

    path: str
    name: str  # the name it would have had ('' if none)
    reason: str


@dataclass(frozen=True, slots=True)
class Catalogue:
    prompts: tuple[PromptNote, ...]
    left_out: tuple[LeftOut, ...] = ()

    def find(self, name: str) -> PromptNote | None:
        return next((p for p in self.prompts if p.name == name), None)


def listed_size(prompt: PromptNote) -> int:
    """The characters of the prompt's entry in ``prompts/list`` (its JSON, as MCP sends it)."""
    entry = {
        "name": prompt.name,
        "title": prompt.title,
        "description": prompt.description,
        "arguments": [
            {"name": a.name, "description": a.description, "required": a.required}
            for a in prompt.arguments
        ],
    }
    return len(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))


@dataclass(frozen=True, slots=True)
class RenderedPrompt:
    prompt: PromptNote
    text: str
    cut: bool  # the body was longer than MAX_PROMPT_CHARACTERS


# --- pure -----------------------------------------------------------------------------------


def prompt_name(stem: str) -> str:
    """The prompt name for a note's file name (without ``.md``): see the module docstring."""
    name = _NOT_IN_NAME.sub("-", unicodedata.normalize("NFC", stem)).strip("-")
    name = name[:MAX_NAME_LENGTH].rstrip("-")
    return name if any(ch.isalnum() for ch in name) else ""


def is_prompt_note(text: str) -> bool:
    """Is the note tagged ``mcp-tools-prompt``, in its frontmatter or inline?"""
    return any(tag.casefold() == PROMPT_TAG for tag in extract_tags(text))


def split_note(text: str) -> tuple[dict[str, object], int]:
    """The note's frontmatter (empty when absent or not YAML) and where its body starts."""
    frontmatter = parse_frontmatter(text)
    return frontmatter.data, frontmatter.end


def description_of(frontmatter: Mapping[str, object]) -> str | None:
    value = frontmatter.get("description")
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = str(value).strip()
    if not text:
        return None
    if len(text) > MAX_DESCRIPTION_LENGTH:
        return text[: MAX_DESCRIPTION_LENGTH - 1] + "…"
    return text


def parse_arguments(body: str, *, most: int | None = None) -> tuple[PromptArgument, ...]:
    """The placeholders of ``body`` as arguments, in order of first use; with ``most``, the
    scan stops at the first name past that many (enough to know there are too many)."""
    found: dict[str, PromptArgument] = {}
    for m in _PLACEHOLDER.finditer(body):
        name, default = m.group(1), m.group(2)
        default = None if default is None else default.strip()
        known = found.get(name)
        if known is None:
            found[name] = PromptArgument(name, required=default is None, default=default)
            if most is not None and len(found) > most:
                break
        elif default is None and not known.required:
            found[name] = PromptArgument(name, required=True, default=known.default)
        elif known.default is None and default is not None:
            found[name] = PromptArgument(name, required=known.required, default=default)
    return tuple(found.values())


def describe_note(path: str, text: str) -> PromptNote | LeftOut | None:
    """The prompt a note makes; None if it is not tagged; LeftOut if its name cannot be one."""
    if not is_prompt_note(text):
        return None
    stem = path.rpartition("/")[2].removesuffix(NOTE_SUFFIX)
    name = prompt_name(stem)
    if not name:
        return LeftOut(
            path,
            "",
            "its file name has no letter or digit to make a prompt name of; rename the note",
        )
    frontmatter, body_start = split_note(text)
    arguments = parse_arguments(text[body_start:], most=MAX_ARGUMENTS)
    if len(arguments) > MAX_ARGUMENTS:
        return LeftOut(
            path,
            name,
            f"it has more than {MAX_ARGUMENTS} different {{{{placeholders}}}}, the most a prompt "
            "may take; use fewer, or write the fixed ones into the text",
        )
    return PromptNote(
        name=name,
        title=stem,
        description=description_of(frontmatter),
        arguments=arguments,
        path=path,
    )


def _precedence(path: str) -> tuple[int, str, str]:
    return path.count("/"), path.casefold(), path


def build_catalogue(
    described: Iterable[PromptNote | LeftOut], *, room: int = MAX_LIST_CHARACTERS
) -> Catalogue:
    """Prompts by name, collisions settled and at most ``room`` characters of ``prompts/list``
    (see the module docstring), sorted by name."""
    prompts: dict[str, PromptNote] = {}
    left_out: list[LeftOut] = []
    for item in sorted(described, key=lambda item: _precedence(item.path)):
        if isinstance(item, LeftOut):
            left_out.append(item)
        elif (taken := prompts.get(item.name)) is not None:
            left_out.append(
                LeftOut(item.path, item.name, f"the name {item.name!r} is taken by {taken.path!r}")
            )
        else:
            prompts[item.name] = item
    offered: list[PromptNote] = []
    for prompt in sorted(prompts.values(), key=lambda p: (p.name.casefold(), p.name)):
        size = listed_size(prompt)
        if size > room:
            left_out.append(
                LeftOut(
                    prompt.path,
                    prompt.name,
                    f"prompts/list holds at most {MAX_LIST_CHARACTERS:,} characters of prompts, "
                    f"and this one's {size:,} do not fit after the prompts before it in name "
                    "order; shorten its description or arguments, or move some prompt notes out "
                    "of the prompts folder",
                )
            )
            continue
        room -= size
        offered.append(prompt)
    return Catalogue(tuple(offered), tuple(sorted(left_out, key=lambda lo: lo.path)))


def _body_cut(body: str, limit: int) -> int:
    """Where to cut ``body`` to at most ``limit`` characters, never inside a placeholder
    (a placeholder never spans lines, so only the line holding the cut can hold one)."""
    if len(body) <= limit:
        return len(body)
    for m in _PLACEHOLDER.finditer(body, body.rfind("\n", 0, limit) + 1):
        if m.start() >= limit:
            break
        if limit < m.end():
            return m.start()
    return limit


def render(
    prompt: PromptNote,
    text: str,
    arguments: Mapping[str, str] | None,
    *,
    limit: int = MAX_PROMPT_CHARACTERS,
) -> RenderedPrompt:
    """The prompt's text from its note ``text`` and ``arguments``; InvalidArgument names a
    missing required argument or one the prompt does not take."""
    given = dict(arguments or {})
    _, body_start = split_note(text)
    body = text[body_start:]
    wanted = parse_arguments(body)  # the note as read now, not as last listed
    names = [a.name for a in wanted]
    unknown = [name for name in given if name not in names]
    if unknown:
        raise InvalidArgument(
            f"Prompt {prompt.name!r} takes no argument {unknown[0]!r}; "
            + _arguments_hint(prompt, wanted)
        )
    missing = [a.name for a in wanted if a.required and a.name not in given]
    if missing:
        raise InvalidArgument(
            f"Prompt {prompt.name!r} needs the argument {missing[0]!r} (the placeholder "
            f"{{{{{missing[0]}}}}} in {prompt.path!r}). Give it a value, or write a default in "
            f"the note: {{{{{missing[0]}|default}}}}. " + _arguments_hint(prompt, wanted)
        )
    cut_at = _body_cut(body, limit)
    kept = body[:cut_at]

    def fill(m: re.Match[str]) -> str:
        value = given.get(m.group(1))
        if value is not None:
            return value
        return (m.group(2) or "").strip()

    rendered = _PLACEHOLDER.sub(fill, _without_marker(kept)).strip()
    if cut_at < len(body):
        rest = body_start + cut_at
        rendered += (
            f"\n\n[This prompt is the first {cut_at:,} of {len(body):,} characters of the note "
            f"{prompt.path!r}. Read the rest with "
            f"{call('get_vault_file', filename=prompt.path, startIndex=rest)}.]"
        )
    return RenderedPrompt(prompt, rendered, cut=cut_at < len(body))


def _without_marker(body: str) -> str:
    """The body without inline ``#mcp-tools-prompt`` tags (a line they leave blank goes too)."""
    if "#" not in body:
        return body
    lines = body.splitlines(keepends=True)
    kept = []
    for line in lines:
        cleaned = _INLINE_MARKER.sub("", line)
        if cleaned != line and not cleaned.strip():
            continue
        kept.append(cleaned)
    return "".join(kept)


def _arguments_hint(prompt: PromptNote, arguments: tuple[PromptArgument, ...]) -> str:
    if not arguments:
        return f"{prompt.name!r} takes no arguments."
    listed = ", ".join(f"{a.name} ({'required' if a.required else 'optional'})" for a in arguments)
    return f"Its arguments: {listed}."


def signature(catalogue: Catalogue) -> tuple[tuple[object, ...], ...]:
    """What a client sees of the catalogue: a change here is a list change."""
    return tuple(
        (
            p.name,
            p.title,
            p.description,
            tuple((a.name, a.required, a.description) for a in p.arguments),
        )
        for p in catalogue.prompts
    )


# --- through the vault ----------------------------------------------------------------------


class PromptLibrary:
    """The prompt notes of one vault, through the guarded client and the shared lister."""

    def __init__(
        self,
        client: Backend,
        lister: VaultLister,
        folder: str,
        *,
        ttl: float = LISTING_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self.lister = lister  # shared: its cached listings serve every tool too
        self._fresh = VaultLister(client, ttl=0)  # for checks: the shared listing may be old
        self.folder = folder
        self._ttl = ttl
        self._clock = clock
        # when it was built, the vault's generation then (None: unknown), the catalogue
        self._cached: tuple[float, int | None, Catalogue] | None = None
        self._listed: tuple[tuple[object, ...], ...] | None = None  # what clients were shown
        self._left_out_logged: tuple[LeftOut, ...] = ()
        self._stale = StaleHint()  # invalidated since the watcher last looked
        self._lock = anyio.Lock()

    def invalidate(self) -> None:
        """A write went through vaultgate: rebuild on next use, and check for a change."""
        self._cached = None
        self._stale.mark()

    async def wait_until_stale(self) -> None:
        """Return once ``invalidate`` has been called since the last build (one waiter)."""
        await self._stale.wait()

    @property
    def listed(self) -> bool:
        """Has a client been shown the list (so that a change is worth announcing)?"""
        return self._listed is not None

    async def catalogue(self, *, fresh: bool = False) -> Catalogue:
        """The prompts: the last ones built while the vault's generation has not moved since,
        else (unless ``fresh``: as the vault is now) those built within the TTL."""
        async with self._lock:  # callers at the same moment share one build
            generation = self._client.generation()  # before building: a change meanwhile moves it
            if (cached := self._cached) is not None:
                built_at, built_in, catalogue = cached
                if generation is not None and built_in == generation:
                    return catalogue
                if not fresh and self._clock() - built_at <= self._ttl:
                    return catalogue
            return await self._build_locked(self.lister, generation)

    async def list_for_client(self) -> Catalogue:
        """The catalogue, recorded as what clients now know. If the vault cannot be asked,
        clients are taken to know no prompts, so that the next good check announces them."""
        try:
            catalogue = await self.catalogue(fresh=True)  # a first page: the vault as it is
        except VaultgateError:
            self._listed = signature(Catalogue(()))
            raise
        self._listed = signature(catalogue)
        return catalogue

    async def check(self) -> bool:
        """Rebuild now; True when the prompts differ from what clients were last shown
        (and they are then taken to know the new list, which they will ask for)."""
        if self._listed is None:
            return False
        catalogue = await self._rebuild()
        now = signature(catalogue)
        if now == self._listed:
            return False
        self._listed = now
        return True

    async def render(self, name: str, arguments: Mapping[str, str] | None) -> RenderedPrompt:
        """The prompt ``name`` rendered from its note as it is now."""
        prompt = (await self.catalogue()).find(name)
        if prompt is None:
            prompt = (await self._rebuild()).find(name)  # added since the list was built?
        if prompt is None:
            raise InvalidArgument(self._unknown(name, self._cached_or_empty()))
        try:
            note = await self._client.read_note(prompt.path)
        except NotFound:
            self.invalidate()
            raise InvalidArgument(
                f"The note of prompt {name!r} ({prompt.path!r}) is gone; list the prompts again."
            ) from None
        described = describe_note(prompt.path, note.content)
        if isinstance(described, LeftOut) and described.name == prompt.name:
            self.invalidate()
            raise InvalidArgument(
                f"{prompt.path!r} is no longer offered as a prompt: {described.reason}."
            )
        if not isinstance(described, PromptNote) or described.name != prompt.name:
            self.invalidate()
            raise InvalidArgument(
                f"{prompt.path!r} is no longer the prompt {name!r} (its tag or name changed); "
                "list the prompts again."
            )
        return render(described, note.content, arguments)

    def _cached_or_empty(self) -> Catalogue:
        return self._cached[2] if self._cached is not None else Catalogue(())

    def _unknown(self, name: str, catalogue: Catalogue) -> str:
        for left in catalogue.left_out:
            if name in (left.name, left.path.rpartition("/")[2].removesuffix(NOTE_SUFFIX)):
                return f"{left.path!r} is not offered as a prompt: {left.reason}."
        shown = ", ".join(p.name for p in catalogue.prompts[:20]) or "none"
        where = self.folder or "the vault root"
        return (
            f"No prompt named {name!r}. Prompts are notes tagged {PROMPT_TAG} in {where!r}; "
            f"those offered now: {shown}."
        )

    async def _rebuild(self) -> Catalogue:
        """Build now, from a fresh listing (the shared one may be older than a change)."""
        async with self._lock:
            return await self._build_locked(self._fresh, self._client.generation())

    async def _build_locked(self, lister: VaultLister, generation: int | None) -> Catalogue:
        catalogue = await self._build(lister)
        self._cached = (self._clock(), generation, catalogue)
        if catalogue.left_out != self._left_out_logged:
            self._left_out_logged = catalogue.left_out
            for left in catalogue.left_out:
                log.warning("prompt note %r is not offered: %s", left.path, left.reason)
        return catalogue

    async def _build(self, lister: VaultLister) -> Catalogue:
        try:
            paths = await lister.list_recursive(self.folder, notes_only=True)
        except NotFound:
            # the setting in another letter case or Unicode form than the vault's folder
            spelled = await lister.find_folder(self.folder) if self.folder else None
            if spelled is None or spelled == self.folder:
                return Catalogue(())  # no prompts folder (yet): no prompts
            try:
                paths = await lister.list_recursive(spelled, notes_only=True)
            except NotFound:
                return Catalogue(())
        if len(paths) > MAX_PROMPT_NOTES:
            log.warning(
                "%d notes below the prompts folder %r; only the first %d are read for prompts",
                len(paths),
                self.folder,
                MAX_PROMPT_NOTES,
            )
            paths = paths[:MAX_PROMPT_NOTES]

        async def read(path: str) -> PromptNote | LeftOut | None:
            try:
                note = await self._client.read_note(path)
            except (NotFound, AccessDenied):  # deleted since the listing, or kept out
                return None
            return describe_note(path, note.content)

        described = [item for item in await map_bounded(paths, read) if item is not None]
        return build_catalogue(described)
