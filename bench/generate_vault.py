"""A large, realistic vault for the benchmark, generated from a seed and cached on disk.

Notes have frontmatter, headings, paragraphs, lists, tasks, tags and wikilinks drawn from one
shared vocabulary, so searches behave as in a real vault: a broad word ("project") occurs in
thousands of notes, a rare one in a few. One note is about 1 MB, to measure reading in windows.

The vault lands in bench/.cache/<key>/ (gitignored), where the key names the generator version
and the parameters; a rerun with the same key reuses it. Bump VERSION whenever the output
changes, so a stale cache is never measured.

    python bench/generate_vault.py [--notes 20000] [--folders 2000] [--seed 7]
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import os
import random
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

VERSION = "1"
CACHE_DIR = Path(__file__).resolve().parent / ".cache"
BIG_NOTE = "Handbook.md"
BIG_NOTE_CHARS = 1_000_000
BROAD_WORD = "project"
BROAD_WORD_SHARE = 0.3  # of the notes, which mention BROAD_WORD at least once


def _words(text: str) -> tuple[str, ...]:
    """The distinct words of ``text``, in order."""
    return tuple(dict.fromkeys(text.split()))


TOP_FOLDERS = _words(
    "Projects Areas Resources Archive Journal Meetings People Research Clients Teams Reading "
    "Ideas Travel Health Finance Writing Courses Events Recipes Garden"
)
CODENAMES = _words(
    "Atlas Borealis Cobalt Delta Ember Falcon Granite Harbor Indigo Juniper Kestrel Lumen "
    "Meridian Nimbus Onyx Pioneer Quartz Raven Sierra Tundra Umber Vertex Willow Xenon Yarrow "
    "Zephyr Aurora Beacon Cascade Dune"
)
TOPICS = _words(
    "Planning Design Research Meetings Budget Hiring Launch Retro Specs Notes Reviews Drafts "
    "Interviews Metrics Roadmap Support Legal Vendors Training Reports"
)

# Ordered roughly by how often each word is used: the sampler weights them by 1/rank (Zipf).
VOCABULARY = _words("""
the team will we this that with for from next week review plan meeting notes update need
should about decision design draft budget timeline customer feedback issue risk goal launch
release data report quarter priority owner status blocked done follow discuss agree share
question answer idea proposal schedule deadline estimate scope milestone dependency sprint
backlog task ticket bug fix test deploy server client user interface research interview
survey result metric growth revenue cost hiring onboarding training document process policy
vendor contract legal security privacy audit compliance incident outage postmortem lesson
learning book chapter article summary quote reference source link archive reading writing
essay outline paragraph section heading template checklist habit routine morning evening
journal reflection gratitude health exercise sleep diet recipe garden travel flight hotel
itinerary budgeting savings invest account invoice payment tax expense receipt call email
message slack thread channel calendar invite agenda minutes action item recap retro demo
prototype sketch wireframe mockup architecture database schema migration index query cache
latency throughput memory storage network config deployment pipeline build release rollback
monitoring alert dashboard logging tracing experiment hypothesis analysis insight trend
forecast model dataset cleanup refactor library framework version upgrade support ticket
partner stakeholder manager director engineer designer analyst writer editor reviewer
""")

SENTENCE_WORDS = (6, 18)
PARAGRAPH_SENTENCES = (2, 6)


@dataclass(frozen=True, slots=True)
class GeneratedVault:
    path: Path
    notes: int  # markdown files, the big note included
    folders: int
    big_note: str  # vault-relative path of the ~1 MB note
    broad_word: str


def cache_key(notes: int, folders: int, seed: int) -> str:
    return f"vault-v{VERSION}-{notes}n-{folders}f-s{seed}"


def generate(notes: int = 20_000, folders: int = 2_000, seed: int = 7) -> GeneratedVault:
    """The vault for these parameters: from the cache, or generated (a few seconds) and cached."""
    if notes < folders:
        raise ValueError("every folder holds at least one note: notes must be >= folders")
    result = GeneratedVault(
        path=CACHE_DIR / cache_key(notes, folders, seed) / "vault",
        notes=notes + 1,
        folders=folders,
        big_note=BIG_NOTE,
        broad_word=BROAD_WORD,
    )
    if result.path.is_dir():
        return result
    final = result.path.parent
    # Built beside the final place and renamed into it, so an interrupted run leaves no
    # half-written vault under the real key.
    staging = final.with_name(f"{final.name}.tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    _write_vault(staging / "vault", notes=notes, folders=folders, rng=random.Random(seed))
    try:
        staging.rename(final)
    except OSError:  # another run finished first: its vault is the same one
        shutil.rmtree(staging, ignore_errors=True)
    return result


# --- structure -------------------------------------------------------------------------------


def folder_tree(count: int, rng: random.Random) -> list[str]:
    """``count`` folders three levels deep (about count^(1/3) at the top), parents first."""
    top = max(1, min(count, round(count ** (1 / 3))))
    second = min(count - top, top * top)
    third = count - top - second
    level1 = [_unique_name(TOP_FOLDERS, i) for i in range(top)]
    level2 = _children(level1, second, CODENAMES, rng)
    level3 = _children(level2 or level1, third, TOPICS, rng)
    return level1 + level2 + level3


def _children(
    parents: list[str], count: int, pool: tuple[str, ...], rng: random.Random
) -> list[str]:
    """Spread ``count`` subfolders over ``parents`` round-robin, names unique per parent."""
    offsets = {parent: rng.randrange(len(pool)) for parent in parents}
    made = dict.fromkeys(parents, 0)
    children: list[str] = []
    for i in range(count):
        parent = parents[i % len(parents)]
        n = made[parent]
        made[parent] = n + 1
        children.append(f"{parent}/{_unique_name(pool, n, offsets[parent])}")
    return children


def _unique_name(pool: tuple[str, ...], n: int, offset: int = 0) -> str:
    """The n-th distinct name from ``pool``, starting at ``offset``: 'Atlas', ..., 'Atlas 2'."""
    base = pool[(offset + n) % len(pool)]
    round_ = n // len(pool)
    return base if round_ == 0 else f"{base} {round_ + 1}"


def note_folders(folders: list[str], notes: int, rng: random.Random) -> list[str]:
    """The folder of each note: one in every folder (empty folders are invisible), the rest
    spread at random."""
    placed = list(folders)
    placed.extend(rng.choice(folders) for _ in range(notes - len(folders)))
    rng.shuffle(placed)
    return placed


# --- text ------------------------------------------------------------------------------------


class Writer:
    """Sentences, paragraphs and notes from the shared vocabulary."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.cum_weights = list(
            itertools.accumulate(1 / rank for rank in range(1, len(VOCABULARY) + 1))
        )

    def words(self, count: int) -> list[str]:
        return self.rng.choices(VOCABULARY, cum_weights=self.cum_weights, k=count)

    def sentence(self, extra: str | None = None) -> str:
        words = self.words(self.rng.randint(*SENTENCE_WORDS))
        if extra is not None:
            words.insert(self.rng.randrange(len(words) + 1), extra)
        text = " ".join(words)
        return text[0].upper() + text[1:] + "."

    def paragraph(self, links: list[str], broad: int) -> str:
        """A paragraph that uses ``broad`` mentions of BROAD_WORD and maybe one of ``links``."""
        sentences: list[str] = []
        for _ in range(self.rng.randint(*PARAGRAPH_SENTENCES)):
            extra: str | None = None
            if broad > 0 and self.rng.random() < 0.6:
                extra, broad = BROAD_WORD, broad - 1
            elif links and self.rng.random() < 0.25:
                extra = f"[[{links.pop()}]]"
            elif self.rng.random() < 0.05:
                extra = f"#{self.rng.choice(VOCABULARY[20:120])}"
            sentences.append(self.sentence(extra))
        return " ".join(sentences)

    def title(self) -> str:
        # Drawn evenly from the less common words: titles rarely collide and read like titles.
        text = " ".join(self.rng.choices(VOCABULARY[12:], k=self.rng.randint(2, 4)))
        return text[0].upper() + text[1:]

    def note(self, title: str, links: list[str], day: dt.date, broad: bool) -> str:
        rng = self.rng
        tags = sorted(set(rng.sample(VOCABULARY[20:200], rng.randint(0, 3))))
        if broad:
            tags = sorted({*tags, BROAD_WORD})
        lines = [
            "---",
            f"title: {title}",
            f"created: {day.isoformat()}",
            f"status: {rng.choice(('active', 'draft', 'done', 'someday'))}",
            f"tags: [{', '.join(tags)}]",
            "---",
            f"# {title}",
            "",
        ]
        mentions = rng.randint(1, 4) if broad else 0
        for _ in range(rng.randint(2, 4)):
            lines += [f"## {self.title()}", "", self.paragraph(links, mentions), ""]
            mentions = 0 if rng.random() < 0.5 else mentions
            match rng.randrange(4):
                case 0:
                    lines += [f"- {self.sentence()}" for _ in range(rng.randint(2, 5))] + [""]
                case 1:
                    lines += [
                        f"- [{rng.choice(' x')}] {self.sentence()}"
                        for _ in range(rng.randint(1, 4))
                    ] + [""]
                case 2:
                    lines += [self.paragraph(links, 0), ""]
                case _:
                    pass
        if links:
            lines += ["## Related", "", *(f"- [[{link}]]" for link in links), ""]
        return "\n".join(lines)

    def big_note(self, target_chars: int) -> str:
        """A handbook of chapters and sections, just over ``target_chars`` characters."""
        parts = ["---", "title: Handbook", "tags: [handbook, reference]", "---", "# Handbook", ""]
        size = sum(len(p) + 1 for p in parts)
        for chapter in itertools.count(1):
            heading = f"## Chapter {chapter}: {self.title()}"
            parts += [heading, ""]
            size += len(heading) + 2
            for section in range(1, 6):
                sub = f"### {chapter}.{section} {self.title()}"
                body = self.paragraph([], self.rng.randint(0, 2))
                parts += [sub, "", body, ""]
                size += len(sub) + len(body) + 4
            if size >= target_chars:
                return "\n".join(parts)
        raise AssertionError("unreachable")


