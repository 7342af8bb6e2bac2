"""The two SDD answers: sdd_get_context and sdd_context_check, each a vault part and a memory
part.

The vault part needs Obsidian; the memory part needs only the local database. When Obsidian
cannot be reached (VAULT_DOWN), the vault part becomes one line saying why and the memory part
is still given in full. Argument mistakes (an unknown project, change or stage) are errors that
list what exists, so the next call can succeed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from vaultgate.calls import Raw, call
from vaultgate.errors import InvalidArgument, InvalidMemoryInput, MemoryStoreError
from vaultgate.memory.gateway import MemoryGateway
from vaultgate.memory.models import SearchOptions
from vaultgate.memory.render import SUMMARY_FOOTER, DetailLevel, plural, truncate
from vaultgate.paging import compact_json, window_text
from vaultgate.sdd import render
from vaultgate.sdd.layout import ChangeLayout, Inventory, Stage
from vaultgate.sdd.matching import match, rank, search_words, words
from vaultgate.sdd.models import Change
from vaultgate.sdd.reader import VAULT_DOWN, SddVault, unavailable_reason

MEMORY_LIMIT = 5  # related observations per answer; mem_search pages through the rest
# Changes read per answer, by level: enough to fill the budget, few enough to read quickly.
MAX_CHANGES: Final[dict[DetailLevel, int]] = {"summary": 60, "standard": 12, "full": 6}
MAX_SCANNED = 50  # changes whose artifact titles sdd_context_check reads; the rest: slugs only
RESERVE = 600  # characters kept for the lines around a list: hints, notes, separators
DESCRIPTION_ECHO = 80


@dataclass(frozen=True, slots=True)
class ContextRequest:
    project: str | None = None
    change: str | None = None
    stage: Stage | None = None
    detail_level: DetailLevel = "summary"


# --- sdd_get_context -------------------------------------------------------------------------


async def get_context(vault: SddVault, memory: MemoryGateway, request: ContextRequest) -> list[str]:
    """Each change's stages (summary), with excerpts (standard) or windowed text (full); one
    change with ``change``, one artifact with ``stage``. Text blocks, the last one always ends
    the answer (and, at summary, with the footer)."""
    if request.stage is not None and request.change is None:
        raise InvalidArgument(
            f"stage={request.stage!r} needs change=<slug>. Call {call('sdd_get_context')} "
            "without stage to list the changes and their stages."
        )
    level = request.detail_level
    query = search_words(request.change) if request.change else ""
    memory_text = await related_memory(memory, query, request.project, level)
    footer = len(SUMMARY_FOOTER) + 1 if level == "summary" else 0
    budget = render.RESPONSE_BUDGET - len(memory_text) - footer - 1
    try:
        inventory = await vault.inventory()
        blocks = await _context_blocks(vault, inventory, request, budget)
    except VAULT_DOWN as exc:
        blocks = [render.unavailable(unavailable_reason(exc))]
    *document, vault_text = blocks
    return [*document, render.finish([vault_text, memory_text], level)]


async def _context_blocks(
    vault: SddVault, inventory: Inventory, request: ContextRequest, budget: int
) -> list[str]:
    if not inventory.exists:
        return [render.no_artifacts(inventory.folder)]
    project = _resolve_project(inventory, request.project, strict=True)
    if request.change is None:
        return [await _list_changes(vault, inventory, project, request.detail_level, budget)]
    layout = _find_change(inventory, project, request.change)
    if request.stage is None:
        (change,) = await vault.load([layout])
        head = (
            f"SDD change {change.name} in {layout.folder} (sizes in characters): "
            f"{render.stage_sizes(change)}."
        )
        fitted = render.fit_changes(
            [change], request.detail_level, qualified=True, budget=budget - len(head) - 1
        )
        body = fitted.text if request.detail_level != "summary" else ""
        return ["\n".join(part for part in (head, body) if part)]
    return await _one_stage(vault, layout, request.stage, request.detail_level, budget)


async def _list_changes(
    vault: SddVault, inventory: Inventory, project: str | None, level: DetailLevel, budget: int
) -> str:
    scope = inventory.changes_of(project)
    if not scope and project is None:
        return render.no_artifacts(inventory.folder, folder_exists=True)
    if project is not None:
        if not scope:
            return render.no_artifacts(inventory.folder, project)
        head = (
            f"SDD changes of project {project} in {inventory.folder}{project}/changes/: "
            f"{plural(len(scope), 'change')} (sizes in characters)."
        )
    else:
        counts = [f"{p} ({inventory.count_changes(p)})" for p in inventory.projects]
        projects = plural(len(inventory.projects), "project")
        head = (
            f"SDD artifacts in {render.place(inventory.folder)}: {projects}, "
            f"{plural(len(scope), 'change')} (sizes in characters). Changes per project: "
            f"{render.names(counts)}."
        )
    changes = await vault.load(scope[: MAX_CHANGES[level]])
    fitted = render.fit_changes(
        changes, level, qualified=project is None, budget=budget - len(head) - RESERVE
    )
    more = "Pass change=<slug> for one change"
    more += ", project=<name> for one project" if project is None else ""
    folder = f"{inventory.folder}{project or '<project>'}/changes/"
    more += f"; list every change with {call('list_vault_files', directory=folder)}."
    hint = render.changes_hint(fitted.shown, len(scope), more)
    return "\n".join(part for part in (head, fitted.text, hint) if part)


async def _one_stage(
    vault: SddVault, layout: ChangeLayout, stage: Stage, level: DetailLevel, budget: int
) -> list[str]:
    if stage not in layout.stages:
        has = ", ".join(layout.stages) or "no stage files yet"
        raise InvalidArgument(
            f"Change {layout.name} has no {stage}.md; it has: {has}. Its folder is {layout.folder}."
        )
    (change,) = await vault.load([layout], stages=(stage,))
    artifact = change.artifact(stage)
    if artifact is None:  # deleted between listing and reading
        raise InvalidArgument(
            f"{layout.stages[stage]} is gone (deleted since it was listed). Call "
            f"{call('sdd_get_context', change=layout.slug)} to see what the change has now."
        )
    others = [s for s in layout.stages if s != stage]
    head = (
        f"SDD {change.name} {artifact.filename}: {render.chars(artifact.size)} characters "
        f"({artifact.path}). Other stages: {', '.join(others) or 'none'}."
    )
    match level:
        case "summary":
            return [head]
        case "standard":
            excerpt = truncate(artifact.content, render.ARTIFACT_EXCERPT)
            return [f"{head}\n{excerpt}"]
        case "full":
            # The window takes what the head, the notice and the metadata block leave.
            longest = {"path": artifact.path, "stage": stage, **_widest_metadata(artifact.size)}
            notice = render.read_more_line(artifact.path, artifact.size, artifact.size)
            room = budget - len(head) - len(notice) - len(compact_json(longest)) - 4
            window = window_text(
                artifact.content, start_index=0, max_length=max(render.MIN_WINDOW, room)
            )
            body = window.text
            if window.has_more:
                separator = "" if body.endswith("\n") else "\n"
                body = f"{body}{separator}\n{render.read_more(artifact.path, window)}"
            if not window.truncated:  # as get_vault_file: a whole artifact needs no metadata
                return [body, head]
            metadata = {"path": artifact.path, "stage": stage, **window.metadata()}
            return [body, compact_json(metadata), head]


def _widest_metadata(size: int) -> dict[str, object]:
    return {
        "truncated": False,
        "totalLength": size,
        "startIndex": 0,
        "endIndex": size,
        "nextIndex": size,
        "hasMore": False,
    }


# --- sdd_context_check -----------------------------------------------------------------------


async def context_check(
    vault: SddVault,
    memory: MemoryGateway,
    description: str,
    project: str | None,
    level: DetailLevel,
) -> str:
    """Changes whose slug or artifact titles share words with ``description``, their artifacts at
    ``level``, and the memory observations a search for the description finds."""
    if not description.strip():
        raise InvalidArgument(
            "change_description is empty. Describe the change in a few words, e.g. 'add "
            "dispatcher tools for the vault'."
        )
    wanted = words(description)
    echo = truncate(description, DESCRIPTION_ECHO)
    where = f" (project {project})" if project else ""
    head = f'SDD context check for "{echo}"{where}. Sizes are in characters.'
    memory_text = await related_memory(memory, description, project, level)
    footer = len(SUMMARY_FOOTER) + 1 if level == "summary" else 0
    budget = render.RESPONSE_BUDGET - len(head) - len(memory_text) - footer - 2
    try:
        inventory = await vault.inventory()
        vault_text = await _check_vault(vault, inventory, wanted, project, level, budget)
    except VAULT_DOWN as exc:
        vault_text = render.unavailable(unavailable_reason(exc))
    return render.finish([head, vault_text, memory_text], level)


async def _check_vault(
    vault: SddVault,
    inventory: Inventory,
    wanted: frozenset[str],
    project: str | None,
    level: DetailLevel,
    budget: int,
) -> str:
    if not inventory.exists:
        return render.no_artifacts(inventory.folder)
    resolved = _resolve_project(inventory, project, strict=False)
    if project is not None and resolved is None:
        known = render.names(list(inventory.projects)) or "none"
        return (
            f"No SDD project {project!r} in {render.place(inventory.folder)} (projects there: "
            f"{known}); call again without project to check them all."
        )
    scope = inventory.changes_of(resolved)
    if not scope:
        return render.no_artifacts(inventory.folder, resolved, folder_exists=True)
    if not wanted:
        return (
            "The description has no distinctive words to match (only common ones). Changes "
            f"there: {render.names([c.name for c in scope])}."
        )
    loaded = {c.name: c for c in await vault.load(scope[:MAX_SCANNED])}
    found = [
        m
        for layout in scope
        if (m := match(wanted, layout.slug, _titles(loaded.get(layout.name)), layout)) is not None
    ]
    ranked = rank(found)
    lines = [
        f"Words matched against change slugs and artifact titles: {render.names(sorted(wanted))}.",
    ]
    if len(scope) > MAX_SCANNED:
        lines.append(
            f"Titles were read for the first {MAX_SCANNED} of {len(scope)} changes; the rest "
            "were matched on their slugs only. Pass project= to narrow."
        )
    if not ranked:
        lines.append(
            f"No change shares a word with the description. Changes there: "
            f"{render.names([c.name for c in scope])}."
        )
        return "\n".join(lines)
    lines.append(f"Matching changes: {len(ranked)} of {len(scope)}, best first:")
    shown_layouts = [m.item for m in ranked[: MAX_CHANGES[level]]]
    missing = [layout for layout in shown_layouts if layout.name not in loaded]
    loaded.update({c.name: c for c in await vault.load(missing)})
    changes = [loaded[layout.name] for layout in shown_layouts]
    notes = {m.item.name: f" [shares: {', '.join(m.shared)}]" for m in ranked}
    others = [c.name for c in scope if c.name not in notes]
    tail = [f"Not matching: {render.names(others)}."] if others else []
    room = budget - sum(len(line) + 1 for line in (*lines, *tail)) - RESERVE
    fitted = render.fit_changes(
        changes, level, qualified=True, budget=room, notes=notes, whole=True
    )
    one = call("sdd_get_context", change=Raw("<slug>"))
    more = f"Add words to the description, pass project=, or call {one}."
    hint = render.changes_hint(fitted.shown, len(ranked), more)
    return "\n".join(part for part in (*lines, fitted.text, hint, *tail) if part)


def _titles(change: Change | None) -> list[str]:
    return [a.title for a in change.artifacts] if change is not None else []


# --- shared ----------------------------------------------------------------------------------


async def related_memory(
    memory: MemoryGateway, query: str, project: str | None, level: DetailLevel
) -> str:
    """The memory part: a search for ``query`` ('' = the most recent), AND then OR as the store
    does. A store failure becomes one line; a bad argument (project) stays an error."""
    options = SearchOptions(project=project, limit=MEMORY_LIMIT)
    try:
        result = await memory.run(lambda store: store.search(query, options))
    except InvalidMemoryInput:
        raise
    except MemoryStoreError as exc:
        return render.memory_unavailable(str(exc))
    about = [f"project {project}"] if project else []
    if query.strip():
        about.append(f'"{truncate(query, DESCRIPTION_ECHO)}"')
    return render.memory_section(result, level, about=", ".join(about))


def _resolve_project(inventory: Inventory, project: str | None, *, strict: bool) -> str | None:
    """The project folder ``project`` names (exactly, else ignoring case); None for all.

    ``strict``: an unknown name is an error listing the projects; else None is returned.
    """
    if project is None or not project.strip():
        return None
    wanted = project.strip()
    if wanted in inventory.projects:
        return wanted
    folded = [p for p in inventory.projects if p.casefold() == wanted.casefold()]
    if folded:
        return folded[0]
    if not strict:
        return None
    raise InvalidArgument(
        f"No SDD project {wanted!r} in {render.place(inventory.folder)}. Projects there: "
        f"{render.names(list(inventory.projects)) or 'none'}. Leave project out to see them all."
    )


def _find_change(inventory: Inventory, project: str | None, slug: str) -> ChangeLayout:
    scope = inventory.changes_of(project)
    found = [c for c in scope if c.slug == slug] or [
        c for c in scope if c.slug.casefold() == slug.strip().casefold()
    ]
    where = f"project {project}" if project else render.place(inventory.folder)
    if not found:
        known = render.names([c.slug if project else c.name for c in scope]) or "none yet"
        raise InvalidArgument(
            f"No change {slug!r} in {where}. Changes there: {known}. Call "
            f"{call('sdd_get_context', **({'project': project} if project else {}))} to see "
            "their stages."
        )
    if len(found) > 1:
        projects = ", ".join(c.project for c in found)
        raise InvalidArgument(
            f"Change {slug!r} exists in several projects ({projects}); pass project= too."
        )
    return found[0]
