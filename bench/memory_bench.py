"""Benchmark of the memory store at 100,000 observations; writes its own section of
docs/benchmarks.md ("## Memory store", between <!-- bench:memory --> markers; see report.py).

    python bench/memory_bench.py           # 100,000 observations: a few minutes on 2 cores
    python bench/memory_bench.py --quick   # 10,000 observations; report to bench/.cache/

The database is generated once from a seed and cached in bench/.cache/ (the text recipe of
shared/memory-store-notes.md §8.2: 6-word titles, 120-word contents, 5% of words from a
10-word "common" pool, the rest from a 30,000-word vocabulary with a Zipf-like spread), in
batches of 100 rows per transaction so the FTS index has the segments of a store that grew
over time. Every run works on fresh copies. Times are taken in this process around what each
tool does (store call and rendering, no MCP transport), plus a few calls through the SDK's
in-process Client for the end-to-end cost.

Compaction and saves are measured side by side in the same run: "before" is the memory store
as it was at BASELINE (``--baseline``, a git revision; its src/ is taken from git into a
temporary folder), "after" is the store in this working tree. Each round runs one child
process per version (``--worker``, with PYTHONPATH set to that version's src/), alternating
which goes first, each on its own copy of the database (a newer schema is one the older store
refuses). Each figure is given as the best and the median of the rounds, since the machine is
shared. A last step times each SQL statement of a save and a compaction in both versions, and
the same save with the FTS5 index's trigger dropped, to show where the time goes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import math
import multiprocessing
import os
import platform
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from report import REPORT, write_section
from vaultgate.memory.connection import connect
from vaultgate.memory.migrations import MIGRATIONS, migrate
from vaultgate.memory.models import CompactRequest, SearchOptions
from vaultgate.memory.store import MemoryStore

ROOT = Path(__file__).resolve().parents[1]
CACHE_DIR = ROOT / "bench" / ".cache"
QUICK_REPORT = CACHE_DIR / "benchmarks-memory-quick.md"
SECTION = "## Memory store"
SEED = 7
PROJECTS = 20
TYPES = ("decision", "bugfix", "discovery", "pattern", "config", "manual")
PER_SESSION = 50
SPAN_DAYS = 400
RUNS = 50
COMPACTIONS = 20
SAVES = 2_000
WRITERS = 4
SAVES_PER_WRITER = 500
ROUNDS = 9
ANATOMY_ROUNDS = 3
ANATOMY_COMPACTIONS = 10
ANATOMY_SAVES = SAVES  # enough for the -wal bound's checkpoints to come in their share
PENDING_PROJECT = "project-19"  # compacted once by the reads, to time searches meanwhile
BASELINE = "8ef1c1f"  # the store before issue 11's second step: checkpoints already off commits
# The cached database's schema: the newest BASELINE's store opens. A file of the current
# schema is one the older store refuses; "after" migrates its copy, as a user's file is.
BASELINE_SCHEMA = 2
# The targets (issue 11) at 100,000 observations.
TARGET_QUERY_MS = 10.0
TARGET_COMPACT_MS = 15.0
TARGET_SAVES_PER_SECOND = 3_500
BEFORE, AFTER = "before", "after"
VERSIONS = (BEFORE, AFTER)


def log(message: str) -> None:
    print(f"[memory-bench] {message}", file=sys.stderr, flush=True)


# --- data -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Vocabulary:
    common: list[str]
    words: list[str]
    weights: list[float]

    @classmethod
    def make(cls, rng: random.Random) -> Vocabulary:
        syllables = ["ka", "lo", "mi", "ta", "ren", "sul", "vor", "ein", "dax", "pel", "qui"]
        syllables += ["zor", "bam", "tek", "niv", "hal", "gus", "fim", "ober", "ant"]
        found: set[str] = set()
        while len(found) < 30_010:
            found.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
        ordered = sorted(found)
        rng.shuffle(ordered)
        words = ordered[10:]
        cumulative, total = [], 0.0
        for rank in range(len(words)):
            total += 1 / (rank + 1) ** 0.8
            cumulative.append(total)
        return cls(common=ordered[:10], words=words, weights=cumulative)

    def text(self, rng: random.Random, count: int) -> str:
        drawn = rng.choices(self.words, cum_weights=self.weights, k=count)
        return " ".join(rng.choice(self.common) if rng.random() < 0.05 else w for w in drawn)


def generate(path: Path, count: int) -> float:
    """The database at ``path`` with ``count`` observations; returns the seconds it took."""
    started = time.perf_counter()
    rng = random.Random(SEED)
    vocabulary = Vocabulary.make(rng)
    # the schema as the server at BASELINE makes it (its migrations are the first ones of ours)
    made = connect(str(path))
    try:
        migrate(made, MIGRATIONS[:BASELINE_SCHEMA])
    finally:
        made.close()
    conn = sqlite3.connect(path, isolation_level=None)
    first = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
    step = dt.timedelta(days=SPAN_DAYS) / count
    batch = 100
    for start in range(0, count, batch):
        conn.execute("BEGIN")
        for i in range(start, min(count, start + batch)):
            stamp = (first + step * i).strftime("%Y-%m-%d %H:%M:%S")
            project = f"project-{i % PROJECTS}"
            session = f"{project}/{i // (PER_SESSION * PROJECTS)}"
            if i % (PER_SESSION * PROJECTS) < PROJECTS:
                conn.execute(
                    "INSERT INTO sessions (id, project, started_at, summary) VALUES (?, ?, ?, ?)",
                    (session, project, stamp, vocabulary.text(rng, 30)),
                )
            conn.execute(
                "INSERT INTO observations (session_id, type, project, scope, normalized_hash, "
                "created_at, updated_at, title, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session,
                    rng.choice(TYPES),
                    project,
                    "personal" if rng.random() < 0.1 else "project",
                    f"{rng.getrandbits(128):032x}",
                    stamp,
                    stamp,
                    vocabulary.text(rng, 6),
                    vocabulary.text(rng, 120),
                ),
            )
            if i % 10 == 0:
                conn.execute(
                    "INSERT INTO prompts (session_id, project, created_at, content) "
                    "VALUES (?, ?, ?, ?)",
                    (session, project, stamp, vocabulary.text(rng, 25)),
                )
        conn.execute("COMMIT")
        if start % 10_000 == 0:
            log(f"  {start:,} / {count:,}")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return time.perf_counter() - started


def cached_database(count: int) -> tuple[Path, float | None]:
    path = CACHE_DIR / f"memory-v3-{count}-s{SEED}.db"  # v3: made at BASELINE_SCHEMA
    if path.exists():
        return path, None
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    for stale in CACHE_DIR.glob(partial.name + "*"):
        stale.unlink()
    log(f"generating {count:,} observations into {path} …")
    seconds = generate(partial, count)
    partial.rename(path)
    return path, seconds


def term_frequencies(path: Path) -> tuple[str, int, str, int]:
    """The most frequent common-pool word, and the rarest word of the vocabulary."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, observations_fts, 'row')")
    common = Vocabulary.make(random.Random(SEED)).common
    marks = ",".join("?" * len(common))
    common_term, common_docs = conn.execute(
        f"SELECT term, doc FROM temp.vocab WHERE term IN ({marks}) ORDER BY doc DESC LIMIT 1",
        common,
    ).fetchone()
    rare_term, rare_docs = conn.execute(
        "SELECT term, doc FROM temp.vocab WHERE term NOT GLOB '*[0-9]*' ORDER BY doc, term LIMIT 1"
    ).fetchone()
    conn.close()
    return common_term, common_docs, rare_term, rare_docs


