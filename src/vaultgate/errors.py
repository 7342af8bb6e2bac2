"""Every exception vaultgate raises on purpose, under one root.

    VaultgateError                      message is written for the model: it says what to try next
    ├── ConfigError                     a bad setting; the server stops at start with one line
    ├── InvalidArgument                 a tool argument that cannot work (bad window, bad glob, ...)
    │   ├── InvalidPath                 a vault path with '..', a leading '/', or a backslash
    │   │   ├── HiddenPath              a segment starting with '.': .obsidian/, .trash/, .git/
    │   │   └── NameTooLong             a name or path no disk holds; names the limit  (limit)
    │   ├── UnicodeTwin                 a new name that an existing one is in another Unicode
    │   │                               form (NFC/NFD): names it                   (existing)
    │   └── NotANote                    a folder given where one note is meant          (path)
    ├── LocalSearchUnavailable          search by meaning cannot answer from the vault's index
    │                                   (extra not installed, index not built yet)  (reason)
    ├── NoteChanged                     the note changed after vaultgate read it: not written (path)
    ├── AccessDenied                    VAULTGATE_ALLOW / VAULTGATE_DENY keep this path out  (path)
    │   ├── PathUnknown                 the plugin did not say which note is open: nothing to check
    │   ├── LinkNotFollowed             a link out of the vault, into a hidden place, or a loop
    │   ├── ReadOnlyMode                VAULTGATE_READ_ONLY refuses every write
    │   │   └── WritingCall             a tool or operation that writes, refused by name  (call)
    │   ├── ProtectedNote               a protection tag in the note's frontmatter     (path, tag)
    │   └── MoveRewritesKept            a move's link updates would write notes vaultgate may
    │                                   not: names the tagged ones, counts the unshown (path, kept)
    ├── SectionError                    a heading/block target inside a note      (target)
    │   ├── SectionNotFound             no such heading; lists what exists
    │   └── AmbiguousSection            a leaf name matches several headings; lists their paths
    ├── MemoryStoreError                the memory store refused or failed; nothing was changed
    │   ├── InvalidMemoryInput          a value the store cannot keep (too long, empty, bad id list)
    │   ├── ObservationNotFound         no live observation has this id          (observation_id)
    │   ├── SessionNotFound             no session has this id                   (session_id)
    │   ├── CompactionRefused           ids that may not be compacted; lists each   (unknown, ...)
    │   ├── RevisionNotFound            no such revision kept; names those there are
    │   └── MemoryBusy                  another process held the write lock past every retry
    ├── FetchError                      fetch could not get the page as text            (url)
    │   ├── URLRefused                  not http(s), credentials in it, a non-public address
    │   ├── FetchTimeout                no complete answer in time                  (seconds)
    │   ├── PageTooLarge                the body passed the download cap              (limit)
    │   ├── UnsupportedContent          not a text content type              (content_type)
    │   └── PageUnavailable             unreachable, an error status, redirect loop  (status)
    └── ObsidianError                   anything the Local REST API (or the way to it) reported
        ├── ObsidianUnreachable         connection refused / reset, DNS          (url, sent)
        │   └── WrongProtocol           the port speaks the other of http/https  (port, spoken)
        ├── ObsidianTimeout             no answer in time                        (url, sent)
        ├── ChangeUncertain             a change sent to Obsidian, then no answer: it may have
        │                               been made, so it is not repeated    (path, action)
        ├── VaultMismatch               the plugin no longer serves the found folder whose rules
        │                               were checked: nothing sent          (path, reason)
        ├── ObsidianTLSError            certificate or handshake failure               (url)
        ├── AuthenticationFailed        401: the API key was rejected
        │   └── APIKeyMissing           OBSIDIAN_API_KEY is not set: nothing needing it is sent
        ├── NotFound                    404 on a path                                  (path)
        ├── DestinationExists           MOVE onto an existing note without overwrite   (path)
        ├── ReplacedButNotMoved         overwrite=true trashed the destination, then the move
        │                               failed: says where it went   (path, source, trashed)
        ├── FeatureUnavailable          the running plugin version lacks a feature     (feature)
        ├── MalformedAnswer             an answer not in the API's shape: names the field  (what)
        └── ObsidianAPIError            any other error answer            (status, error_code)
            └── PatchRejected           a PATCH the plugin refused (40080, 409)         (reason)

Exceptions carry fields, not only text, so callers branch on types and attributes and never
on ``str(exc)``. Foreign exceptions (httpx, ssl) are translated once, in ``obsidian/``
(``web/`` for fetch); sqlite3's in ``memory/``.
"""

