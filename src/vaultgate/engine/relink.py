"""Links that follow a moved note, as Obsidian's "automatically update internal links" does.

When a note moves, every ``[[wikilink]]``, ``![[embed]]`` (in the body or in frontmatter)
and relative markdown link ``[text](../path/Note.md)`` that resolved to it resolves to it at
its new place. The rule is checked, not hoped for: each link is resolved before the move with
:meth:`Vault.resolve_link` and after it with the same rules over the files as they will be,
and a link is rewritten exactly when the two would differ. So besides the links to the moved
note, two other kinds change, because a move changes how they resolve: the moved note's own
links (a relative ``../x.md`` from its new folder, or a bare name that now has a nearer
namesake), and a link elsewhere that the moved note would capture (a bare ``[[Note]]`` that
pointed to ``A/Note.md`` while the move puts another ``Note.md`` in its own folder). Every
other character of every note stays as it was; what ``vaultgate.markdown.extract_links``
does not count as a link (code blocks, inline code, URLs) is not one here either.

The new text keeps the link's style, as Obsidian does: a bare name stays bare while it still
resolves to the note from the linking note, else it becomes the shortest path (from the end)
that does; a path from the vault root stays one (a leading ``/`` kept); a ``./`` or ``../``
path, and every markdown link, stays relative to the linking note; ``.md`` is kept or left
out as it was written; headings, block references, aliases, titles and ``<angle
brackets>`` stay. Markdown destinations are percent-encoded where a character would end or
change them (space, ``%``, ``#``, parentheses...). A wikilink cannot name a file whose name
holds ``#``, ``|``, ``[`` or ``]`` (``#`` starts a heading): such a link is left as it was
and listed in :attr:`RelinkPlan.stranded`, as is any link no text can point back to its note.

Two parts. :func:`links_in` and :func:`rewrite_links` are pure: text in, text out, and a
callback that decides each link's new target. :func:`plan_relink` decides, over the vault
before the move, and :func:`apply_relink` rewrites, after it, each note through
:func:`~vaultgate.engine.vaultfs.update_text` (atomic, never over a newer copy: a note edited
in between is rewritten from its current text with the same decisions).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal
from urllib.parse import quote, unquote

from vaultgate.engine import vaultfs
from vaultgate.engine.errors import EngineError, NotFound
from vaultgate.engine.vault import Vault, _build_index

# One reading of what a link is: the tokenizers extract_links runs, so the two never differ.
from vaultgate.markdown import (
    _LINK,
    _URL_SCHEME,
    _WIKILINK,
    _frontmatter_bounds,
    _scan,
    _strip_code_spans,
)
from vaultgate.paths import is_hidden

LinkKind = Literal["wikilink", "markdown"]

# What a bare markdown destination cannot hold as itself: '%' (it is decoded), '#' (it
# starts the heading), whitespace and ')' (they end it), '(' and '<' (they change how it
# parses), ':' (a scheme) and '`' (a code span could swallow the link).
_BARE_ESCAPES = frozenset("%#()<>:`")
_ANGLED_ESCAPES = frozenset("%#<>:`")


@dataclass(frozen=True, slots=True)
class Link:
    """One link in a note's text, read as ``extract_links`` reads it."""

    kind: LinkKind  # "wikilink" for [[...]] and ![[...]], in the body or the frontmatter
    target: str  # as resolve_link gets it: decoded; no '#heading', '^block' or '|alias'
    start: int  # the target as written in the text, which a new target replaces
    end: int
    angled: bool = False  # a markdown destination written in <angle brackets>


def links_in(text: str) -> list[Link]:
    """Every internal link of ``text`` with its place, in the order ``extract_links`` reads
    them (frontmatter first), repeats included."""
    found: list[Link] = []
    bounds = _frontmatter_bounds(text)
    if bounds is not None:
        for m in _WIKILINK.finditer(text, bounds[0], bounds[1]):
            found += _wikilink(m.group(1), m.start(1))
    for start, end in _scan(text).prose:
        chunk = text[start:end]
        if "[" not in chunk:
            continue
        for m in _LINK.finditer(_strip_code_spans(chunk)):
            if m.group("wiki") is not None:
                found += _wikilink(m.group("wiki"), start + m.start("wiki"))
                continue
            group = "angled" if m.group("angled") is not None else "bare"
            url = m.group(group)
            if _URL_SCHEME.match(url):
                continue
            written = url.split("#", 1)[0]
            target = unquote(written).strip()
            if target:
                at = start + m.start(group)
                found.append(
                    Link("markdown", target, at, at + len(written), angled=group == "angled")
                )
    return found


