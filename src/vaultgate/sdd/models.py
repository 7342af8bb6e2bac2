"""The values the SDD answers are built from: frozen, free of HTTP and of MCP."""

from __future__ import annotations

from dataclasses import dataclass

from vaultgate import markdown
from vaultgate.sdd.layout import STAGES, ChangeLayout, Stage


@dataclass(frozen=True, slots=True)
class Artifact:
    """One stage file of a change, with its text as Obsidian returned it."""

    stage: Stage
    path: str
    content: str

    @property
    def filename(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def size(self) -> int:
        """In characters (Unicode code points), the unit of get_vault_file's startIndex."""
        return len(self.content)

    @property
    def title(self) -> str:
        """The first heading's text, or '' when the artifact has none."""
        headings = markdown.parse_headings(self.content)
        return headings[0].text if headings else ""


@dataclass(frozen=True, slots=True)
class Change:
    """A change folder and the stage files read from it, in stage order."""

    layout: ChangeLayout
    artifacts: tuple[Artifact, ...]

    @property
    def name(self) -> str:
        return self.layout.name

    @property
    def missing(self) -> tuple[Stage, ...]:
        """Stages with no file (or whose file vanished between listing and reading)."""
        present = {artifact.stage for artifact in self.artifacts}
        return tuple(stage for stage in STAGES if stage not in present)

    def artifact(self, stage: Stage) -> Artifact | None:
        return next((a for a in self.artifacts if a.stage == stage), None)