from __future__ import annotations

from typing import Literal

from vaultgate.calls import Raw, call

# Where the certificate checked for Obsidian comes from: OBSIDIAN_CERT ("file"), the plugin
# itself on loopback ("fetched"), or the system trust store ("system").
TLSTrust = Literal["file", "fetched", "system"]
API_KEY_FIX = "Copy the key from Obsidian → Settings → Local REST API into OBSIDIAN_API_KEY."


def quoted(value: str, limit: int = 80) -> str:
    """``value`` quoted for a one-line message, cut to ``limit`` characters (a pasted document
    as a value must not become a document-sized error)."""
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}... ({len(value):,} characters)"


def abbreviated(value: str, keep: int = 40) -> str:
    """``value`` quoted, its middle cut when longer than ``keep`` characters: the start and
    the end (a name's extension) are what tell one name from another."""
    if len(value) <= keep:
        return repr(value)
    tail = keep // 4
    return repr(f"{value[: keep - tail]}…{value[-tail:]}")


class VaultgateError(Exception):
    """Root of every error vaultgate raises on purpose. ``str()`` is model-facing."""


class ConfigError(VaultgateError):
    """A setting from the environment or a flag has an unusable value."""


class InvalidArgument(VaultgateError):
    """A tool argument that cannot work; the message names a value that would."""