def _wikilink(inner: str, at: int) -> list[Link]:
    # the target is what is left of '|' and '#', less a table's '\' before '|', stripped
    head = inner.split("|", 1)[0].split("#", 1)[0].rstrip("\\")
    target = head.strip()
    if not target:
        return []
    start = at + len(head) - len(head.lstrip())
    return [Link("wikilink", target, start, start + len(target))]


def written_form(link: Link, target: str) -> str | None:
    """How ``target`` is written in a link like ``link``; None when that syntax cannot say it
    (a '#' or '|' in a wikilink, spaces around a name...)."""
    return _written_form(link.kind, link.angled, target)


@lru_cache(maxsize=4096)
def _written_form(kind: LinkKind, angled: bool, target: str) -> str | None:
    if kind == "wikilink":
        written, snippet = target, f"[[{target}]]"
    else:
        escapes = _ANGLED_ESCAPES if angled else _BARE_ESCAPES
        written = "".join(
            quote(c, safe="") if c in escapes or (c.isspace() and not angled) else c for c in target
        )
        snippet = f"[x](<{written}>)" if angled else f"[x]({written})"
    read = links_in(snippet)  # written as it will be read back, or not at all
    if len(read) != 1 or read[0].target != target:
        return None
    return written


def rewrite_links(text: str, retarget: Callable[[Link], str | None]) -> tuple[str, int]:
    """``text`` with every link that ``retarget`` gives a new target (decoded, as
    ``Link.target`` is) rewritten in its own syntax, and how many were; None keeps a link.
    Pure: ``retarget`` is where the vault is asked."""
    pieces: list[str] = []
    copied = 0
    changed = 0
    for link in links_in(text):
        target = retarget(link)
        if target is None:
            continue
        written = written_form(link, target)
        if written is None:
            raise ValueError(f"{target!r} cannot be written as a {link.kind}")
        pieces += (text[copied : link.start], written)
        copied = link.end
        changed += 1
    if not changed:
        return text, 0
    pieces.append(text[copied:])
    return "".join(pieces), changed


# --- planning over the vault ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NoteRelink:
    path: str  # the note, named as it is after the move
    links: int  # links rewritten in it


@dataclass(frozen=True, slots=True)
class StrandedLink:
    """A link that should have followed the move but that no text of its kind can make
    resolve to its note; it is left as written."""

    path: str  # the note holding it, named as after the move
    kind: LinkKind
    target: str  # as read (decoded, no heading or alias)
    points_to: str  # the note it resolved to before the move, named as after it


@dataclass(frozen=True, slots=True)
class RelinkPlan:
    """What moving ``source`` to ``destination`` does to links. Before the move (a dry run)
    it says what would change; returned by :func:`apply_relink`, what did."""

    source: str
    destination: str
    notes: tuple[NoteRelink, ...] = ()  # every note with at least one link rewritten, by path
    stranded: tuple[StrandedLink, ...] = ()
    failed: tuple[str, ...] = ()  # notes that could not be rewritten (after the move only)
    # per note (named before the move): (kind, angled, target) -> new target, None to keep
    decisions: Mapping[str, Mapping[tuple[LinkKind, bool, str], str | None]] = field(
        default_factory=dict, repr=False, compare=False
    )

    @property
    def links(self) -> int:
        """Links rewritten, in every note."""
        return sum(note.links for note in self.notes)


def plan_relink(
    vault: Vault,
    source: str,
    destination: str,
    *,
    candidates: Iterable[str] | None = None,
    captures: bool = True,
) -> RelinkPlan:
    """What moving the file ``source`` to ``destination`` does to links, decided on the vault
    as it is now (before the move); nothing is written.

    ``captures=False`` rewrites what Obsidian's ``fileManager.renameFile`` rewrites: the links
    that led to the moved note and the moved note's own, but not a link elsewhere that the
    move captures (a bare ``[[Note]]`` that now finds the moved note first).

    ``candidates`` narrows the notes read to those that may hold a link the move changes:
    those with a link target whose :func:`link_name` is in :func:`moved_names` (an index of
    every note's links can say which). None reads every note, as Obsidian's metadata cache
    has them all; a candidate that cannot change is read and left alone.
    """
    planner = _Planner(vault, source, destination, captures=captures)
    linkers = [
        path
        for path in (vault.markdown_files() if candidates is None else candidates)
        if path not in (source, destination) and planner.may_change(path)
    ]
    if source.endswith(".md") and destination.endswith(".md") and vault.is_file(source):
        linkers.append(source)  # its own links move with it
    notes: list[NoteRelink] = []
    stranded: list[StrandedLink] = []
    decisions: dict[str, dict[tuple[LinkKind, bool, str], str | None]] = {}
    for linker in linkers:
        try:
            text = vault.note(linker).text
        except OSError:
            continue
        decided, count, lost = planner.decide(linker, text)
        after = planner.after_path(linker)
        if count:
            notes.append(NoteRelink(after, count))
            decisions[linker] = decided
        stranded += (StrandedLink(after, *entry) for entry in lost)
    notes.sort(key=lambda note: note.path)
    return RelinkPlan(source, destination, tuple(notes), tuple(stranded), (), decisions)