def _write_vault(root: Path, *, notes: int, folders: int, rng: random.Random) -> None:
    tree = folder_tree(folders, rng)
    for folder in tree:
        root.joinpath(*folder.split("/")).mkdir(parents=True, exist_ok=True)
    writer = Writer(rng)
    titles: list[str] = []
    seen: set[str] = {BIG_NOTE.removesuffix(".md")}
    for _ in range(notes):
        title = writer.title()
        while title.lower() in seen:
            title = f"{title} {rng.randint(2, 99)}"
        seen.add(title.lower())
        titles.append(title)
    start = dt.date(2021, 1, 1)
    for folder, title in zip(note_folders(tree, notes, rng), titles, strict=True):
        links = rng.sample(titles, rng.randint(0, 4))
        day = start + dt.timedelta(days=rng.randrange(1_500))
        text = writer.note(title, links, day, broad=rng.random() < BROAD_WORD_SHARE)
        path = root.joinpath(*folder.split("/"), f"{title}.md")
        path.write_text(text, encoding="utf-8", newline="\n")
    root.joinpath(BIG_NOTE).write_text(
        writer.big_note(BIG_NOTE_CHARS), encoding="utf-8", newline="\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--folders", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    vault = generate(args.notes, args.folders, args.seed)
    print(vault.path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