class InvalidPath(InvalidArgument):
    """A vault-relative path that could escape the vault or is malformed."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(
            f"Invalid vault path {path!r}: {reason}. "
            "Use a vault-relative path with forward slashes, e.g. 'Projects/plan.md'."
        )


class HiddenPath(InvalidPath):
    """A path (or glob) with a segment starting with '.': configuration, trash, VCS files.

    ``shown`` describes a path the plugin reported (the open note) without naming it.
    """

    def __init__(self, path: str, *, what: str = "path", shown: str = "") -> None:
        self.path = shown or path
        self.reason = "hidden"
        subject = shown or f"The {what} {path!r}"
        InvalidArgument.__init__(
            self,
            f"{subject[0].upper()}{subject[1:]} is hidden (a part of it starts with '.', as in "
            ".obsidian/, .trash/ or .git/). Hidden and configuration files are not part of the "
            "vault's notes, and vaultgate never reads, lists or writes them. Use a path "
            "without a hidden part, e.g. 'Projects/plan.md'.",
        )


class NameTooLong(InvalidPath):
    """A path the disk cannot hold: one of its names, or the whole of it, is over ``limit``
    UTF-8 bytes (None when the disk refused it without saying which limit)."""

    def __init__(self, path: str, reason: str, *, limit: int | None = None) -> None:
        self.path = path
        self.reason = reason
        self.limit = limit
        # the path may be hundreds of bytes: never echoed in full
        InvalidArgument.__init__(self, f"Invalid vault path {abbreviated(path)}: {reason}.")

    @classmethod
    def for_name(cls, path: str, name: str, limit: int, size: int) -> NameTooLong:
        return cls(
            path,
            f"a name can hold at most {limit:,} bytes (UTF-8); {abbreviated(name)} has "
            f"{size:,}: shorten it",
            limit=limit,
        )

    @classmethod
    def for_path(cls, path: str, limit: int, size: int) -> NameTooLong:
        return cls(
            path,
            f"a vault path can hold at most {limit:,} bytes (UTF-8); this one has {size:,}: "
            "shorten its names, or nest it in fewer folders",
            limit=limit,
        )

    @classmethod
    def refused_by_disk(
        cls, path: str, name_max: int | None, path_max: int | None, vault_bytes: int
    ) -> NameTooLong:
        """The disk said ENAMETOOLONG: name what this file system holds, where it says."""
        limits = [
            f"{limit:,} bytes {per}"
            for limit, per in ((name_max, "per name"), (path_max, "per path from the disk's root"))
            if limit is not None
        ]
        held = f" (it holds at most {' and '.join(limits)})" if limits else ""
        return cls(
            path,
            f"the disk refused it as too long for the file system the vault is on{held}, and "
            f"the vault folder's own location takes {vault_bytes:,} bytes of a path: shorten "
            "its names, or nest it in fewer folders",
            limit=name_max,
        )


class UnicodeTwin(InvalidArgument):
    """A note or folder to be created whose name is an existing one's in another Unicode form
    (macOS stores some accented names decomposed, NFD; other systems composed, NFC): one disk
    would hold two notes that look the same, another would give both names one file.

    ``existing`` is the vault path of the one that exists (a folder ends in '/'), or None when
    it is out of this server's reach: then the answer is a hidden note's own (``ProtectedNote``),
    word for word, which says neither that something exists nor what.
    """

    def __init__(self, path: str, existing: str | None) -> None:
        self.path = path
        self.existing = existing
        if existing is None:
            message = _unreachable("write", repr(path))
        elif existing.endswith("/"):
            message = (
                f"A folder named {existing!r} already exists (the same name in another "
                "Unicode form); write into that folder instead."
            )
        else:
            message = (
                f"A note named {existing!r} already exists (the same name in another Unicode "
                "form); write to that name instead."
            )
        super().__init__(message)


def _unreachable(verb: str, subject: str) -> str:
    """A write refused at a path a hidden note holds: the same words whatever holds it."""
    return (
        f"vaultgate may not {verb} {subject}: that path is out of this server's reach. "
        "Use another path."
    )


class NotANote(InvalidArgument):
    """A folder path given to a tool that reads, writes or deletes one note."""

    def __init__(self, path: str) -> None:
        self.path = path
        folder = path.removesuffix("/")
        super().__init__(
            f"{path!r} is a folder, not a note. To see what it holds, list it: "
            f"{call('list_vault_files', directory=folder)}; to delete it with everything in "
            f"it, look first: {call('bulk_delete_files', pattern=folder + '/**', dryRun=True)}."
        )


class NoteChanged(VaultgateError):
    """A read-modify-write found the note changed since it was read; nothing was written."""

    def __init__(self, path: str, what_next: str) -> None:
        self.path = path
        super().__init__(
            f"{path!r} changed after vaultgate read it (an editor, a sync client or another "
            f"call), so nothing was written to it. {what_next}"
        )


class AccessDenied(VaultgateError):
    """The server's allow/deny settings keep this path out of reach.

    ``shown`` replaces the quoted path in the message when the model did not give the path
    itself (the note open in Obsidian, a periodic note): a denial never names a path the model
    has not seen.
    """

    def __init__(self, path: str, action: str = "read or write", *, shown: str = "") -> None:
        self.path = shown or path
        super().__init__(
            f"vaultgate may not {action} {shown or repr(path)}: this server's VAULTGATE_ALLOW / "
            "VAULTGATE_DENY settings keep it out of reach. Work with other notes, or ask the "
            "user to change those settings."
        )


class PathUnknown(AccessDenied):
    """Obsidian did not say which note the open (or periodic) note is, so it cannot be checked."""

    def __init__(self, subject: str) -> None:
        self.path = subject
        VaultgateError.__init__(
            self,
            f"Obsidian did not report which note {subject} is, so vaultgate cannot check it "
            "before writing. Give the note's vault path instead (a search or "
            f"{call('list_vault_files')} finds it).",
        )


class LinkNotFollowed(AccessDenied):
    """The path is (or runs through) a symbolic link that leads where vaultgate does not go:
    out of the vault (unless VAULTGATE_FOLLOW_LINKS=all), to a hidden file or folder, or
    round a loop. The message never names the link's target."""

    def __init__(self, path: str, leads: Literal["outside", "hidden", "loop"]) -> None:
        self.path = path
        self.leads = leads
        where = {
            "outside": "out of the vault (VAULTGATE_FOLLOW_LINKS=all serves such links)",
            "hidden": "to a hidden file or folder, which no tool reaches",
            "loop": "round a loop of links, so it leads nowhere",
        }[leads]
        VaultgateError.__init__(
            self,
            f"vaultgate does not serve {path!r}: it is, or runs through, a symbolic link that "
            f"leads {where}. Work with the notes at their own place in the vault "
            f"({call('list_vault_files')} shows them).",
        )