# --- timing ---------------------------------------------------------------------------------


@dataclass
class Row:
    label: str
    seconds: list[float] = field(default_factory=list)
    tokens: int | None = None
    target_ms: float | None = None

    @property
    def p50_ms(self) -> float:
        return statistics.median(self.seconds) * 1000

    @property
    def p95_ms(self) -> float:
        ordered = sorted(self.seconds)
        return ordered[math.ceil(0.95 * len(ordered)) - 1] * 1000


def timed(label: str, work: Callable[[int], str | None], runs: int = RUNS, **extra: Any) -> Row:
    from vaultgate.paging import estimate_tokens

    row = Row(label, **extra)
    work(0)  # warm the page cache and the statement cache once
    for n in range(runs):
        started = time.perf_counter()
        text = work(n)
        row.seconds.append(time.perf_counter() - started)
        if text is not None:
            row.tokens = estimate_tokens(text)
    log(f"  {label}: p50 {row.p50_ms:.2f} ms, p95 {row.p95_ms:.2f} ms")
    return row


@dataclass
class Compared:
    """One measure, per version, one value per round."""

    label: str
    unit: str  # "ms" (lower is better), "/s" (higher is better) or "MiB" (a bound)
    before: list[float] = field(default_factory=list)
    after: list[float] = field(default_factory=list)
    target: float | None = None
    target_text: str = "–"
    key: str = ""  # how render_comparison finds it

    def values(self, version: str) -> list[float]:
        return self.before if version == BEFORE else self.after

    def best(self, version: str) -> float:
        """The best round; for a size bound ("MiB"), the worst, which is what the bound is about."""
        values = self.values(version)
        return max(values) if self.unit in ("/s", "MiB") else min(values)

    def median(self, version: str) -> float:
        return statistics.median(self.values(version))

    def met(self) -> bool | None:
        if self.target is None or not self.after:
            return None
        if self.unit == "MiB":
            return self.best(AFTER) < self.target
        median = self.median(AFTER)
        return median >= self.target if self.unit == "/s" else median <= self.target

    def shown(self, version: str) -> str:
        if not self.values(version):
            return "–"
        if self.unit == "/s":
            return f"{self.best(version):,.0f} / {self.median(version):,.0f} /s"
        if self.unit == "MiB":
            return f"{self.best(version):.1f} / {self.median(version):.1f} MiB"
        return f"{self.best(version):.2f} / {self.median(version):.2f} ms"


@dataclass
class Report:
    observations: int
    db_bytes: int
    generated_seconds: float | None
    common: tuple[str, int]
    rare: tuple[str, int]
    baseline: str = BASELINE
    migration_seconds: float = 0.0
    reads: list[Row] = field(default_factory=list)
    end_to_end: list[Row] = field(default_factory=list)
    exact_rank_ms: float = 0.0
    compared: list[Compared] = field(default_factory=list)
    rounds: int = ROUNDS
    load: tuple[float, float] = (0.0, 0.0)  # the 1-minute load average at the start and the end
    saves_tool_per_second: float = 0.0
    writers: list[dict[str, Any]] = field(default_factory=list)
    # what -> version -> statement -> ms per call (median of the rounds); version "no_fts" too
    anatomy: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)


