"""The instructions the server hands the model at initialize, naming calls it can make.

They are written with vaultgate.calls, so that in the compact profile they name
``vault(operation="list")`` and in the full profile ``list_vault_files()``: spelled with the
server's own spelling when the server is built.
"""

from __future__ import annotations

from vaultgate.calls import Raw, call


def instructions() -> str:
    """The instructions, in the spelling in force (vaultgate.calls.spelled_by)."""
    words = Raw("<words>")
    note = "Projects/plan.md"
    return f"""\
Start with discover(): it lists every operation with its parameters (discover(operation=
'vault.read') explains one) and which features the user's plugin version has. Every hint and
error names a call you can make.

vaultgate reaches the user's Obsidian vault through the Local REST API plugin. Every response is
bounded so it never floods your context:
- Lists and searches come in pages: {{"<items>": [...], "pagination": {{total, offset, limit,
  hasMore, nextOffset}}}}. While hasMore is true, call again with offset=nextOffset.
- Note content comes in windows: the first block is the note's text alone; when it is not all
  of it, a second block says {{truncated, totalLength, startIndex, endIndex, nextIndex,
  hasMore}}. When hasMore is true, call again with startIndex=nextIndex.
Work from small to large: {call("list_vault_files")} or {call("search_vault_simple", query=words)}
to find notes ({call("list_vault_files", recursive=True, layout="tree", limit=1000)} walks a
whole folder most cheaply, grouped by folder), then
{call("get_vault_file", filename=note, format="map")} to see a long note's headings, then
{call("get_vault_file", filename=note, section="Parent::Child")} to read only the part you
need. Paths are vault-relative, e.g. '{note}'.

Memory keeps what you learn across sessions, in a local database. Find before you read, in
three steps: {call("mem_search", query=words, detail_level="summary")} (ids, types, titles: a
compact index), then {call("mem_timeline", observation_id=Raw("<id>"))} for what happened
around a hit in its session, then {call("mem_get_observations", ids=Raw("[<id>, ...]"))} for
the full text of the few that matter. detail_level: 'summary' to scan cheaply; 'standard'
(default) for short snippets; 'full' only when you need whole texts. A line 'Showing X of Y
...' means more exist than were shown: raise limit, add words, or open ids. A 'Token budget'
line means max_tokens cut the list: raise it or use summary. Start work on a project with
{call("mem_context", project=Raw("<project>"))}; save decisions, fixes and discoveries with
{call("mem_save", title=Raw("<title>"), content=Raw("<content>"))}; a topic_key keeps one
memory per topic: saving it again updates that memory, and the text it replaced stays
readable as a revision. To shrink old memory, call
{call("mem_compact", older_than_days=90)} only to list candidates, review them, then call it
again with compact_ids and a summary that keeps what still matters: all of it happens in one
transaction.

For spec-driven work, call {call("sdd_context_check", change_description=words)} before
starting a change: it lists matching changes, their artifacts and related memories.
{call("sdd_get_context")} gives stages and sizes; narrow it with change= and stage=, and use
detail_level='full' to read an artifact.
"""