class ReadOnlyMode(AccessDenied):
    """VAULTGATE_READ_ONLY is on: nothing may be written."""

    def __init__(self, path: str) -> None:
        self.path = path
        VaultgateError.__init__(
            self,
            f"This vaultgate server is read-only (VAULTGATE_READ_ONLY=true), so {path!r} "
            "cannot be changed. Tell the user what you would change instead.",
        )


class WritingCall(ReadOnlyMode):
    """A tool or dispatcher operation that writes to the vault, asked of a read-only server:
    refused by its name, before any argument is looked at. ``reading`` says what still works."""

    def __init__(self, call: str, reading: str) -> None:
        self.path = self.call = call
        VaultgateError.__init__(
            self,
            f"vaultgate is read-only (VAULTGATE_READ_ONLY=true): {call} writes to the vault, so "
            "nothing was done. Tell the user what you would change, so they can make the change "
            f"themselves or restart vaultgate without VAULTGATE_READ_ONLY. {reading}",
        )


_PROTECTION_RULES = {
    "mcp-readonly": "never writes, moves or deletes a note tagged mcp-readonly",
    "mcp-protected": "never deletes or moves a note tagged mcp-protected (it may be edited)",
}
_WRITE_VERBS = {
    "create": "write",
    "append": "append to",
    "patch": "patch",
    "delete": "delete",
    "move": "move",
    "onto": "move a note onto",
}


class ProtectedNote(AccessDenied):
    """A protection tag of the note (frontmatter or inline) forbids this write
    (vaultgate/protection.py).

    ``action`` is the kind of write (``create``, ``append``, ``patch``, ``delete``, ``move``,
    ``onto``), or ``untag`` for a write that would take ``mcp-protected`` away. A note tagged
    ``mcp-hidden`` is refused without naming the tag: it is not there for the model.
    """

    def __init__(self, path: str, tag: str, action: str, *, shown: str = "") -> None:
        self.path = shown or path
        self.tag = tag
        self.action = action
        subject = shown or repr(path)
        if tag == "mcp-hidden":
            message = _unreachable(_WRITE_VERBS.get(action, "write"), subject)
        elif action == "untag":
            message = (
                f"{subject[0].upper()}{subject[1:]} is tagged mcp-protected, and this write would "
                "take the tag away; vaultgate never removes it. Keep mcp-protected among the "
                "note's tags (frontmatter or inline), or ask the user to remove it in Obsidian."
            )
        else:
            message = (
                f"vaultgate may not {_WRITE_VERBS.get(action, 'write')} {subject}: it is tagged "
                f"{tag}, and vaultgate {_PROTECTION_RULES[tag]}. Work with "
                "another note, or ask the user to remove the tag in Obsidian."
            )
        VaultgateError.__init__(self, message)


