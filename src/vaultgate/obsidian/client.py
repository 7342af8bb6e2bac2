"""The async client of the Local REST API: the only code in vaultgate that speaks HTTP to it.

Every foreign failure is translated here, once, into the tree in ``vaultgate.errors``: httpx
and ssl exceptions by type, error answers by status and the plugin's ``errorCode``, each with a
hint that fits the call. Paths are validated before any request is sent and encoded one
segment at a time.

Retries: an idempotent GET is sent again once when the connection drops before an answer
(the plugin closes idle keep-alive sockets after 60 s, and a request can race that close).
Nothing else is retried here: a search may have been half-run, and a write (PUT, POST, PATCH,
DELETE, MOVE) may have been applied before the connection dropped. A failed TLS handshake is
retried once by the transport, and only after fetching a changed certificate from the plugin
(transport.py); whatever still fails is an ObsidianTLSError whose advice fits the set-up.
A connection that broke after it was made is first checked for an http/https mix-up
(``probes.wrong_protocol``, the test doctor runs), which is then named: WrongProtocol.

Without an API key only ``GET /`` is sent (the plugin answers it without one); every other
call raises APIKeyMissing before anything is sent.
"""

from __future__ import annotations

import datetime
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote, unquote

import httpx

from vaultgate import calls, markdown
from vaultgate.backend import (
    BackendReport,
    LinkUpdates,
    LocalMode,
    LocalResults,
    Note,
    NoteLinks,
    ServerStatus,
    search_note_links,
)
from vaultgate.config import ObsidianSettings
from vaultgate.errors import (
    APIKeyMissing,
    AuthenticationFailed,
    DestinationExists,
    FeatureUnavailable,
    InvalidArgument,
    MalformedAnswer,
    NotANote,
    NotFound,
    ObsidianAPIError,
    ObsidianError,
    ObsidianTimeout,
    ObsidianTLSError,
    ObsidianUnreachable,
    PatchRejected,
)
from vaultgate.locations import LinkMap
from vaultgate.markdown import DocumentMap
from vaultgate.obsidian.answers import parse_as, parse_model
from vaultgate.obsidian.encoding import require_whole_characters, utf8
from vaultgate.obsidian.features import FeatureSet, Version, quadratic_search
from vaultgate.obsidian.models import (
    JSON_OBJECT,
    NOTE_JSON,
    SIMPLE_RESULTS,
    STRUCTURED_RESULTS,
    CommandsAnswer,
    DirectoryAnswer,
    DocumentMapAnswer,
    RootAnswer,
    SimpleHit,
    SmartSearchAnswer,
    TagsAnswer,
)
from vaultgate.obsidian.patch import encode_patch
from vaultgate.obsidian.transport import PluginHTTP, tls_failure, tls_trust
from vaultgate.patch_request import PatchRequest
from vaultgate.paths import (
    encode_header_value,
    encode_vault_path,
    normalize_directory,
    validate_vault_path,
)
from vaultgate.protection import MARKED_QUERY, PROTECTION_TAGS, Marks, marked_from_rows

log = logging.getLogger("vaultgate.obsidian")

MARKDOWN = "text/markdown"
NOTE_JSON_TYPE = "application/vnd.olrapi.note+json"
DOCUMENT_MAP_TYPE = "application/vnd.olrapi.document-map+json"
JSONLOGIC_TYPE = "application/vnd.olrapi.jsonlogic+json"
DQL_TYPE = "application/vnd.olrapi.dataview.dql+txt"

EMPTY_ROOT_LISTS_SINCE = Version(3, 6, 1)  # before, an empty vault root answered 404
# A simple search's query travels in the URL; Node refuses request heads over 16 KiB.
MAX_QUERY_URL_BYTES = 8_000