def apply_relink(vault: Vault, plan: RelinkPlan) -> RelinkPlan:
    """Rewrite the links ``plan`` decided, once the file has moved; returns what was done.

    Each note is read afresh and rewritten atomically, never over a newer copy; a note edited
    since the plan keeps its new links as they are (only the links the plan decided on are
    rewritten). A note that vanished, or kept changing, or that the disk refused, is listed
    in ``failed`` and the others are still rewritten: the move itself has happened.
    """
    notes: list[NoteRelink] = []
    failed: list[str] = []
    for linker, decided in plan.decisions.items():
        path = plan.destination if linker == plan.source else linker

        def rewritten(
            text: str | None,
            decided: Mapping[tuple[LinkKind, bool, str], str | None] = decided,
            path: str = path,
        ) -> tuple[str, int]:
            if text is None:
                raise NotFound(path)
            return rewrite_links(text, lambda link: decided.get(_key(link)))

        try:
            count = vaultfs.update_text(vault, path, rewritten)
        except EngineError:
            failed.append(path)
            continue
        if count:
            notes.append(NoteRelink(path, count))
    notes.sort(key=lambda note: note.path)
    return RelinkPlan(
        plan.source, plan.destination, tuple(notes), plan.stranded, tuple(failed), plan.decisions
    )


def _key(link: Link) -> tuple[LinkKind, bool, str]:
    return link.kind, link.angled, link.target


def _spellings(path: str) -> set[str]:
    """How a link may spell a file's path or name: any case, '.md' written or not."""
    lower = path.lower()
    return {lower, lower[:-3]} if lower.endswith(".md") else {lower}


def _names_as_path(target: str, path: str, linker: str, *, rooted: bool = True) -> bool:
    """Whether ``target`` names ``path`` as a path: relative to the linking note's folder, or
    (``rooted``) from the vault root."""
    spellings = _spellings(path)
    if rooted and target.lstrip("/").lower() in spellings:
        return True
    if target.startswith("/"):
        return False
    folder = posixpath.dirname(linker)
    joined = posixpath.normpath(f"{folder}/{target}" if folder else target)
    return joined.lower() in spellings


def link_name(target: str) -> str:
    """The last segment of a link target, as resolve_link looks it up by name (lowercase)."""
    return target.strip().lstrip("/").lower().rsplit("/", 1)[-1]


def moved_names(source: str, destination: str) -> frozenset[str]:
    """The names whose links a move can change: a note none of whose link targets has a
    :func:`link_name` in this set is left alone (except the moved note itself). An index of
    every note's links picks :func:`plan_relink`'s ``candidates`` with it."""
    return frozenset(
        _spellings(posixpath.basename(source)) | _spellings(posixpath.basename(destination))
    )


def _relative(path: str, folder: str) -> str:
    """``path`` from ``folder`` ('' for the vault root), both vault paths, with '../'."""
    parts, base = path.split("/"), folder.split("/") if folder else []
    common = 0
    while common < min(len(parts) - 1, len(base)) and parts[common] == base[common]:
        common += 1
    return "/".join([".."] * (len(base) - common) + parts[common:])


class _FilesOnly(Vault):
    """:meth:`Vault.resolve_link` over a list of files, with nothing read from disk: how
    links resolve once a move that has not happened yet has."""

    def __init__(self, files: Iterable[str]) -> None:  # no super(): no folder, no scan
        self._index = _build_index(files)


def files_resolver(files: Iterable[str]) -> Callable[[str, str], str | None]:
    """``resolve(link, linker)``: :meth:`Vault.resolve_link` over a list of files, with
    nothing read from disk. vaultgate resolves links with it where the plugin's note JSON has
    no link lists (before 4.0, and ``unresolvedLinks`` before 5.0)."""
    return _FilesOnly(files).resolve_link