class MoveRewritesKept(AccessDenied):
    """Moving the note would rewrite links in notes vaultgate never writes, so nothing moves.

    ``kept`` names the notes tagged ``mcp-readonly`` or ``mcp-protected``, each with its tag;
    ``unshown`` counts the notes out of reach (tagged ``mcp-hidden``, denied by the policy),
    which are never named: they do not exist for the model.
    """

    def __init__(
        self, path: str, destination: str, kept: tuple[tuple[str, str], ...], unshown: int
    ) -> None:
        self.path = path
        self.destination = destination
        self.kept = kept
        self.unshown = unshown
        named = [f"{note!r} ({tag})" for note, tag in kept[:_KEPT_NAMED]]
        if len(kept) > _KEPT_NAMED:
            named.append(f"{len(kept) - _KEPT_NAMED} more tagged notes")
        if unshown:
            named.append(f"{unshown} {'note' if unshown == 1 else 'notes'} vaultgate may not show")
        where = ", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else named[0]
        VaultgateError.__init__(
            self,
            f"vaultgate may not move {path!r} to {destination!r}: the move rewrites links in "
            f"{where}, and vaultgate never writes a note tagged mcp-readonly or mcp-protected, "
            "or one out of its reach. Nothing was moved. Ask the user to move the note in "
            "Obsidian, or leave it where it is.",
        )


_KEPT_NAMED = 20  # a note with hundreds of backlinks names the first tagged ones


class SectionError(VaultgateError):
    """A heading or block target that cannot be resolved inside a note."""

    def __init__(self, message: str, target: str) -> None:
        self.target = target
        super().__init__(message)


class SectionNotFound(SectionError):
    """The target heading does not exist in the note."""


class AmbiguousSection(SectionError):
    """A bare heading name matches several headings at different paths."""

    def __init__(self, message: str, target: str, candidates: list[str]) -> None:
        self.candidates = candidates
        super().__init__(message, target)


class ObsidianError(VaultgateError):
    """The Local REST API, or the connection to it, reported a failure."""


class ObsidianUnreachable(ObsidianError):
    """``sent``: the connection broke after the request went out, so the plugin may have
    acted on it; False when nothing reached it (refused, no route, a broken handshake)."""

    sent = False

    def __init__(self, url: str, *, sent: bool = False) -> None:
        self.url = url
        self.sent = sent
        super().__init__(
            f"Obsidian is not reachable at {url} — is Obsidian open and the Local REST API "
            "plugin enabled? Check OBSIDIAN_HOST, OBSIDIAN_PORT and OBSIDIAN_PROTOCOL "
            "(the plugin serves https on 27124; plain http on 27123 only when enabled). "
            "Run `vaultgate doctor` to diagnose."
        )


class WrongProtocol(ObsidianUnreachable):
    """The port speaks ``spoken`` (http or https), not what OBSIDIAN_PROTOCOL says: the
    connection dropped or the handshake broke because of it. ``detail`` and ``fix`` are the
    two halves `vaultgate doctor` shows in its row."""

    def __init__(self, url: str, port: int, spoken: Literal["http", "https"]) -> None:
        self.url = url
        self.port = port
        self.spoken = spoken
        if spoken == "https":
            self.detail = f"port {port} speaks https, not plain http"
            self.fix = (
                "Set OBSIDIAN_PROTOCOL=https (the plugin's default, port 27124), or turn on the "
                "plugin's non-encrypted (http) server and set OBSIDIAN_PORT to its port (27123 "
                "by default)."
            )
        else:
            self.detail = f"port {port} speaks plain http, not https"
            self.fix = (
                "Set OBSIDIAN_PROTOCOL=http to use it (the plugin's http port, 27123 by "
                "default, once enabled), or OBSIDIAN_PORT=27124 for the plugin's https port."
            )
        ObsidianError.__init__(self, f"Obsidian at {url} cannot be used: {self.detail}. {self.fix}")


class ObsidianTimeout(ObsidianError):
    """``sent``: the time ran out after the request went out (the plugin may have acted on
    it); False when no connection was made in time."""

    def __init__(self, url: str, seconds: float, *, sent: bool = True) -> None:
        self.url = url
        self.seconds = seconds
        self.sent = sent
        super().__init__(
            f"Obsidian at {url} did not answer within {seconds:g} s. Obsidian may be busy or "
            "paused in the background; bring it to the front and retry, or narrow the request "
            "(a folder, a smaller limit). Raise OBSIDIAN_TIMEOUT or OBSIDIAN_SEARCH_TIMEOUT."
        )