ACTIVE_FILE = "the active file"
_NO_ACTIVE_FILE = "No note is open in Obsidian; open one there, or give the note's vault path."
# Placeholders in hints that name a call
_WORDS, _PATH, _QUERY = calls.Raw("<words>"), calls.Raw("<path>"), calls.Raw("{...}")
_NO_SUCH_ROUTE = calls.Later(
    lambda: (
        "The Local REST API has no such route; check the plugin version with "
        f"{calls.call('get_server_info')}."
    )
)
_INTERNAL_ERROR = "Obsidian hit an internal error; retry, or check Obsidian's developer console."
_CONTENT_TYPE_REFUSED = calls.Later(
    lambda: (
        "This Local REST API version does not accept that kind of query; use "
        f"{calls.call('search_vault', queryType='jsonlogic', query=_QUERY)}, or a simple search."
    )
)
_PATCH_VERSION_REFUSED = calls.Later(
    lambda: (
        "This plugin needs Markdown-Patch-Version with header-format PATCH requests. "
        "vaultgate always sends it, so something on the way (a proxy?) dropped the header; report "
        f"this with the plugin version that {calls.call('get_server_info')} shows."
    )
)
_DESTINATION_REFUSED = (
    "Give the destination as a vault-relative path such as 'Archive/plan.md' (a trailing '/' "
    "moves the note into that folder)."
)
_HINTS_400: Mapping[int, str | calls.Later] = {
    40005: (
        "The note's YAML frontmatter cannot be parsed, so the plugin will not patch it; read "
        "the note, fix its frontmatter block (or rewrite the note), then retry."
    ),
    40010: "The plugin wants a text body here; send the content as text.",
    40011: _CONTENT_TYPE_REFUSED,
    40012: _CONTENT_TYPE_REFUSED,
    40015: "The query is not valid JSON; check its brackets and quotes.",
    40020: _DESTINATION_REFUSED,
    40021: (
        "The path leaves the vault or is malformed; use a vault-relative path such as "
        "'Projects/plan.md'."
    ),
    40022: _DESTINATION_REFUSED,
    40070: "Check the JsonLogic/DQL syntax of the query; the message names the problem.",
    40081: (
        "The plugin refused the patch instruction; the message names the field. JSON content "
        "(contentType='json') fits only frontmatter values and block-labelled tables."
    ),
    40082: _PATCH_VERSION_REFUSED,
    40083: _PATCH_VERSION_REFUSED,
    40084: _PATCH_VERSION_REFUSED,
    40090: "The search needs a non-empty query.",
}
PATCH_FAILED = 40080  # the second line of its message is markdown-patch's reason
_PATCH_REASON_HINTS: Mapping[str, str] = {
    "invalid-target": (
        "The target was not found; read the note with format='map' to see the heading paths, "
        "block ids and frontmatter keys, or pass createTargetIfMissing=true to create it."
    ),
    "content-already-preexists-in-target": (
        "That content is already in the target, so the plugin did not add it again (an "
        "earlier attempt may have applied it); read the section before retrying."
    ),
    "table-content-incorrect-column-count": (
        "Every table row needs exactly as many cells as the table has columns; read the table "
        "and send rows of that length."
    ),
    "content-type-invalid": (
        "The content does not fit its contentType here: send markdown text, or JSON "
        "(contentType='json') for a frontmatter value or table rows."
    ),
    "content-type-invalid-for-target": (
        "That contentType cannot be used on this target: JSON content fits only frontmatter "
        "values and block-labelled tables; send markdown to headings and other blocks."
    ),
    "content-not-mergeable": (
        "The frontmatter value has another type; replace it instead of appending (or append "
        "the same type: a list to a list, an object to an object, text to text)."
    ),
}
_PATCH_FAILED_HINT = (
    "Read the note with format='map' to check the target and its content, then retry."
)
_PATCH_CONFLICT = (
    "The content is already in the target, or a frontmatter key of that name exists; read the "
    "note before retrying (an earlier attempt may have applied)."
)
_CHANGED_MEANWHILE = "The note changed while this was applied; read it again, then retry."
_HINTS_405: Mapping[int, str | calls.Later] = {
    40510: calls.Later(
        lambda: (
            f"That path is a folder; {calls.call('list_vault_files', directory=_PATH)} "
            "shows what it contains."
        )
    ),
}
PERIODS = ("daily", "weekly", "monthly", "quarterly", "yearly")
_COMMAND_FAILED = (
    "The command failed inside Obsidian; check Obsidian's developer console before running "
    "it again."
)
_TEMPLATES_MISSING = (
    "Templates need the 'MCP Tools' companion plugin (jacksteamdev/obsidian-mcp-tools) and "
    "the Templater plugin, both installed and enabled in Obsidian; this vault's Local REST "
    "API has no /templates/execute route."
)
_SMART_SEARCH_MISSING = calls.Later(
    lambda: (
        "Semantic search needs the 'MCP Tools' companion plugin "
        "(jacksteamdev/obsidian-mcp-tools) with Smart Connections installed and enabled in "
        "Obsidian; this vault's Local REST API has no /search/smart route. Use "
        f"{calls.call('search_vault_simple', query=_WORDS)} instead."
    )
)

_MARKDOWN_BODY: Mapping[str, str] = {"Content-Type": MARKDOWN}
_TEMPLATES_ROUTE = "/templates/execute"

# A connection that dropped before any answer: worth one more try on an idempotent GET.
_DROPPED = (httpx.RemoteProtocolError, httpx.ReadError, httpx.ConnectError)


@dataclass(frozen=True, slots=True)
class Call:
    """What a request is about, so that its failure can say what to try next (the folder
    backend describes its calls the same way, so its failures read the same)."""

    subject: str  # named by NotFound
    not_found: str | calls.Later  # the hint for a 404 (a Later is spelled only if needed)
    special: Callable[[httpx.Response], ObsidianError | None] | None = None


