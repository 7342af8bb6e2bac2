"""Where SDD artifacts live, and what a listing of the SDD folder says exists.

Pure: the reader lists the folder once (vault-relative file paths) and ``parse_inventory`` sorts
those paths into projects and changes. Paths that do not follow the layout are kept as a
change's "other files" when they are inside a change folder, and ignored otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

Stage = Literal["proposal", "spec", "design", "tasks", "verify"]
STAGES: tuple[Stage, ...] = ("proposal", "spec", "design", "tasks", "verify")
CHANGES = "changes"
LAYOUT = "<project>/changes/<slug>/{proposal,spec,design,tasks,verify}.md"


@dataclass(frozen=True, slots=True)
class ChangeLayout:
    """One change folder as the listing shows it: which stage files exist, and their paths."""

    project: str
    slug: str
    folder: str  # 'sdd/vaultgate/changes/add-dispatchers/'
    stages: dict[Stage, str] = field(default_factory=dict)  # stage -> vault path
    other_files: tuple[str, ...] = ()  # anything else inside the change folder

    @property
    def name(self) -> str:
        """``project/slug``: unique across the SDD folder."""
        return f"{self.project}/{self.slug}"

    @property
    def missing(self) -> tuple[Stage, ...]:
        return tuple(stage for stage in STAGES if stage not in self.stages)


@dataclass(frozen=True, slots=True)
class Inventory:
    """Everything under the SDD folder: its projects and their changes, sorted."""

    folder: str  # normalized: 'sdd/' ('' is the vault root)
    exists: bool  # False: the folder is not in the vault (yet)
    projects: tuple[str, ...] = ()
    changes: tuple[ChangeLayout, ...] = ()

    def changes_of(self, project: str | None) -> list[ChangeLayout]:
        """The changes of ``project`` (None: of every project), in order."""
        return [c for c in self.changes if project is None or c.project == project]

    def count_changes(self, project: str) -> int:
        return sum(1 for change in self.changes if change.project == project)


def parse_inventory(folder: str, paths: Iterable[str]) -> Inventory:
    """Sort the file paths below ``folder`` into projects and changes.

    Stage files are matched case-insensitively (``Spec.md`` is the spec); anything else inside
    ``<project>/changes/<slug>/`` (nested folders included) is one of that change's other files.
    """
    projects: set[str] = set()
    stages: dict[tuple[str, str], dict[Stage, str]] = {}
    others: dict[tuple[str, str], list[str]] = {}
    for path in paths:
        if not path.startswith(folder):
            continue
        parts = path[len(folder) :].split("/")
        if len(parts) < 2:
            continue  # a file directly in the SDD folder belongs to no project
        projects.add(parts[0])
        if len(parts) < 4 or parts[1] != CHANGES:
            continue
        key = (parts[0], parts[2])
        stages.setdefault(key, {})
        others.setdefault(key, [])
        stage = _stage_of(parts[3]) if len(parts) == 4 else None
        if stage is not None and stage not in stages[key]:
            stages[key][stage] = path
        else:
            others[key].append(path)
    changes = tuple(
        ChangeLayout(
            project=project,
            slug=slug,
            folder=f"{folder}{project}/{CHANGES}/{slug}/",
            stages={stage: found[stage] for stage in STAGES if stage in found},
            other_files=tuple(sorted(others[(project, slug)])),
        )
        for (project, slug), found in sorted(stages.items())
    )
    return Inventory(folder=folder, exists=True, projects=tuple(sorted(projects)), changes=changes)


def _stage_of(filename: str) -> Stage | None:
    lowered = filename.lower()
    return next((stage for stage in STAGES if lowered == f"{stage}.md"), None)