class ObsidianTLSError(ObsidianError):
    """``trust`` says which certificate was checked, so the advice fits the set-up."""

    def __init__(self, url: str, detail: str, trust: TLSTrust = "system") -> None:
        self.url = url
        self.detail = detail
        self.trust = trust
        certificate = f"{url}/obsidian-local-rest-api.crt"
        match trust:
            case "fetched":
                advice = (
                    "vaultgate fetches the plugin's own certificate from "
                    f"{certificate} by itself, and fetched it again after this failure, so "
                    "OBSIDIAN_CERT is not needed. Keep OBSIDIAN_HOST=127.0.0.1 (the plugin's "
                    "certificate names that address, not 'localhost'), and check that "
                    "OBSIDIAN_PORT is the plugin's https port (27124) and that nothing else "
                    "answers there."
                )
            case "file":
                advice = (
                    "It was checked against the certificate in OBSIDIAN_CERT; if the plugin "
                    f"made a new one, download it again from {certificate}, or unset "
                    "OBSIDIAN_CERT: on 127.0.0.1 vaultgate fetches the plugin's certificate "
                    "itself."
                )
            case "system":
                advice = (
                    "Point OBSIDIAN_CERT at the plugin's certificate (download it from "
                    f"{certificate}), or use the plugin's http port with "
                    "OBSIDIAN_PROTOCOL=http."
                )
        super().__init__(
            f"The TLS connection to {url} failed ({detail}). {advice} "
            "Run `vaultgate doctor` to diagnose."
        )


class AuthenticationFailed(ObsidianError):
    def __init__(self) -> None:
        super().__init__(
            "The API key was rejected — copy it from Obsidian → Settings → Local REST API "
            "into OBSIDIAN_API_KEY. If two vaults are open, check that the port belongs to "
            "the vault you mean."
        )


class APIKeyMissing(AuthenticationFailed):
    """No key is configured: the server runs (memory works), the vault cannot be reached."""

    def __init__(self) -> None:
        ObsidianError.__init__(
            self,
            "OBSIDIAN_API_KEY is not set, so vaultgate cannot reach the vault (the memory tools "
            f"work without it). {API_KEY_FIX} Set it in the environment this server is started "
            "with (the MCP client's configuration for vaultgate), then restart the server.",
        )


class NotFound(ObsidianError):
    def __init__(self, path: str, hint: str) -> None:
        self.path = path
        self.hint = hint
        super().__init__(f"{path!r} was not found. {hint}")