class ObsidianClient:
    """Typed calls to one Local REST API; takes a ready PluginHTTP (see transport)."""

    def __init__(self, settings: ObsidianSettings, http: PluginHTTP) -> None:
        self._settings = settings
        self._http = http
        self._status: ServerStatus | None = None

    @property
    def base_url(self) -> str:
        return self._settings.base_url

    def report(self) -> BackendReport:
        return BackendReport("obsidian", None, self.base_url, ())

    def link_map(self) -> LinkMap | None:
        return None  # Obsidian walks the folder, not vaultgate

    def generation(self) -> int | None:
        return None  # nothing cheap says the vault changed: every first page asks again

    def marks_generation(self) -> tuple[int, int] | None:
        return None  # the plugin tells no change: the guard reads the notes it shows

    # --- server ---------------------------------------------------------------------------

    async def status(self) -> ServerStatus:
        """``GET /`` (with the key, so it says whether the key is accepted); cached."""
        if self._status is None:
            self._status = await self._read_status()
        return self._status

    async def refresh_status(self) -> ServerStatus:
        self._status = await self._read_status()
        return self._status

    async def features(self) -> FeatureSet:
        return FeatureSet((await self.status()).plugin_version)

    async def plugin_status(self) -> ServerStatus:
        return await self.refresh_status()

    async def _read_status(self) -> ServerStatus:
        call = Call(
            "/",
            "Something other than the Local REST API answers there; check OBSIDIAN_PORT.",
        )
        response = await self._send("GET", "/", call)
        what = "the server status (GET /)"
        try:
            answer = parse_model(response, RootAnswer, what)
            version = Version.parse(answer.versions.plugin)
        except MalformedAnswer as exc:
            # Any answer to GET / without the plugin's versions is most likely not the plugin.
            raise MalformedAnswer(what, exc.problem, foreign=True) from exc
        except ValueError as exc:
            problem = f"versions.self is {answer.versions.plugin!r}, not a version number"
            raise MalformedAnswer(what, problem, foreign=True) from exc
        cert = answer.certificate_info
        return ServerStatus(
            authenticated=answer.authenticated,
            plugin_version=version,
            obsidian_version=answer.versions.obsidian,
            service=answer.service,
            certificate_days_left=cert.validity_days if cert is not None else None,
            extensions=answer.extension_names(),
        )

    # --- reading --------------------------------------------------------------------------

    async def list_directory(self, directory: str) -> list[str]:
        """One level of ``directory`` ('' = the root): names relative to it, folders end in '/'."""
        folder = normalize_directory(directory)
        missing = folder_not_found(directory)
        call = Call(missing.path, missing.hint)
        try:
            response = await self._send("GET", f"/vault/{encode_vault_path(folder)}", call)
        except NotFound:
            if folder == "" and (await self.status()).plugin_version < EMPTY_ROOT_LISTS_SINCE:
                return []
            raise
        return list(parse_model(response, DirectoryAnswer, "the folder listing").files)

    async def list_files_below(self, directory: str) -> list[str] | None:
        """The plugin lists one folder per request: a recursive listing is a walk."""
        return None

    async def read_note(self, path: str | None) -> Note:
        """The note's text. None reads the file active in Obsidian; its path comes from
        ``Content-Location`` ('' if the plugin sent none)."""
        url, call = self._note(path)
        response = await self._send("GET", url, call, headers={"Accept": MARKDOWN})
        _refuse_folder_listing(response, path)
        # The plugin serves notes as UTF-8 whatever the Content-Type says (or omits).
        content = response.content.decode("utf-8", errors="replace")
        if path is None:
            path = unquote(response.headers.get("Content-Location", ""))
        return Note(path=path, content=content)

    async def read_file(self, path: str) -> bytes:
        """Any file's bytes, as the plugin serves them."""
        url, call = self._note(path)
        response = await self._send("GET", url, call)
        _refuse_folder_listing(response, path)
        return response.content

    async def read_note_json(self, path: str | None) -> dict[str, Any]:
        """The plugin's note JSON: path, content, frontmatter, tags, stat (links from 4.0)."""
        url, call = self._note(path)
        response = await self._send("GET", url, call, headers={"Accept": NOTE_JSON_TYPE})
        _refuse_folder_listing(response, path)
        return parse_as(response, NOTE_JSON, "the note JSON")

    async def read_document_map(self, path: str | None) -> DocumentMap:
        """Headings as full ``A::B`` paths, block ids, frontmatter keys (the 1.x shape).

        We do not send ``Markdown-Patch-Version: 1`` (deprecated, gone in 6.0): 5.x's nested
        heading tree is flattened here, with the duplicate markers stripped from its keys.
        Before 3.4.0 there is no document map, so it is built from the note's markdown.
        """
        url, call = self._note(path)  # validates the path before any request
        if not (await self.features()).has("document_map"):
            return markdown.document_map((await self.read_note(path)).content)
        response = await self._send("GET", url, call, headers={"Accept": DOCUMENT_MAP_TYPE})
        _refuse_folder_listing(response, path)
        return parse_model(response, DocumentMapAnswer, "the document map").normalised()

    def _note(self, path: str | None) -> tuple[str, Call]:
        if path is None:
            return "/active/", Call(ACTIVE_FILE, _NO_ACTIVE_FILE)
        validate_vault_path(path)
        return f"/vault/{encode_vault_path(path)}", note_call(path)

    # --- searching ------------------------------------------------------------------------

    async def search_simple(self, query: str, context_length: int) -> list[SimpleHit]:
        """Obsidian's simple search over every note: raw plugin results."""
        require_whole_characters(query, "query")
        encoded = len(quote(query, safe=""))
        if encoded > MAX_QUERY_URL_BYTES:
            raise InvalidArgument(
                f"The query is {len(query):,} characters ({encoded:,} once encoded for the URL it "
                f"travels in); the plugin accepts about {MAX_QUERY_URL_BYTES:,}. Search for a "
                "few distinctive words instead, or use "
                f"{calls.call('search_vault', query=calls.Raw('<JsonLogic>'))}."
            )
        response = await self._send(
            "POST",
            "/search/simple/",
            Call("/search/simple/", str(_NO_SUCH_ROUTE)),
            params={"query": query, "contextLength": context_length},
            search=True,
        )
        return parse_as(response, SIMPLE_RESULTS, "the search results")

    async def search_jsonlogic(self, query: Any) -> list[dict[str, Any]]:
        """A JsonLogic query evaluated against every note's JSON: ``[{filename, result}]``."""
        return await self._structured_search(json.dumps(query), JSONLOGIC_TYPE)

    async def marked_notes(self) -> dict[str, Marks]:
        """The notes carrying a protection tag: one JsonLogic search over every note.

        On 4.0.0-4.0.2 that search is quadratic in the notes, so a simple search per tag
        finds the notes whose text names it (a few, as a rule), and each one's note JSON
        decides: three searches and one read per candidate.
        """
        if not quadratic_search((await self.features()).version):
            return marked_from_rows(await self.search_jsonlogic(MARKED_QUERY))
        candidates: set[str] = set()
        for tag in sorted(PROTECTION_TAGS):
            candidates.update(hit["filename"] for hit in await self.search_simple(tag, 0))
        rows: list[dict[str, Any]] = []
        for path in sorted(candidates):
            try:
                note = await self.read_note_json(path)
            except (NotFound, NotANote):
                continue  # gone since the search
            rows.append({"filename": path, "result": [note.get("frontmatter"), note.get("tags")]})
        return marked_from_rows(rows)

    async def search_dql(self, query: str) -> list[dict[str, Any]]:
        """A Dataview DQL TABLE query (plugin 1.4.0 up to, not including, 4.0.0)."""
        (await self.features()).require(
            "dataview_search", action=calls.call("search_vault", queryType="dataview")
        )
        return await self._structured_search(query, DQL_TYPE)

    async def _structured_search(self, body: str, content_type: str) -> list[dict[str, Any]]:
        response = await self._send(
            "POST",
            "/search/",
            Call("/search/", str(_NO_SUCH_ROUTE)),
            headers={"Content-Type": content_type},
            content=utf8(body, "the query"),
            search=True,
        )
        rows = parse_as(response, STRUCTURED_RESULTS, "the search results")
        return [dict(row) for row in rows]

    async def search_local(
        self, query: str, *, mode: LocalMode, wanted: Callable[[str], bool], limit: int
    ) -> LocalResults | None:
        return None  # no vault folder here: semantic search is Smart Connections'

    async def search_smart(
        self,
        query: str,
        *,
        folders: list[str] | None,
        exclude_folders: list[str] | None,
        limit: int,
    ) -> list[dict[str, Any]]:
        """Semantic search through the MCP Tools companion plugin and Smart Connections."""
        search_filter: dict[str, Any] = {"limit": limit}
        if folders:
            search_filter["folders"] = folders
        if exclude_folders:
            search_filter["excludeFolders"] = exclude_folders
        # The route parses its body from a string: sent as application/json, the Local REST API
        # would pre-parse it into an object and the route would reject it (NOTES.md §10).
        body = json.dumps({"query": query, "filter": search_filter}, ensure_ascii=False)
        response = await self._send(
            "POST",
            "/search/smart",
            Call("/search/smart", str(_SMART_SEARCH_MISSING), special=_smart_search_failure),
            headers={"Content-Type": MARKDOWN},
            content=utf8(body, "the query"),
            search=True,
        )
        return list(parse_model(response, SmartSearchAnswer, "the semantic search results").results)

    async def list_tags(self) -> list[dict[str, Any]]:
        """Every tag with its count (``{"name", "count"}``), plugin 3.5.0 and later."""
        (await self.features()).require("tags", action="Listing tags")
        response = await self._send("GET", "/tags/", Call("/tags/", str(_NO_SUCH_ROUTE)))
        return list(parse_model(response, TagsAnswer, "the tag list").tags)

    async def note_links(self) -> list[NoteLinks]:
        """Every note's links from one JsonLogic search (plugin 4.0.0 and later)."""
        return await search_note_links(self)

    # --- writing (never retried: see _send) ----------------------------------------------

    async def write_note(self, path: str | None, content: str) -> None:
        """Create or replace the whole note, creating its folders; None = the active file."""
        url, call = self._note(path)
        body = utf8(content, "content")
        await self._send("PUT", url, call, headers=_MARKDOWN_BODY, content=body)

    async def write_note_if_unchanged(self, path: str, expected: str | None, content: str) -> bool:
        """Write the note only while it reads ``expected`` (None: while it does not exist).
        No plugin version can make a write conditional, so the note is read again just
        before the PUT: a change landing between that read and the write is lost, as with
        any editor's save (docs/design.md, "Changes made elsewhere")."""
        try:
            current: str | None = (await self.read_note(path)).content
        except NotFound:
            current = None
        if current != expected:
            return False
        await self.write_note(path, content)
        return True

    async def append_note(self, path: str | None, content: str) -> None:
        """Append to the note, creating it if missing (the plugin first adds a newline when
        the note does not end with one); None = the active file."""
        url, call = self._note(path)
        body = utf8(content, "content")
        await self._send("POST", url, call, headers=_MARKDOWN_BODY, content=body)

    async def patch_note(self, path: str | None, request: PatchRequest) -> str:
        """Apply ``request`` in the format the running plugin wants (see ``patch.py``).

        Returns the plugin's 200 body: the whole updated note.
        """
        url, call = self._note(path)
        version = (await self.status()).plugin_version
        headers, body = encode_patch(request, version)
        call = patch_call(call, request, version)
        response = await self._send("PATCH", url, call, headers=headers, content=body)
        return response.content.decode("utf-8", errors="replace")

    async def delete_note(self, path: str | None, *, permanent: bool) -> None:
        """Delete the note. From 5.0 it goes to Obsidian's trash unless ``permanent``; before,
        the plugin always deletes permanently."""
        url, call = self._note(path)
        trash = (await self.features()).has("trash_delete")
        params = {"permanent": "true"} if permanent and trash else None
        call = delete_call(call)
        await self._send("DELETE", url, call, params=params)

    async def delete_listed_file(self, path: str, *, permanent: bool) -> None:
        """Delete a file that a listing has just shown as a file (bulk delete's step)."""
        await self.delete_note(path, permanent=permanent)

    async def move_note(
        self, source: str, destination: str, *, overwrite: bool, dry_run: bool = False
    ) -> LinkUpdates | None:
        """MOVE with Obsidian's rename, so links to the note are updated (plugin >= 4.1.0).

        Obsidian says nothing of the links it rewrote, so the answer is None. A dry run checks
        that the note exists and the destination is free, and sends no MOVE.
        Raises FeatureUnavailable before sending anything on older plugins.
        """
        url, call = self._note(source)
        validate_vault_path(destination)
        if dry_run:
            await self.read_note(source)  # NotFound, or NotANote for a folder
            if not overwrite and await self.note_size(destination) is not None:
                raise DestinationExists(destination)
            return None
        (await self.features()).require("move", action="Moving a note with MOVE")
        headers = {"Destination": encode_header_value(destination)}
        if overwrite:
            headers["Allow-Overwrite"] = "true"
        call = move_call(call, destination)
        await self._send("MOVE", url, call, headers=headers)
        return None

    async def note_size(self, path: str) -> int | None:
        """The note's length in characters, or None if there is no such note."""
        try:
            note = await self.read_note(path)
        except NotFound:
            return None
        return len(note.content)

    async def open_note(self, path: str, *, new_leaf: bool) -> None:
        """Show the note in Obsidian (Obsidian creates it if it does not exist)."""
        validate_vault_path(path)
        await self._send(
            "POST",
            f"/open/{encode_vault_path(path)}",
            Call(path, str(_NO_SUCH_ROUTE)),
            params={"newLeaf": "true" if new_leaf else "false"},
        )

    # --- commands -------------------------------------------------------------------------

    async def list_commands(self) -> list[dict[str, Any]]:
        """Every command Obsidian knows: ``[{"id", "name"}]``."""
        response = await self._send("GET", "/commands/", Call("/commands/", str(_NO_SUCH_ROUTE)))
        answer = parse_model(response, CommandsAnswer, "the command list")
        return [command.model_dump() for command in answer.commands]

    async def execute_command(self, command_id: str) -> None:
        """Run a command by id, e.g. ``editor:toggle-bold``."""
        if command_id.strip() in ("", ".", ".."):
            raise InvalidArgument(
                f"{command_id!r} is not a command id; {calls.call('list_commands')} lists them."
            )
        # one URL segment: '/' and the rest encoded, ':' (in every plugin's ids) kept
        require_whole_characters(command_id, "commandId")
        segment = quote(command_id, safe=":")
        about = Call(
            command_id, f"{calls.call('list_commands')} lists the command ids.", _command_failure
        )
        await self._send("POST", f"/commands/{segment}/", about)

    # --- periodic notes (plugin < 5.0.2) --------------------------------------------------

    async def read_periodic(self, period: str, date: datetime.date | None) -> Note:
        """The current (or dated) periodic note; its path comes from ``Content-Location``."""
        url, call = await self._periodic(period, date, "Reading periodic notes")
        response = await self._send("GET", url, call, headers={"Accept": MARKDOWN})
        content = response.content.decode("utf-8", errors="replace")
        return Note(path=unquote(response.headers.get("Content-Location", "")), content=content)

    async def append_periodic(self, period: str, content: str, date: datetime.date | None) -> None:
        """Append to the current (or dated) periodic note; the plugin creates it if missing."""
        url, call = await self._periodic(period, date, "Appending to periodic notes")
        body = utf8(content, "content")
        await self._send("POST", url, call, headers=_MARKDOWN_BODY, content=body)

    async def _periodic(
        self, period: str, date: datetime.date | None, action: str
    ) -> tuple[str, Call]:
        period = period.strip().lower()
        if period not in PERIODS:
            raise InvalidArgument(f"Unknown period {period!r}; use one of: {', '.join(PERIODS)}.")
        features = await self.features()
        features.require("periodic_notes", action=action)
        subject = periodic_subject(period, date)
        if date is None:
            url = f"/periodic/{period}/"
        else:
            features.require("periodic_dated", action=f"{action} for a given date")
            url = f"/periodic/{period}/{date.year}/{date.month}/{date.day}/"
        return url, Call(subject, "", _periodic_failure(period, subject))

    # --- templates (the MCP Tools companion plugin) ---------------------------------------

    async def execute_template(
        self,
        name: str,
        arguments: dict[str, str],
        *,
        create_file: bool,
        target_path: str | None,
    ) -> dict[str, Any]:
        """Run a Templater template: ``{"message", "content"}`` with the rendered text.

        ``name`` is the template's vault path; with ``create_file`` the result is also written
        to ``target_path`` with ``.md`` added when missing, which must not exist yet. The
        companion writes exactly the path it is sent (``app.vault.create``), so the ``.md`` is
        added here, and what was checked is what is written.
        """
        validate_vault_path(name)
        if target_path is not None:
            target_path = template_target(target_path)
            validate_vault_path(target_path)
        elif create_file:
            raise InvalidArgument(
                "createFile=true needs a targetPath for the new note, e.g. 'Meetings/today.md'."
            )
        body: dict[str, Any] = {"name": name, "arguments": arguments, "createFile": create_file}
        if target_path is not None:
            body["targetPath"] = target_path
        response = await self._send(
            "POST",
            _TEMPLATES_ROUTE,
            Call(name, _TEMPLATES_MISSING, _template_failure(name)),
            headers={"Content-Type": "application/json"},
            content=utf8(json.dumps(body, ensure_ascii=False), "the template's arguments"),
        )
        return parse_as(response, JSON_OBJECT, "the template result")

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- the one place requests are sent --------------------------------------------------

    async def _send(
        self,
        method: str,
        url: str,
        call: Call,
        *,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, str | int] | None = None,
        content: bytes | None = None,
        search: bool = False,
    ) -> httpx.Response:
        if self._settings.api_key is None and (method, url) != ("GET", "/"):
            raise APIKeyMissing()
        timeout = self._settings.search_timeout if search else self._settings.timeout
        retries = 1 if method == "GET" else 0
        while True:
            started = time.perf_counter()
            try:
                response = await self._http.request(
                    method, url, headers=headers, params=params, content=content, io_timeout=timeout
                )
            except httpx.InvalidURL as exc:  # raised before anything is sent
                raise InvalidArgument(
                    f"The request cannot be sent: {exc}. Use a shorter path or query."
                ) from exc
            except _DROPPED as exc:
                detail = tls_failure(exc)
                if detail is None and retries:
                    retries -= 1
                    log.debug("%s %s dropped (%s); retrying once", method, url, type(exc).__name__)
                    continue
                if detail is not None or not isinstance(exc, httpx.ConnectError):
                    # connected, then the handshake broke or the request was dropped: the port
                    # may speak the other protocol (a refused connection never gets here)
                    mixed_up = await self._http.wrong_protocol()
                    if mixed_up is not None:
                        raise mixed_up from exc
                if detail is not None:
                    trust = tls_trust(self._settings)
                    raise ObsidianTLSError(self.base_url, detail, trust) from exc
                # a refused connection sent nothing; a dropped one may have been acted on
                sent = not isinstance(exc, httpx.ConnectError)
                raise ObsidianUnreachable(self.base_url, sent=sent) from exc
            except httpx.TimeoutException as exc:
                sent = not isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout)
                raise ObsidianTimeout(self.base_url, timeout, sent=sent) from exc
            except httpx.RequestError as exc:  # proxy, protocol, decoding: no usable answer
                raise ObsidianUnreachable(self.base_url, sent=True) from exc
            elapsed_ms = (time.perf_counter() - started) * 1000
            log.debug("%s %s -> %d in %.0f ms", method, url, response.status_code, elapsed_ms)
            if response.is_success:
                return response
            raise error_for(response, call)