def measure_reads(store: MemoryStore, report: Report) -> None:
    from vaultgate.memory import render
    from vaultgate.memory import search as search_module

    common, rare = report.common[0], report.rare[0]
    rng = random.Random(SEED)
    total = report.observations

    def search(query: str, project: str | None) -> Callable[[int], str]:
        options = SearchOptions(project=project, limit=10)
        filters = render.describe_filters(project, None, None)

        def run(_: int) -> str:
            result = store.search(query, options)
            return render.render_search(
                result, query=query, filters=filters, detail_level="standard", max_tokens=2000
            )

        return run

    target = TARGET_QUERY_MS
    for label, query, project in (
        (f'mem_search "{common}" (common), all projects', common, None),
        (f'mem_search "{common}" (common), one project', common, "project-3"),
        (f'mem_search "{rare}" (rare), all projects', rare, None),
        (f'mem_search "{rare}" (rare), one project', rare, "project-3"),
        (f'mem_search "{common} {rare}" (AND)', f"{common} {rare}", None),
    ):
        report.reads.append(timed(label, search(query, project), target_ms=target))
    report.reads.append(
        timed(
            f'count_search_results "{common}", all projects',
            lambda _: str(store.count_search_results(common)),
            target_ms=target,
        )
    )
    report.reads.append(
        timed(
            f'count_search_results "{common}", one project',
            lambda _: str(store.count_search_results(common, SearchOptions(project="project-3"))),
            target_ms=target,
        )
    )
    report.reads.append(
        timed(
            f'count_search_results "{rare}"',
            lambda _: str(store.count_search_results(rare)),
            target_ms=target,
        )
    )
    report.reads.append(
        timed(
            "count_observations(), all projects",
            lambda _: str(store.count_observations()),
            target_ms=target,
        )
    )
    report.reads.append(
        timed(
            'count_observations("project-3", "project")',
            lambda _: str(store.count_observations("project-3", "project")),
            target_ms=target,
        )
    )

    def context(_: int) -> str:
        data = store.context("project-3", None, 20)
        return render.render_context(data, filters="project project-3", detail_level="standard")

    report.reads.append(timed("mem_context(project, limit=20), standard", context))

    def context_summary(_: int) -> str:
        data = store.context("project-3", None, 20)
        return render.render_context(data, filters="project project-3", detail_level="summary")

    report.reads.append(timed("mem_context(project, limit=20), summary", context_summary))

    focus = [rng.randint(1, total) for _ in range(RUNS + 1)]

    def timeline(n: int) -> str:
        data = store.timeline(focus[n], 5, 5)
        return render.render_timeline(data, detail_level="standard", max_tokens=2000)

    report.reads.append(timed("mem_timeline(id, 5, 5), standard", timeline))

    # For the record: ranking every match of the common word, without the newest-2,000 window.
    window = search_module.RANK_WINDOW
    search_module.RANK_WINDOW = 10**9
    try:
        exact = timed(
            f'mem_search "{common}", exact bm25 over every match',
            search(common, None),
            runs=15,
        )
    finally:
        search_module.RANK_WINDOW = window
    report.exact_rank_ms = exact.p50_ms

    # Right after a compaction, before the quiet moment: its 200 ids wait, left out of each read.
    stale = store.find_stale_observations(PENDING_PROJECT, "project", 30, 200)
    store.compact(
        CompactRequest(
            older_than_days=30,
            ids=tuple(s.id for s in stale),
            project=PENDING_PROJECT,
            scope="project",
        )
    )
    pending = store.pending_removals()
    report.reads.append(
        timed(
            f'mem_search "{common}" (common), all projects, {pending} compacted ids pending',
            search(common, None),
            target_ms=target,
        )
    )
    report.reads.append(
        timed(
            f'count_search_results "{common}", all projects, {pending} compacted ids pending',
            lambda _: str(store.count_search_results(common)),
            target_ms=target,
        )
    )
    store.when_idle()


# --- two versions of the store, side by side ------------------------------------------------