class DestinationExists(ObsidianError):
    """A move (or copy) would replace an existing note and overwrite was not given."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(
            f"{path!r} already exists. Pass overwrite=true to replace it, or choose another "
            "destination."
        )


class ReplacedButNotMoved(ObsidianError):
    """A move with overwrite=true sent the note at ``path`` to the trash (deleted it, where
    the plugin has no trash: ``trashed`` False), then the move itself failed (``cause``)."""

    def __init__(
        self, source: str, path: str, cause: VaultgateError, *, trashed: bool, version: str
    ) -> None:
        self.source = source
        self.path = path
        self.cause = cause
        self.trashed = trashed
        if trashed:
            fate = (
                "went to Obsidian's trash (the vault's .trash folder, or the system trash if "
                "Obsidian is set to use it): restore it from there if it should stay"
            )
        else:
            fate = f"was deleted (Local REST API {version} has no trash)"
        super().__init__(
            f"The note that was at {path!r} {fate}; then moving {source!r} there failed, so "
            f"{source!r} was not moved. {cause}"
        )


class ChangeUncertain(ObsidianError):
    """A change was sent to Obsidian, which stopped answering before it said how it went: it
    may have been made. vaultgate does not make it again from the folder (twice would append
    twice, or move a moved note); the caller reads the note and decides."""

    def __init__(self, path: str, action: str, cause: ObsidianError) -> None:
        self.path = path
        self.action = action
        super().__init__(
            f"{action} {path!r} was sent to Obsidian, which stopped answering before it said "
            f"whether it was done ({cause}). It may have been made: read {path!r} (or list "
            "its folder) to see, and only then try again; vaultgate did not repeat it from "
            "the vault folder, so nothing was done twice."
        )


class VaultMismatch(ObsidianError):
    """Before a change goes through the plugin, the note it touches is not the same in the
    plugin's vault and in the found vault folder whose rules were checked: Obsidian may have
    switched vaults. Nothing was sent; the folder is verified again at once."""

    def __init__(self, path: str, action: str, reason: str) -> None:
        self.path = path
        self.action = action
        self.reason = reason
        super().__init__(
            f"{action} {path!r} was not done: Obsidian's plugin and the vault folder vaultgate "
            f"checked the rules on disagree about it ({reason}), so Obsidian may now serve "
            "another vault. Nothing was changed. vaultgate is checking again which vault the "
            f"plugin serves: call {call('get_server_info')} in a few seconds, read the note "
            "again, and only then try the change again."
        )


class FeatureUnavailable(ObsidianError):
    def __init__(self, feature: str, message: str) -> None:
        self.feature = feature
        super().__init__(message)


class LocalSearchUnavailable(VaultgateError):
    """Search by words or meaning cannot answer from the vault folder's index: the
    ``semantic`` extra is not installed, or the index is not built yet. Says what to do and
    what works meanwhile."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class NeedsObsidian(ObsidianError):
    """What only Obsidian can do (the open note, commands, periodic notes, templates, smart
    search), asked of a vault served from its folder with Obsidian closed or never asked."""

    def __init__(self, action: str, why: str) -> None:
        self.action = action
        super().__init__(
            f"{action} needs Obsidian running with the Local REST API plugin; {why} "
            "Everything else works from the vault folder."
        )


class MalformedAnswer(ObsidianError):
    """The plugin answered, but not in the shape its API promises: names what was wrong."""

    def __init__(self, what: str, problem: str, *, foreign: bool = False) -> None:
        self.what = what
        self.problem = problem
        self.foreign = foreign  # the answer looks like it came from something else
        if foreign:
            hint = (
                "Something other than the Local REST API may be answering there; "
                "`vaultgate doctor` shows what answers at OBSIDIAN_HOST and OBSIDIAN_PORT."
            )
        else:
            hint = (
                "The connection itself worked. Retry once; if it happens again, this plugin "
                "version answers in a shape vaultgate does not know: tell the user, with the "
                f"plugin version that {call('get_server_info')} shows."
            )
        super().__init__(f"Obsidian answered, but {what} was malformed: {problem}. {hint}")


class ObsidianAPIError(ObsidianError):
    """Any other error answer: its status, the plugin's errorCode and message."""

    def __init__(self, status: int, error_code: int | None, message: str, hint: str = "") -> None:
        self.status = status
        self.error_code = error_code
        self.api_message = message
        code = f" (errorCode {error_code})" if error_code is not None else ""
        tail = f" {hint}" if hint else ""
        super().__init__(f"Obsidian answered {status}{code}: {message}.{tail}")


class PatchRejected(ObsidianAPIError):
    """The plugin refused a PATCH: 400 ``40080`` with a reason line, or a 5.x 409.

    ``reason`` is markdown-patch's reason string (``invalid-target``,
    ``content-not-mergeable``, ...) when the plugin gave one, else None.
    """

    def __init__(
        self, status: int, error_code: int | None, message: str, hint: str, reason: str | None
    ) -> None:
        self.reason = reason
        super().__init__(status, error_code, message, hint)


# --- the memory store ---------------------------------------------------------------------


class MemoryStoreError(VaultgateError):
    """The memory store refused a request or failed; the transaction was rolled back."""


class InvalidMemoryInput(MemoryStoreError):
    """A value the store cannot keep as given: the message says what would work."""


class ObservationNotFound(MemoryStoreError):
    def __init__(self, observation_id: int, *, deleted: bool = False) -> None:
        self.observation_id = observation_id
        self.deleted = deleted
        state = "was deleted" if deleted else "does not exist"
        super().__init__(
            f"Observation #{observation_id} {state}. {call('mem_search', query='')} lists the "
            "most recent, to find the ids that exist."
        )