def template_target(path: str) -> str:
    """The note a template's result is written to: ``path`` with ``.md`` added when missing
    (in any case: 'Plan.MD' is a note already). vaultgate sends this path, so the policy, the
    tags and the length limits are asked of the note that is written."""
    return path if path.lower().endswith(".md") else f"{path}.md"


def note_call(path: str) -> Call:
    """A request about the note ``path``: a 404 points to its folder's listing."""
    parent = path.rpartition("/")[0]
    return Call(
        path,
        calls.Later(
            lambda: f"{calls.call('list_vault_files', directory=parent)} shows what exists."
        ),
    )


def patch_call(call: Call, request: PatchRequest, version: Version) -> Call:
    call = replace(call, special=_patch_failure)
    if FeatureSet(version).has("patch_v2"):
        # 2.0 answers 404 for a missing target too, not only for a missing note.
        call = replace(call, not_found=_missing_note_or_target(call.not_found, request))
    return call


def delete_call(call: Call) -> Call:
    return replace(call, special=_section_delete_refused)


def move_call(call: Call, destination: str) -> Call:
    return replace(call, special=_destination_exists(destination))


def active_not_found() -> NotFound:
    """What reading the open note answers when no note is open."""
    return NotFound(ACTIVE_FILE, _NO_ACTIVE_FILE)