class _Planner:
    def __init__(self, vault: Vault, source: str, destination: str, *, captures: bool) -> None:
        self.vault = vault
        self.source = source
        self.destination = destination
        self.captures = captures
        self.interest = moved_names(source, destination)
        after = [path for path in vault.files if path != source]
        if not is_hidden(destination):
            after.append(destination)
        self._by_name: dict[str, list[str]] = {}
        for path in after:
            for key in _spellings(posixpath.basename(path)):
                self._by_name.setdefault(key, []).append(path)
        self._wanted: set[str] = set(self.interest)  # names the next index should cover
        self._covered: set[str] = set()  # names the current index covers
        self._after: Vault | None = None

    def after_path(self, path: str) -> str:
        return self.destination if path == self.source else path

    def may_change(self, path: str) -> bool:
        """Whether a note may hold a link the move changes: only a link by the source's or
        the destination's name can resolve differently, unless the note itself moves."""
        try:
            targets = self.vault.meta(path).link_targets
        except OSError:
            return False
        return any(link_name(target) in self.interest for target in targets)

    def resolve_after(self, link: str, linker: str) -> str | None:
        """resolve_link once the file has moved. Only files by the link's name can answer,
        so the index holds just those (building one over every file costs a fifth of a
        second on 20,000 notes)."""
        name = link_name(link)
        if name in ("", ".", ".."):  # a path that normalises to another name: ask them all
            return _FilesOnly(
                path for paths in self._by_name.values() for path in paths
            ).resolve_link(link, linker)
        if self._after is None or name not in self._covered:
            self._covered |= self._wanted | {name}
            self._after = _FilesOnly(
                path for key in self._covered for path in self._by_name.get(key, ())
            )
        return self._after.resolve_link(link, linker)

    def decide(
        self, linker: str, text: str
    ) -> tuple[dict[tuple[LinkKind, bool, str], str | None], int, list[tuple[LinkKind, str, str]]]:
        """Each link's new target in one note, how many links change, and the stranded."""
        links = links_in(text)
        if linker == self.source:  # every link of the moved note is asked about below:
            for link in links:  # one index for all their names and their notes' names
                self._wanted.add(link_name(link.target))
                resolved = self.vault.resolve_link(link.target, linker)
                if resolved is not None:
                    self._wanted |= _spellings(posixpath.basename(self.after_path(resolved)))
        decided: dict[tuple[LinkKind, bool, str], str | None] = {}
        stranded: dict[tuple[LinkKind, str, str], None] = {}
        count = 0
        for link in links:
            key = _key(link)
            if key not in decided:
                decided[key] = self._retarget(linker, link, stranded)
            if decided[key] is not None:
                count += 1
        return decided, count, list(stranded)

    def _retarget(
        self, linker: str, link: Link, stranded: dict[tuple[LinkKind, str, str], None]
    ) -> str | None:
        if linker != self.source and link_name(link.target) not in self.interest:
            return None  # neither its note nor the files it could resolve to move
        before = self.vault.resolve_link(link.target, linker)
        if before is None:
            return None  # a link to nothing stays one
        if not self.captures and linker != self.source and before != self.source:
            return None  # Obsidian rewrites only the moved note's backlinks
        wanted = self.after_path(before)
        from_note = self.after_path(linker)
        still = self.resolve_after(link.target, from_note) == wanted
        if still and link.kind == "markdown" and _names_as_path(link.target, before, linker):
            # a markdown path keeps naming its file as a path, not merely by its name (which
            # resolve_link falls back to, and other tools do not)
            still = _names_as_path(link.target, wanted, from_note)
        if still:
            return None
        for candidate in self._candidates(link, before, wanted, linker):
            if (
                candidate != link.target
                and written_form(link, candidate) is not None
                and self.resolve_after(candidate, from_note) == wanted
            ):
                return candidate
        stranded[(link.kind, link.target, wanted)] = None
        return None

    def _candidates(self, link: Link, before: str, wanted: str, linker: str) -> list[str]:
        """New targets for ``link``, in the order its style prefers them."""
        target = link.target
        keep_md = target.lower().endswith(".md")

        def form(path: str) -> str:
            return path[:-3] if path.lower().endswith(".md") and not keep_md else path

        rooted = target.lstrip("/").lower() in _spellings(before)  # a path from the root
        relative = form(_relative(wanted, posixpath.dirname(self.after_path(linker))))
        dotted = [] if relative.startswith("../") else [f"./{relative}"]
        parts = form(wanted).split("/")
        suffixes = ["/".join(parts[-n:]) for n in range(2, len(parts) + 1)]
        lead = "/" if target.startswith("/") else ""
        if link.kind == "markdown":
            if lead or (rooted and not _names_as_path(target, before, linker, rooted=False)):
                preferred = [lead + form(wanted)]
            else:
                preferred = [relative, *dotted]
        elif "/" not in target:
            preferred = [parts[-1], *suffixes]
        elif target.startswith(("./", "../")):
            preferred = [f"./{relative}" if target.startswith("./") and dotted else relative]
        elif rooted:
            preferred = [lead + form(wanted)]
        else:
            preferred = suffixes
        return [*preferred, form(wanted), wanted]