class SessionNotFound(MemoryStoreError):
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        super().__init__(
            f"No session has the id {session_id!r}. Start one with "
            f"{call('mem_session_start', project=Raw('<project>'))}, or leave session_id out to "
            "use the project's session of the day."
        )


class RevisionNotFound(MemoryStoreError):
    """A revision of an observation that is not kept: the current one, and the earlier ones
    kept since revisions were (saves and updates of older releases kept none)."""

    def __init__(
        self, observation_id: int, revision: int, kept: tuple[int, ...], current: int
    ) -> None:
        self.observation_id = observation_id
        self.revision = revision
        self.kept = kept
        self.current = current
        earlier = ", ".join(str(n) for n in kept) if kept else "none"
        super().__init__(
            f"Observation #{observation_id} has no revision {revision} kept. Its current text is "
            f"revision {current}; earlier revisions kept: {earlier}. "
            f"{call('mem_get_observation', id=observation_id)} shows the current text and lists "
            "them."
        )


class CompactionRefused(MemoryStoreError):
    """Some ids may not be compacted; nothing was deleted. Each list names the ids of one reason."""

    def __init__(
        self,
        *,
        unknown: list[int],
        deleted: list[int],
        outside_filter: list[int],
        filter_description: str,
    ) -> None:
        self.unknown = unknown
        self.deleted = deleted
        self.outside_filter = outside_filter
        reasons = []
        if unknown:
            reasons.append(f"unknown ids {_id_list(unknown)}")
        if deleted:
            reasons.append(f"already deleted {_id_list(deleted)}")
        if outside_filter:
            reasons.append(f"not matching {filter_description}: {_id_list(outside_filter)}")
        super().__init__(
            "Nothing was compacted: "
            + "; ".join(reasons)
            + f". {call('mem_compact', older_than_days=Raw('<days>'))} without compact_ids "
            "lists the observations that qualify; pass only those ids."
        )


class MemoryBusy(MemoryStoreError):
    def __init__(self) -> None:
        super().__init__(
            "The memory database is busy: another vaultgate process kept it locked through "
            "every retry. Nothing was changed; call the tool again in a moment."
        )


def _id_list(ids: list[int]) -> str:
    return "[" + ", ".join(str(i) for i in ids) + "]"


# --- fetch ----------------------------------------------------------------------------------


class FetchError(VaultgateError):
    """fetch could not get the page at ``url`` as text."""

    def __init__(self, url: str, message: str) -> None:
        self.url = url
        super().__init__(message)


class URLRefused(FetchError):
    """The URL may not be fetched: its scheme, embedded credentials, or a non-public target."""


class FetchTimeout(FetchError):
    def __init__(self, url: str, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(
            url,
            f"{url} did not answer completely within {seconds:g} s. The site may be slow or "
            "down: try again later, or fetch another page.",
        )


class PageTooLarge(FetchError):
    def __init__(self, url: str, limit: int) -> None:
        self.limit = limit
        super().__init__(
            url,
            f"{url} is larger than {_size(limit)}, the download cap; vaultgate "
            "stopped downloading it. Fetch a smaller or more specific page (a section, a "
            "plain-text or API version) instead.",
        )


class UnsupportedContent(FetchError):
    def __init__(self, url: str, content_type: str) -> None:
        self.content_type = content_type
        super().__init__(
            url,
            f"{url} is {content_type!r}, not text; fetch reads only text pages (HTML, plain "
            "text, markdown, JSON, XML). Look for an HTML or text version of this document.",
        )


class PageUnavailable(FetchError):
    """Connection failure, an error status (``status``), or too many redirects."""

    def __init__(self, url: str, message: str, status: int | None = None) -> None:
        self.status = status
        super().__init__(url, message)


def _size(limit: int) -> str:
    mib = 1024 * 1024
    return f"{limit // mib} MB" if limit % mib == 0 else f"{limit:,} bytes"