def periodic_subject(period: str, date: datetime.date | None) -> str:
    """How a periodic note is named in messages: its path is Obsidian's to know."""
    if date is None:
        return f"the {period} note"
    return f"the {period} note for {date.isoformat()}"


def periodic_not_found(period: str, subject: str) -> NotFound:
    """What reading a periodic note that does not exist yet answers."""
    create = calls.call("append_to_periodic_note", period=period, content=calls.Raw("<text>"))
    return NotFound(subject, f"It has not been created yet; {create} creates it.")


def template_not_found(name: str) -> NotFound:
    """What running a template that does not exist answers."""
    return NotFound(
        name,
        "Give the template's vault path, e.g. 'Templates/Meeting.md'; "
        f"{calls.call('list_vault_files', directory='Templates')} finds it.",
    )


# The plugin's sentence for a query that fails on a note (errorCode 40070).
QUERY_NOT_PROCESSED = "The query you provided could not be processed."


def query_failed(reason: str) -> ObsidianAPIError:
    """What the plugin answers when a search query fails on a note (``reason`` names it):
    vaultgate answers the same when it evaluates the query itself (``vault/unseen.py``)."""
    code = 40070
    return ObsidianAPIError(400, code, f"{QUERY_NOT_PROCESSED}\n{reason}", str(_HINTS_400[code]))