def baseline_src(revision: str, into: Path) -> Path:
    """The ``src/`` folder of ``revision``, taken from git into ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", revision, "src"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


@dataclass(frozen=True)
class Versions:
    """Where each version's code and database copy live."""

    src: dict[str, Path]
    db: dict[str, Path]

    def run(self, version: str, kind: str, **arguments: Any) -> dict[str, Any]:
        """One worker process of ``version``: ``kind`` with ``arguments`` (the database added),
        its JSON answer."""
        env = {**os.environ, "PYTHONPATH": str(self.src[version])}
        arguments = {"db": str(self.db[version]), **arguments}
        done = subprocess.run(
            [sys.executable, __file__, "--worker", kind, json.dumps(arguments)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{version} worker {kind} failed:\n{done.stderr}")
        answer: dict[str, Any] = json.loads(done.stdout)
        if not Path(answer.pop("store")).is_relative_to(self.src[version]):
            raise RuntimeError(f"the {version} worker did not run {self.src[version]}'s store")
        return answer


def in_turn(round_number: int) -> tuple[str, str]:
    """Alternate which version goes first, so neither always runs on the warmer cache."""
    return (BEFORE, AFTER) if round_number % 2 == 0 else (AFTER, BEFORE)


def quiet_moment(store: MemoryStore) -> Callable[[], object]:
    """What the gateway does when the store is idle, in either version (before had only the
    checkpoint)."""
    idle: Callable[[], object] = getattr(store, "when_idle", store.checkpoint)
    return idle


def worker_compact(db: str, project: int, compactions: int, quiet: bool = True) -> dict[str, Any]:
    """``compactions`` compactions of 200 stale ids in one project, a quiet moment before each
    (untimed in the compaction's figure, timed on its own); with ``quiet`` False, none: back to
    back, as a script would run them."""
    store = MemoryStore.open(db)
    idle = quiet_moment(store)
    idle()  # every run starts from an empty log and nothing pending
    name = f"project-{project % PROJECTS}"
    stale = store.stale_report(name, "project", 30, limit=200).total
    wall: list[float] = []
    cpu: list[float] = []
    moments: list[float] = []
    for n in range(max(1, min(compactions, stale // 200))):
        ids = tuple(s.id for s in store.find_stale_observations(name, "project", 30, 200))
        request = CompactRequest(
            older_than_days=30,
            ids=ids,
            project=name,
            scope="project",
            summary_title=f"Compacted batch {n}",
            summary_content="What mattered in these 200 observations. " * 20,
        )
        if quiet:
            started = time.perf_counter()
            idle()
            moments.append(time.perf_counter() - started)
        started, cpu_started = time.perf_counter(), time.process_time()
        result = store.compact(request)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - cpu_started)
        assert len(result.deleted) == len(ids)
    started = time.perf_counter()
    idle()  # the last compaction's quiet moment
    moments.append(time.perf_counter() - started)
    store.close()
    return {"project": name, "wall": wall, "cpu": cpu, "quiet": moments[1:]}


def save_texts(seed: int, count: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    vocabulary = Vocabulary.make(random.Random(SEED))
    return [(vocabulary.text(rng, 6), vocabulary.text(rng, 120)) for _ in range(count)]


def worker_saves(db: str, seed: int, saves: int) -> dict[str, Any]:
    """``saves`` new observations in a row, no quiet moment: the bound's checkpoints only."""
    texts = save_texts(seed, saves)
    store = MemoryStore.open(db)
    quiet_moment(store)()
    largest, largest_save, last = 0, 0, store.wal.size()
    started, cpu_started = time.perf_counter(), time.process_time()
    for n, (title, content) in enumerate(texts):
        store.save(title, content, project=f"project-{n % PROJECTS}", type="discovery")
        size = store.wal.size()  # one stat(), in both versions
        largest, largest_save, last = max(largest, size), max(largest_save, size - last), size
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    store.close()
    return {
        "rate": saves / seconds,
        "cpu_ms": cpu / saves * 1000,
        "wal": largest,
        "step": largest_save,
    }


# --- where the time goes: each statement timed ----------------------------------------------

STATEMENTS = (  # (how the SQL starts, what it is), first match wins
    ("BEGIN IMMEDIATE", "BEGIN IMMEDIATE"),
    ("COMMIT", "COMMIT"),
    ("PRAGMA wal_checkpoint", "PRAGMA wal_checkpoint (PASSIVE)"),
    ("INSERT INTO sessions", "the session (INSERT … ON CONFLICT DO NOTHING)"),
    ("SELECT id FROM observations WHERE normalized_hash", "the 15-minute duplicate check"),
    ("SELECT id FROM observations WHERE topic_key", "the topic_key lookup"),
    ("INSERT INTO observations ", "INSERT the row (and the FTS5 trigger)"),
    ("SELECT id, session_id, type", "read the saved row back"),
    ("SELECT count(*) FROM observations WHERE", "count the live rows under the filter"),
    ("SELECT id, project, scope, created_at, deleted_at", "read the ids' filters"),
    ("INSERT OR IGNORE INTO observations_fts_pending", "list the ids as pending (after)"),
    ("UPDATE observations SET deleted_at", "UPDATE the 200 rows (and the FTS5 trigger)"),
    ("SELECT count(*) FROM observations_fts_pending", "count the pending ids (after)"),
    ("SELECT id FROM observations_fts_pending", "read the pending ids"),
    ("INSERT INTO observations_fts (observations_fts", "remove their index entries (FTS5)"),
    ("DELETE FROM observations_fts_pending", "take them off the list"),
)


def statement_kind(sql: str) -> str:
    text = " ".join(sql.split())
    for start, label in STATEMENTS:
        if text.startswith(start):
            return label
    return re.sub(r"\(\?(,\?)*\)", "(…)", text)[:60]


class TimedConnection:
    """A sqlite3 connection that times each ``execute`` by kind of statement while on."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self.on = False
        self.seconds: Counter[str] = Counter()

    def execute(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor:
        if not self.on:
            return self._conn.execute(sql, parameters)
        started = time.perf_counter()
        try:
            return self._conn.execute(sql, parameters)
        finally:
            self.seconds[statement_kind(sql)] += time.perf_counter() - started

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


@contextmanager
def timing(conn: TimedConnection, into: Counter[str]) -> Iterator[None]:
    """Time ``conn``'s statements, and the whole block as "all"."""
    conn.seconds = Counter()
    conn.on = True
    started = time.perf_counter()
    try:
        yield
    finally:
        into["all"] += time.perf_counter() - started
        conn.on = False
        into.update(conn.seconds)


def worker_anatomy(db: str, project: int, seed: int, drop_fts: bool) -> dict[str, Any]:
    """Each statement of ANATOMY_COMPACTIONS compactions and ANATOMY_SAVES saves, timed (ms
    per call, the mean). With ``drop_fts`` (a scratch copy only) the FTS5 insert trigger is
    dropped first: the same saves without the search index."""
    from vaultgate.memory.connection import connect
    from vaultgate.memory.migrations import migrate

    raw = connect(db)
    migrate(raw)
    if drop_fts:
        raw.execute("DROP TRIGGER observations_fts_insert")
    conn = TimedConnection(raw)
    store = MemoryStore(conn, path=db)  # type: ignore[arg-type]  # the store only calls execute
    idle = quiet_moment(store)
    idle()
    compact: Counter[str] = Counter()
    quiet: Counter[str] = Counter()
    name = f"project-{project % PROJECTS}"
    stale = store.stale_report(name, "project", 30, limit=200).total
    compactions = 0 if drop_fts else min(ANATOMY_COMPACTIONS, stale // 200)
    for n in range(compactions):
        ids = tuple(s.id for s in store.find_stale_observations(name, "project", 30, 200))
        request = CompactRequest(
            older_than_days=30,
            ids=ids,
            project=name,
            scope="project",
            summary_title=f"Anatomy batch {n}",
            summary_content="What mattered in these 200 observations. " * 20,
        )
        with timing(conn, compact):
            store.compact(request)
        with timing(conn, quiet):
            idle()
    save: Counter[str] = Counter()
    texts = save_texts(seed, ANATOMY_SAVES)
    for n, (title, content) in enumerate(texts):
        with timing(conn, save):
            store.save(title, content, project=f"project-{n % PROJECTS}", type="discovery")
    store.close()

    def per_call(total: Counter[str], calls: int) -> dict[str, float]:
        return {kind: seconds / calls * 1000 for kind, seconds in total.items()} if calls else {}

    return {
        "compact": per_call(compact, compactions),
        "quiet": per_call(quiet, compactions),
        "save": per_call(save, ANATOMY_SAVES),
    }


WORKERS: dict[str, Callable[..., dict[str, Any]]] = {
    "compact": worker_compact,
    "saves": worker_saves,
    "anatomy": worker_anatomy,
}


def measure_compaction(versions: Versions, report: Report, rounds: int) -> None:
    """COMPACTIONS compactions of 200 ids per round and version, the same project for both (each
    on its own copy), a quiet moment (untimed) before each: what the gateway does once the store
    has had IDLE_SECONDS without a call, since a model sends its compactions seconds apart. The
    quiet moment's own time is reported as the work kept off the request path."""
    p50 = Compared(
        "mem_compact: 200 ids + a summary, p50", "ms", target=TARGET_COMPACT_MS, key="compact"
    )
    p50.target_text = f"≤ {TARGET_COMPACT_MS:g} ms"
    p95 = Compared("mem_compact: 200 ids + a summary, p95", "ms")
    cpu = Compared("mem_compact: this process's CPU time, p50", "ms", key="compact_cpu")
    quiet = Compared(
        "the quiet moment after a compaction (in no request): before, the checkpoint; after, "
        "the index removals, then the checkpoint, p50",
        "ms",
    )
    for round_number in range(rounds):
        project = 4 + round_number
        for version in in_turn(round_number):
            done = versions.run(version, "compact", project=project, compactions=COMPACTIONS)
            wall = Row(f"compaction, {version}", seconds=done["wall"])
            p50.values(version).append(wall.p50_ms)
            p95.values(version).append(wall.p95_ms)
            cpu.values(version).append(statistics.median(done["cpu"]) * 1000)
            quiet.values(version).append(statistics.median(done["quiet"]) * 1000)
            log(
                f"  round {round_number + 1}, {version}: {len(wall.seconds)} compactions in "
                f"{done['project']}, p50 {wall.p50_ms:.2f} ms, p95 {wall.p95_ms:.2f} ms"
            )
    # A script's compactions, back to back: no quiet moment, so after's list reaches its bound
    # and the compaction that reaches it removes every pending entry itself.
    burst = Compared(
        f"mem_compact back to back, no quiet moment ({COMPACTIONS} in one run per version), p50",
        "ms",
    )
    burst_p95 = Compared(burst.label.replace("p50", "p95"), "ms")
    for version in VERSIONS:
        done = versions.run(version, "compact", project=16, compactions=COMPACTIONS, quiet=False)
        wall = Row(f"back to back, {version}", seconds=done["wall"])
        burst.values(version).append(wall.p50_ms)
        burst_p95.values(version).append(wall.p95_ms)
        log(f"  back to back, {version}: p50 {wall.p50_ms:.2f} ms, p95 {wall.p95_ms:.2f} ms")
    report.compared += [p50, p95, cpu, quiet, burst, burst_p95]


def measure_saves(versions: Versions, report: Report, rounds: int) -> None:
    """SAVES saves in a row per round and version, the same new texts for both (no duplicate
    bumps), no quiet moment: only the -wal bound's checkpoints, inside the timed loop."""
    from vaultgate.memory.wal import CHECKPOINT_BYTES

    rate = Compared(
        f"store.save, {SAVES:,} in a row", "/s", target=TARGET_SAVES_PER_SECOND, key="save"
    )
    rate.target_text = f"≥ {TARGET_SAVES_PER_SECOND:,}/s"
    cpu = Compared("store.save: this process's CPU time per save", "ms", key="save_cpu")
    high = Compared(
        f"-wal file's largest size during the {SAVES:,} saves (largest round / median)", "MiB"
    )
    largest_save = 0  # the most one save added to the log (after)
    for round_number in range(rounds):
        seed = SEED + 1 + round_number
        for version in in_turn(round_number):
            done = versions.run(version, "saves", seed=seed, saves=SAVES)
            rate.values(version).append(done["rate"])
            cpu.values(version).append(done["cpu_ms"])
            high.values(version).append(done["wal"] / 2**20)
            if version == AFTER:
                largest_save = max(largest_save, done["step"])
            log(
                f"  round {round_number + 1}, {version}: {done['rate']:,.0f} saves/s, "
                f"-wal at most {done['wal'] / 2**20:.1f} MiB"
            )
    high.target = (CHECKPOINT_BYTES + largest_save) / 2**20
    high.target_text = (
        f"< {CHECKPOINT_BYTES / 2**20:g} MiB + the largest save ({largest_save / 2**10:,.0f} KiB)"
    )
    report.compared += [rate, cpu, high]


def measure_anatomy(versions: Versions, report: Report, scratch: Path) -> None:
    """Each statement of a compaction, of its quiet moment and of a save, timed in both versions,
    ANATOMY_ROUNDS rounds; and the same saves on a scratch copy without the FTS5 insert trigger."""
    runs: dict[str, list[dict[str, Any]]] = {BEFORE: [], AFTER: [], "no_fts": []}
    for round_number in range(ANATOMY_ROUNDS):
        seed = SEED + 100 + round_number
        for version in in_turn(round_number):
            runs[version].append(
                versions.run(
                    version, "anatomy", project=13 + round_number, seed=seed, drop_fts=False
                )
            )
        scratch_copy = scratch / "no-fts.db"
        shutil.copyfile(versions.db[AFTER], scratch_copy)
        # New texts: the after file holds this round's already, and they would be duplicates.
        runs["no_fts"].append(
            versions.run(
                AFTER, "anatomy", db=str(scratch_copy), project=0, seed=seed + 50, drop_fts=True
            )
        )
        scratch_copy.unlink()
        log(f"  anatomy round {round_number + 1} done")
    for what in ("compact", "quiet", "save"):
        report.anatomy[what] = {}
        for version, answers in runs.items():
            for answer in answers:  # what no statement took, per round (medians do not add up)
                times = answer[what]
                if "all" in times:
                    times[REST] = times["all"] - sum(v for k, v in times.items() if k != "all")
            kinds = {kind for answer in answers for kind in answer[what]}
            report.anatomy[what][version] = {
                kind: statistics.median(answer[what].get(kind, 0.0) for answer in answers)
                for kind in kinds
            }


async def measure_tools(path: Path, report: Report) -> None:
    """The same calls through MCP: argument validation, the worker thread, the transport."""
    from mcp import Client

    from vaultgate.config import Settings
    from vaultgate.paging import estimate_tokens
    from vaultgate.server import build_server

    # The full profile: the mem_* tools under their own names (compact offers `memory` only).
    settings = Settings.from_env(
        {"OBSIDIAN_API_KEY": "bench", "VAULTGATE_MEMORY_DB": str(path), "VAULTGATE_TOOLS": "full"}
    )
    common, rare = report.common[0], report.rare[0]
    async with Client(build_server(settings)) as client:
        for label, arguments in (
            (f'mem_search "{rare}" via MCP', {"query": rare}),
            (f'mem_search "{common}" via MCP', {"query": common}),
            (
                f'mem_search "{common}" summary via MCP',
                {"query": common, "detail_level": "summary"},
            ),
        ):
            row = Row(label)
            for _ in range(RUNS + 1):
                started = time.perf_counter()
                result = await client.call_tool("mem_search", arguments)
                row.seconds.append(time.perf_counter() - started)
                assert not result.is_error, result.content
                block = result.content[0]
                row.tokens = estimate_tokens(getattr(block, "text", ""))
            row.seconds.pop(0)
            log(f"  {label}: p50 {row.p50_ms:.2f} ms")
            report.end_to_end.append(row)
        count = 500
        started = time.perf_counter()
        for n in range(count):
            saved = await client.call_tool(
                "mem_save", {"title": f"tool save {n}", "content": f"saved through MCP, {n}"}
            )
            assert not saved.is_error, saved.content
        report.saves_tool_per_second = count / (time.perf_counter() - started)
        log(f"  mem_save via MCP: {report.saves_tool_per_second:,.0f}/s")


# --- several processes on one file ----------------------------------------------------------


# --- several processes on one file ----------------------------------------------------------


def writer(path: str, n: int, barrier: Any, results: Any) -> None:
    """One process: open the store (migrating if it must), wait for the others, save 500."""
    errors: list[str] = []
    saved = largest = 0
    try:
        store = MemoryStore.open(path)
    except Exception as exc:  # reported, not raised: the parent counts failures
        barrier.wait()
        results.put({"writer": n, "saved": 0, "errors": [repr(exc)], "seconds": 0.0, "wal": 0})
        return
    barrier.wait()
    started = time.perf_counter()
    for i in range(SAVES_PER_WRITER):
        try:
            store.save(f"writer {n} note {i}", f"process {n} wrote note {i}", project=f"w{n}")
            saved += 1
        except Exception as exc:  # every failure is counted and shown
            errors.append(repr(exc))
        largest = max(largest, store.wal.size())
    seconds = time.perf_counter() - started
    store.close()
    results.put({"writer": n, "saved": saved, "errors": errors, "seconds": seconds, "wal": largest})


def worker_writers(db: str) -> dict[str, Any]:
    """WRITERS processes at once on ``db`` (spawned from this worker, so with its version)."""
    path = Path(db)
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(WRITERS)
    results = context.Queue()
    before = 0
    if path.exists():
        conn = sqlite3.connect(path)
        before = conn.execute("SELECT count(*) FROM observations").fetchone()[0]
        conn.close()
    processes = [
        context.Process(target=writer, args=(db, n, barrier, results)) for n in range(WRITERS)
    ]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=600) for _ in processes]
    for process in processes:
        process.join()
    conn = sqlite3.connect(path)
    after = conn.execute("SELECT count(*) FROM observations").fetchone()[0]
    conn.close()
    errors = [e for outcome in outcomes for e in outcome["errors"]]
    slowest = max(outcome["seconds"] for outcome in outcomes)
    return {
        "kept": after - before,
        "errors": len(errors),
        "locked": sum("locked" in e for e in errors),
        "seconds": slowest,
        "rate": WRITERS * SAVES_PER_WRITER / slowest if slowest else 0.0,
        "wal": max(outcome["wal"] for outcome in outcomes) / 2**20,
        "examples": errors[:3],
    }


def run_writers(
    versions: Versions, version: str, label: str, db: Path | None = None
) -> dict[str, Any]:
    arguments = {} if db is None else {"db": str(db)}
    summary = {"label": label, "version": version, **versions.run(version, "writers", **arguments)}
    log(
        f"  {label} ({version}): kept {summary['kept']:,}, errors {summary['errors']}, "
        f"{summary['seconds']:.2f} s"
    )
    return summary


WORKERS["writers"] = worker_writers


# --- report ---------------------------------------------------------------------------------


def verdict(value: float, target: float | None, *, higher: bool = False) -> str:
    if target is None:
        return "–"
    met = value >= target if higher else value <= target
    return "yes" if met else "**no**"


def render_report(report: Report, minutes: float, runs: int) -> str:
    from vaultgate.memory import search as search_module

    common, common_docs = report.common
    rare, rare_docs = report.rare
    size_mb = report.db_bytes / 1_000_000
    generated = (
        f"generated in {report.generated_seconds:.0f} s"
        if report.generated_seconds is not None
        else "reused from bench/.cache/"
    )
    lines = [
        SECTION,
        "",
        "The SQLite memory store behind the mem_* tools. Generated by `bench/memory_bench.py`; "
        "rerun with `python bench/memory_bench.py` (it rewrites this section only).",
        "",
        f"- **Machine:** {os.cpu_count()} CPU cores, {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}; run on "
        f"{dt.date.today().isoformat()}, {minutes:.1f} minutes in all; 1-minute load average "
        f"{report.load[0]:.1f} at the start, {report.load[1]:.1f} at the end (other work shares "
        "the machine).",
        f"- **Data:** {report.observations:,} observations in {PROJECTS} projects over "
        f"{SPAN_DAYS} days ({PER_SESSION} per session per project, 10% personal scope), "
        f"{report.observations // 10:,} prompts; 6-word titles and 120-word contents, 5% of "
        f"words from a 10-word common pool; {size_mb:,.0f} MB on disk, {generated} (100 rows "
        "per transaction). Common term: "
        f"`{common}`, in {common_docs:,} observations ({common_docs / report.observations:.0%}); "
        f"rare term: `{rare}`, in {rare_docs}.",
        f"- **Calls:** each read is timed in-process around the store call and the rendering "
        f"of the tool's text (detail_level standard, max_tokens 2000), {runs} runs after one "
        "warm-up; tokens are the response's ⌈chars / 4⌉. WAL, synchronous=NORMAL, one "
        "connection. The machine is shared with other work: medians of the same call differed "
        "by up to about half from one run to the next.",
        "",
        "| Call | N | p50 | p95 | response ≈ tokens | target p50 | met |",
        "| --- | ---: | ---: | ---: | ---: | ---: | :---: |",
    ]
    for row in report.reads:
        target = f"≤ {row.target_ms:g} ms" if row.target_ms is not None else "–"
        tokens = f"{row.tokens:,}" if row.tokens is not None else "–"
        lines.append(
            f"| {row.label} | {len(row.seconds)} | {row.p50_ms:.2f} ms | {row.p95_ms:.2f} ms | "
            f"{tokens} | {target} | {verdict(row.p50_ms, row.target_ms)} |"
        )
    lines += [
        "",
        f"A word as common as `{common}` matches {common_docs:,} rows; ranking all of them by "
        f"bm25 takes {report.exact_rank_ms:.0f} ms (p50). So when more than "
        f"{search_module.RANK_WINDOW:,} rows match, mem_search ranks the newest "
        f"{search_module.RANK_WINDOW:,} (the total stays exact, and the response says so); a "
        "word that common carries almost no relevance signal, and a second, rarer word or a "
        "project filter brings the matches under the window.",
        "",
        "Through MCP (the SDK's in-process Client: argument validation, the worker thread, the "
        "transport):",
        "",
        "| Call | N | p50 | p95 | response ≈ tokens |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for row in report.end_to_end:
        lines.append(
            f"| {row.label} | {len(row.seconds)} | {row.p50_ms:.2f} ms | {row.p95_ms:.2f} ms | "
            f"{row.tokens or 0:,} |"
        )
    lines += render_comparison(report)
    lines += render_anatomy(report)
    lines += [
        "",
        "Several processes, each save its own `BEGIN IMMEDIATE` transaction (duplicate check, "
        "session upsert, insert, FTS triggers):",
        "",
        "| Writer | saves | rate | largest -wal | target | met |",
        "| --- | ---: | ---: | ---: | ---: | :---: |",
        f"| one process, mem_save through MCP (after) | 500 | "
        f"{report.saves_tool_per_second:,.0f}/s | – | – | – |",
    ]
    for run in report.writers:
        ok = run["kept"] == WRITERS * SAVES_PER_WRITER and run["errors"] == 0
        lines.append(
            f"| {WRITERS} processes × {SAVES_PER_WRITER}, {run['label']} ({run['version']}) | "
            f"{WRITERS * SAVES_PER_WRITER:,} | {run['rate']:,.0f}/s together | "
            f"{run['wal']:.1f} MiB | all kept, no "
            f"error | {'yes' if ok else '**no**'}: {run['kept']:,} kept, {run['errors']} "
            f"errors ({run['locked']} 'database is locked') |"
        )
    lines += [
        "",
        "The four processes start together (a barrier), each with its own connection; SQLite "
        "serialises their transactions, busy_timeout (5 s) makes each wait its turn, and a "
        "bounded retry covers the rest. On the fresh file the four also create the schema at "
        "once: one migrates under BEGIN EXCLUSIVE, the others find it done. Each also "
        "checkpoints (PASSIVE, which never blocks the others' writes) when the shared log "
        "reaches its bound; while four write without a pause the log can pass it, since it "
        "restarts only at a write begun after a checkpoint caught up (`memory/wal.py`).",
        "",
    ]
    return "\n".join(lines)


def render_comparison(report: Report) -> list[str]:
    from vaultgate.memory.removals import PENDING_BOUND
    from vaultgate.memory.wal import CHECKPOINT_BYTES, IDLE_SECONDS

    mib = CHECKPOINT_BYTES / 2**20
    lines = [
        "",
        "### Compaction and saves (issue 11)",
        "",
        f"**Before:** the store at `{report.baseline}`, with its checkpoints already off the "
        "request path. **After:** this tree: a compaction lists its ids as pending and leaves "
        "their search-index entries for the quiet moment (`memory/removals.py`, schema "
        "migration 3), the duplicate-check index keeps soft-deleted rows, the after count is "
        "computed, and a save reads nothing back. In both, checkpoints run as `memory/wal.py` "
        f"says: PASSIVE after a commit that leaves the -wal file at {mib:g} MiB or more, PASSIVE "
        f"once the gateway has had {IDLE_SECONDS:g} s without a call. Each round runs one child "
        "process per version, each on its own copy of the "
        f"{report.observations:,}-row file, the same project and the same texts for both, the "
        "order alternating. Before each compaction the benchmark does what the gateway does in "
        "a quiet moment (before: the checkpoint; after: the index removals, then the "
        "checkpoint), untimed; the saves run back to back with no quiet moment, so only the "
        f"bound's checkpoints, inside the timed loop. {report.rounds} rounds; each cell is the "
        "best / the median of the rounds; a target is met when after's median meets it. "
        f"Opening the {report.observations:,}-row file migrated it to schema 3 in "
        f"{report.migration_seconds:.1f} s (once). The back-to-back rows are one run per "
        "version with no quiet moment between compactions, as a script would call them: after's "
        f"pending list then reaches its bound ({PENDING_BOUND:,} ids) at every fifth "
        "compaction, which removes every pending entry itself.",
        "",
        "| Measure | before (best / median) | after (best / median) | target | met |",
        "| --- | ---: | ---: | ---: | :---: |",
    ]
    for measure in report.compared:
        met = measure.met()
        shown = "–" if met is None else ("yes" if met else "**no**")
        lines.append(
            f"| {measure.label} | {measure.shown(BEFORE)} | {measure.shown(AFTER)} | "
            f"{measure.target_text} | {shown} |"
        )
    return lines


REST = "the rest: Python, the store's checks, building the result"


def anatomy_rows(
    columns: dict[str, dict[str, float]], order: tuple[str, ...]
) -> list[tuple[str, list[float | None]]]:
    """One row per statement (in STATEMENTS order, then any other), then REST, what is left of
    the whole call ("all" minus the statements, per round): Python, the store's own checks."""
    kinds: list[str] = []
    for start, label in STATEMENTS:
        del start
        if label not in kinds and any(label in columns[c] for c in order):
            kinds.append(label)
    kinds += sorted({k for c in order for k in columns[c]} - set(kinds) - {"all", REST})
    rows: list[tuple[str, list[float | None]]] = [
        (kind, [columns[c].get(kind) for c in order]) for kind in (*kinds, REST)
    ]
    rows.append(("**the whole call**", [columns[c].get("all") for c in order]))
    return rows


def anatomy_table(
    title: str, columns: dict[str, dict[str, float]], order: tuple[str, ...], names: list[str]
) -> list[str]:
    lines = [
        "",
        f"| {title} | " + " | ".join(names) + " |",
        "| --- |" + " ---: |" * len(names),
    ]
    for label, values in anatomy_rows(columns, order):
        cells = ["–" if v is None else f"{v:.3f} ms" for v in values]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def render_anatomy(report: Report) -> list[str]:
    if not report.anatomy:
        return []
    save, compact, quiet = (report.anatomy[w] for w in ("save", "compact", "quiet"))
    lines = [
        "",
        "**Where the time goes.** Each SQL statement timed around `execute`, by kind, in "
        f"{ANATOMY_COMPACTIONS} compactions (a quiet moment after each) and {ANATOMY_SAVES} "
        f"saves per round, {ANATOMY_ROUNDS} rounds per version; each cell is the median of "
        "the rounds' means, per call. *No index* is after's store on a scratch copy whose FTS5 "
        "insert trigger was dropped: the same saves with no search index, to show what the "
        "index costs (not a configuration anyone runs).",
    ]
    lines += anatomy_table(
        "mem_compact, 200 ids (ms per call)", compact, (BEFORE, AFTER), ["before", "after"]
    )
    lines += anatomy_table(
        "its quiet moment (in no request)", quiet, (BEFORE, AFTER), ["before", "after"]
    )
    lines += anatomy_table(
        "store.save (ms per call)",
        save,
        (BEFORE, AFTER, "no_fts"),
        ["before", "after", "after, no index"],
    )
    lines += render_verdicts(report)
    return lines


def render_verdicts(report: Report) -> list[str]:
    """What each target's figures say, in words, from this run's numbers."""
    found = {measure.key: measure for measure in report.compared if measure.key}
    out: list[str] = []
    compact = found.get("compact")
    if compact is not None and compact.after:
        after, before = compact.median(AFTER), compact.median(BEFORE)
        met = compact.met()
        out.append(
            f"mem_compact's p50 is {after:.2f} ms after (median of the rounds) against "
            f"{compact.target_text}: {'met' if met else 'not met'}; before, in the same "
            f"rounds, {before:.2f} ms ({before / after:.1f}× after)"
        )
    save = found.get("save")
    anatomy = report.anatomy.get("save", {})
    if save is not None and save.after and anatomy:
        mine, bare = anatomy[AFTER], anatomy.get("no_fts", {})
        insert_key, commit_key = "INSERT the row (and the FTS5 trigger)", "COMMIT"
        checkpoint_key = "PRAGMA wal_checkpoint (PASSIVE)"
        insert, commit = mine.get(insert_key, 0.0), mine.get(commit_key, 0.0)
        checkpoint = mine.get(checkpoint_key, 0.0)
        index = insert + commit - bare.get(insert_key, 0.0) - bare.get(commit_key, 0.0)
        floor = insert + commit + checkpoint
        after, before = save.median(AFTER), save.median(BEFORE)
        met = save.met()
        text = (
            f"store.save runs at {after:,.0f}/s after (median) against {save.target_text}: "
            f"{'met' if met else 'not met'}; before, in the same rounds, {before:,.0f}/s. "
            f"A save took {mine.get('all', 0.0):.3f} ms statement by statement: the INSERT "
            f"{insert:.3f} ms and the COMMIT {commit:.3f} ms, of which the FTS5 index is "
            f"{index:.3f} ms (the same saves with no index: INSERT "
            f"{bare.get(insert_key, 0.0):.3f} ms, COMMIT {bare.get(commit_key, 0.0):.3f} ms), and "
            f"the checkpoints at the -wal bound {checkpoint:.3f} ms"
        )
        if not met and floor > 0:
            text += (
                f". Those three alone, which any store that indexes each save as it commits "
                f"must run, come to {floor:.3f} ms, {1000 / floor:,.0f}/s on this machine as "
                "loaded during the run; no change to the store's Python or its other statements "
                "can pass that"
            )
        out.append(text)
    if not out:
        return []
    return ["", "**What the figures say.** " + ". ".join(out) + "."]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--observations", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="10,000 observations")
    parser.add_argument("--output", type=Path, help="the markdown file to put the section in")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="before/after rounds")
    parser.add_argument("--baseline", default=BASELINE, help="the git revision of 'before'")
    parser.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("arguments", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:  # a child process: one version's measurement, its answer as JSON
        answer = WORKERS[args.worker](**json.loads(args.arguments))
        print(json.dumps({**answer, "store": sys.modules[MemoryStore.__module__].__file__}))
        return 0
    count = 10_000 if args.quick else args.observations
    output: Path = args.output or (QUICK_REPORT if args.quick else REPORT)
    started = time.perf_counter()

    cached, generated = cached_database(count)
    common, common_docs, rare, rare_docs = term_frequencies(cached)
    report = Report(
        observations=count,
        db_bytes=cached.stat().st_size,
        generated_seconds=generated,
        common=(common, common_docs),
        rare=(rare, rare_docs),
        baseline=args.baseline,
        rounds=args.rounds,
        load=(os.getloadavg()[0], 0.0),
    )
    with tempfile.TemporaryDirectory(prefix="vaultgate-memory-bench-") as folder:
        scratch = Path(folder)
        versions = Versions(
            src={BEFORE: baseline_src(args.baseline, scratch / "baseline"), AFTER: ROOT / "src"},
            db={version: scratch / f"{version}.db" for version in VERSIONS},
        )
        for db in versions.db.values():
            shutil.copyfile(cached, db)
        migrating = time.perf_counter()
        MemoryStore.open(str(versions.db[AFTER])).close()  # the schema upgrade, untimed below
        report.migration_seconds = time.perf_counter() - migrating
        store = MemoryStore.open(str(versions.db[AFTER]))
        log("reads …")
        measure_reads(store, report)
        store.close()
        log(f"compaction, {args.rounds} rounds before and after …")
        measure_compaction(versions, report, args.rounds)
        log(f"saves, {args.rounds} rounds before and after …")
        measure_saves(versions, report, args.rounds)
        log(f"where the time goes, {ANATOMY_ROUNDS} rounds …")
        measure_anatomy(versions, report, scratch)
        log("through MCP …")
        import anyio

        anyio.run(measure_tools, versions.db[AFTER], report)
        log(f"{WRITERS} processes × {SAVES_PER_WRITER} saves …")
        report.writers.append(run_writers(versions, AFTER, "fresh file", scratch / "fresh.db"))
        for version in VERSIONS:
            report.writers.append(run_writers(versions, version, f"the {count:,}-row file"))
    report.load = (report.load[0], os.getloadavg()[0])

    section = render_report(report, (time.perf_counter() - started) / 60, RUNS)
    write_section("memory", section, output)
    print(section)
    log(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