def folder_not_found(directory: str) -> NotFound:
    """What listing a missing folder answers (a denied one answers the same: see guard.py)."""
    parent = normalize_directory(directory).removesuffix("/").rpartition("/")[0]
    return NotFound(
        directory,
        f"{calls.call('list_vault_files', directory=parent)} shows what exists; folders with no "
        "files in them do not exist for Obsidian.",
    )


def _refuse_folder_listing(response: httpx.Response, path: str | None) -> None:
    """NotANote if a note read was answered with a folder listing.

    The plugin lists a folder whose path comes without the trailing slash; a file it serves
    always carries Content-Disposition, a listing never does.
    """
    if "content-disposition" in response.headers:
        return
    if not response.headers.get("content-type", "").startswith("application/json"):
        return
    try:
        body = json.loads(response.content)
    except ValueError:
        return
    if isinstance(body, dict) and list(body) == ["files"] and isinstance(body["files"], list):
        raise NotANote(path or "")


def error_for(response: httpx.Response, call: Call) -> ObsidianError:
    """The error an answer with a non-2xx status stands for."""
    if call.special is not None and (special := call.special(response)) is not None:
        return special
    status = response.status_code
    if status == 401:
        return AuthenticationFailed()
    if status == 404:
        return NotFound(call.subject, str(call.not_found))
    code, message = _error_body(response)
    if status == 400 and code == PATCH_FAILED:
        reason = _patch_reason(response)
        hint = _PATCH_REASON_HINTS.get(reason or "", _PATCH_FAILED_HINT)
        return PatchRejected(status, code, message, hint, reason)
    if status >= 500:
        hint = _INTERNAL_ERROR
    elif status == 405:
        hint = str(_HINTS_405.get(code or 0, "The Local REST API does not allow that here."))
    elif status == 400:
        hint = str(_HINTS_400.get(code or 0, ""))
    elif status == 412:
        hint = _CHANGED_MEANWHILE
    else:
        hint = ""
    return ObsidianAPIError(status, code, message, hint)


def _json_body(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:  # not JSON, or not UTF-8
        return None


def _error_body(response: httpx.Response) -> tuple[int | None, str]:
    """(errorCode, message) from the plugin's ``{"message", "errorCode"}``, or what there is.

    Extension routes answer ``{"error", "summary"}``; anything unparseable falls back to the
    reason phrase, so a proxy's HTML page never reaches the model.
    """
    body = _json_body(response)
    code: int | None = None
    parts: list[str] = []
    if isinstance(body, dict):
        raw_code = body.get("errorCode")
        if isinstance(raw_code, int) and not isinstance(raw_code, bool):
            code = raw_code
        for key in ("message", "error", "summary"):
            value = body.get(key)
            if isinstance(value, str) and value.strip():
                parts.append(value)
            elif value is not None and key == "summary":
                parts.append(json.dumps(value, ensure_ascii=False)[:300])
    message = ": ".join(parts) or response.reason_phrase or f"HTTP {response.status_code}"
    # The plugin appends details after a newline; keep one line, without a doubled full stop.
    lines = (line.strip() for line in message.splitlines())
    return code, ": ".join(line for line in lines if line).rstrip(".")


def _patch_reason(response: httpx.Response) -> str | None:
    """markdown-patch's reason: the second line of a 40080 message (``invalid-target``, ...)."""
    body = _json_body(response)
    message = body.get("message") if isinstance(body, dict) else None
    if not isinstance(message, str):
        return None
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return lines[1] if len(lines) > 1 else None


def _patch_failure(response: httpx.Response) -> ObsidianError | None:
    if response.status_code == 409:  # 2.0's answer where 1.x says 40080
        code, message = _error_body(response)
        return PatchRejected(409, code, message, _PATCH_CONFLICT, None)
    return None


def _missing_note_or_target(note_hint: str | calls.Later, request: PatchRequest) -> str:
    target = request.target_value()
    if isinstance(target, tuple):
        shown = "::".join(target)
    else:
        shown = f"^{target}" if request.target_type == "block" else target
    return (
        f"Either the note or its {request.target_type} {shown!r} is missing. For the note: "
        f"{note_hint} For the target: read the note with format='map' to see its heading "
        "paths, block ids and frontmatter keys, or pass createTargetIfMissing=true."
    )


def _section_delete_refused(response: httpx.Response) -> ObsidianError | None:
    code, message = _error_body(response)
    if response.status_code == 405 and code != 40510:  # 40510 (a folder) has its own hint
        return ObsidianAPIError(
            405,
            code,
            message,
            "Only whole notes can be deleted; to empty a section, patch it with "
            "operation='replace' and empty content.",
        )
    return None


def _destination_exists(destination: str) -> Callable[[httpx.Response], ObsidianError | None]:
    def special(response: httpx.Response) -> ObsidianError | None:
        return DestinationExists(destination) if response.status_code == 409 else None

    return special


def _command_failure(response: httpx.Response) -> ObsidianError | None:
    if response.status_code == 500:
        code, message = _error_body(response)
        return ObsidianAPIError(500, code, message, _COMMAND_FAILED)
    return None


def _periodic_failure(
    period: str, subject: str
) -> Callable[[httpx.Response], ObsidianError | None]:
    def special(response: httpx.Response) -> ObsidianError | None:
        code, _message = _error_body(response)
        if response.status_code == 404:
            if code == 40460:
                return NotFound(f"the {period} period", f"Use one of: {', '.join(PERIODS)}.")
            if code == 40461:
                return periodic_not_found(period, subject)
            return FeatureUnavailable(
                "periodic_notes",
                "This Local REST API has no /periodic/ route; read or write the periodic note "
                "by its vault path instead.",
            )
        if response.status_code == 400 and code == 40060:
            return FeatureUnavailable(
                "periodic_notes",
                f"The {period} period is not enabled in Obsidian: turn it on in the Periodic "
                "Notes plugin's settings (daily notes: the core Daily Notes plugin), or use the "
                "note's vault path.",
            )
        return None

    return special


def _template_failure(name: str) -> Callable[[httpx.Response], ObsidianError | None]:
    """The companion plugin answers ``{"error", "summary"?}``; the Local REST API, when the
    route is not there, its own ``{"message", "errorCode"}``."""

    def special(response: httpx.Response) -> ObsidianError | None:
        status = response.status_code
        body = _json_body(response)
        from_companion = isinstance(body, dict) and "error" in body
        code, message = _error_body(response)
        if status == 404:
            if not from_companion:
                return FeatureUnavailable("templates", _TEMPLATES_MISSING)
            return template_not_found(name)
        if status == 400:
            return ObsidianAPIError(
                400,
                code,
                message,
                "Check name (the template's vault path) and arguments (names to text values).",
            )
        if status == 503:
            return FeatureUnavailable(
                "templates",
                f"The template could not run ({message}). The MCP Tools plugin needs Templater "
                "installed and enabled in Obsidian, the template must run there without errors, "
                "and with createFile the targetPath must not exist yet.",
            )
        return None

    return special


def _smart_search_failure(response: httpx.Response) -> ObsidianError | None:
    if response.status_code == 404:
        return FeatureUnavailable("smart_search", str(_SMART_SEARCH_MISSING))
    if response.status_code == 503:
        _code, detail = _error_body(response)
        return FeatureUnavailable(
            "smart_search",
            f"Semantic search is unavailable ({detail}): the Smart Connections plugin must be "
            "installed, enabled and done indexing in Obsidian. Meanwhile use "
            f"{calls.call('search_vault_simple', query=_WORDS)}.",
        )
    return None
