"""Benchmark of the memory store at 100,000 observations; writes its own section of
docs/benchmarks.md ("## Memory store", between <!-- bench:memory --> markers; see report.py).

    python bench/memory_bench.py           # 100,000 observations: a few minutes on 2 cores
    python bench/memory_bench.py --quick   # 10,000 observations; report to bench/.cache/

The database is generated once from a seed and cached in bench/.cache/ (the text recipe of
shared/memory-store-notes.md §8.2: 6-word titles, 120-word contents, 5% of words from a
10-word "common" pool, the rest from a 30,000-word vocabulary with a Zipf-like spread), in
batches of 100 rows per transaction so the FTS index has the segments of a store that grew
over time. Every run works on a fresh copy. Times are taken in this process around what each
tool does (store call and rendering, no MCP transport), plus a few calls through the SDK's
in-process Client for the end-to-end cost.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import multiprocessing
import os
import platform
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from report import REPORT, write_section
from vaultgate.config import Settings
from vaultgate.memory import render
from vaultgate.memory import search as search_module
from vaultgate.memory.models import CompactRequest, SearchOptions
from vaultgate.memory.store import MemoryStore
from vaultgate.paging import estimate_tokens
from vaultgate.server import build_server

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
TARGET_QUERY_MS = 10.0
TARGET_COMPACT_MS = 50.0
TARGET_SAVES_PER_SECOND = 1_000


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
    MemoryStore.open(str(path)).close()  # the schema, exactly as the server makes it
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
    path = CACHE_DIR / f"memory-v2-{count}-s{SEED}.db"
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
class Report:
    observations: int
    db_bytes: int
    generated_seconds: float | None
    common: tuple[str, int]
    rare: tuple[str, int]
    reads: list[Row] = field(default_factory=list)
    end_to_end: list[Row] = field(default_factory=list)
    exact_rank_ms: float = 0.0
    compaction: Row | None = None
    saves_per_second: float = 0.0
    saves_tool_per_second: float = 0.0
    writers: list[dict[str, Any]] = field(default_factory=list)


def measure_reads(store: MemoryStore, report: Report) -> None:
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


def measure_compaction(store: MemoryStore, report: Report) -> None:
    stale = store.stale_report("project-5", "project", 30, limit=200).total
    log(f"  {stale:,} stale observations in project-5; compacting 200 at a time")
    row = Row("mem_compact: 200 ids + a summary, one transaction", target_ms=TARGET_COMPACT_MS)
    for n in range(max(1, min(COMPACTIONS, stale // 200))):
        ids = tuple(s.id for s in store.find_stale_observations("project-5", "project", 30, 200))
        request = CompactRequest(
            older_than_days=30,
            ids=ids,
            project="project-5",
            scope="project",
            summary_title=f"Compacted batch {n}",
            summary_content="What mattered in these 200 observations. " * 20,
        )
        started = time.perf_counter()
        result = store.compact(request)
        row.seconds.append(time.perf_counter() - started)
        assert len(result.deleted) == len(ids)
    log(f"  compaction: p50 {row.p50_ms:.2f} ms")
    report.compaction = row


def measure_saves(store: MemoryStore, report: Report) -> None:
    rng = random.Random(SEED + 1)
    vocabulary = Vocabulary.make(random.Random(SEED))
    texts = [(vocabulary.text(rng, 6), vocabulary.text(rng, 120)) for _ in range(SAVES)]
    started = time.perf_counter()
    for n, (title, content) in enumerate(texts):
        store.save(title, content, project=f"project-{n % PROJECTS}", type="discovery")
    report.saves_per_second = SAVES / (time.perf_counter() - started)
    log(f"  saves: {report.saves_per_second:,.0f}/s")


async def measure_tools(path: Path, report: Report) -> None:
    """The same calls through MCP: argument validation, the worker thread, the transport."""
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "bench", "VAULTGATE_MEMORY_DB": str(path)})
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
                block = result.content[0]
                row.tokens = estimate_tokens(getattr(block, "text", ""))
            row.seconds.pop(0)
            log(f"  {label}: p50 {row.p50_ms:.2f} ms")
            report.end_to_end.append(row)
        count = 500
        started = time.perf_counter()
        for n in range(count):
            await client.call_tool(
                "mem_save", {"title": f"tool save {n}", "content": f"saved through MCP, {n}"}
            )
        report.saves_tool_per_second = count / (time.perf_counter() - started)
        log(f"  mem_save via MCP: {report.saves_tool_per_second:,.0f}/s")


# --- several processes on one file ----------------------------------------------------------


def writer(path: str, n: int, barrier: Any, results: Any) -> None:
    """One process: open the store (migrating if it must), wait for the others, save 500."""
    errors: list[str] = []
    saved = 0
    try:
        store = MemoryStore.open(path)
    except Exception as exc:  # reported, not raised: the parent counts failures
        barrier.wait()
        results.put({"writer": n, "saved": 0, "errors": [repr(exc)], "seconds": 0.0})
        return
    barrier.wait()
    started = time.perf_counter()
    for i in range(SAVES_PER_WRITER):
        try:
            store.save(f"writer {n} note {i}", f"process {n} wrote note {i}", project=f"w{n}")
            saved += 1
        except Exception as exc:  # every failure is counted and shown
            errors.append(repr(exc))
    seconds = time.perf_counter() - started
    store.close()
    results.put({"writer": n, "saved": saved, "errors": errors, "seconds": seconds})


def run_writers(path: Path, label: str) -> dict[str, Any]:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(WRITERS)
    results = context.Queue()
    before = 0
    if path.exists():
        conn = sqlite3.connect(path)
        before = conn.execute("SELECT count(*) FROM observations").fetchone()[0]
        conn.close()
    processes = [
        context.Process(target=writer, args=(str(path), n, barrier, results))
        for n in range(WRITERS)
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
    summary = {
        "label": label,
        "kept": after - before,
        "errors": len(errors),
        "locked": sum("locked" in e for e in errors),
        "seconds": slowest,
        "rate": WRITERS * SAVES_PER_WRITER / slowest if slowest else 0.0,
        "examples": errors[:3],
    }
    log(f"  {label}: kept {summary['kept']:,}, errors {summary['errors']}, {slowest:.2f} s")
    return summary


# --- report ---------------------------------------------------------------------------------


def verdict(value: float, target: float | None, *, higher: bool = False) -> str:
    if target is None:
        return "–"
    met = value >= target if higher else value <= target
    return "yes" if met else "**no**"


def render_report(report: Report, minutes: float, runs: int) -> str:
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
        f"{dt.date.today().isoformat()}, {minutes:.1f} minutes in all.",
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
    rows = [*report.reads]
    if report.compaction is not None:
        rows.append(report.compaction)
    for row in rows:
        target = f"≤ {row.target_ms:g} ms" if row.target_ms is not None else "–"
        tokens = f"{row.tokens:,}" if row.tokens is not None else "–"
        lines.append(
            f"| {row.label} | {len(row.seconds)} | {row.p50_ms:.2f} ms | {row.p95_ms:.2f} ms | "
            f"{tokens} | {target} | {verdict(row.p50_ms, row.target_ms)} |"
        )
    lines += [
        "",
        "A compaction's cost is mostly FTS5 work: each soft delete takes the row's words out of "
        "the index (about 25,000 words for 200 rows), and now and then a commit also merges "
        "index segments, which is the slow tail in the p95.",
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
    lines += [
        "",
        "Writes, each save its own `BEGIN IMMEDIATE` transaction (duplicate check, session "
        "upsert, insert, FTS triggers):",
        "",
        "| Writer | saves | rate | target | met |",
        "| --- | ---: | ---: | ---: | :---: |",
        f"| one process, store.save, on the {report.observations:,}-row file | {SAVES:,} | "
        f"{report.saves_per_second:,.0f}/s | ≥ {TARGET_SAVES_PER_SECOND:,}/s | "
        f"{verdict(report.saves_per_second, TARGET_SAVES_PER_SECOND, higher=True)} |",
        f"| one process, mem_save through MCP | 500 | {report.saves_tool_per_second:,.0f}/s | "
        "– | – |",
    ]
    for run in report.writers:
        ok = run["kept"] == WRITERS * SAVES_PER_WRITER and run["errors"] == 0
        lines.append(
            f"| {WRITERS} processes × {SAVES_PER_WRITER}, {run['label']} | "
            f"{WRITERS * SAVES_PER_WRITER:,} | {run['rate']:,.0f}/s together | all kept, no "
            f"error | {'yes' if ok else '**no**'}: {run['kept']:,} kept, {run['errors']} "
            f"errors ({run['locked']} 'database is locked') |"
        )
    lines += [
        "",
        "The four processes start together (a barrier), each with its own connection; SQLite "
        "serialises their transactions, busy_timeout (5 s) makes each wait its turn, and a "
        "bounded retry covers the rest. On the fresh file the four also create the schema at "
        "once: one migrates under BEGIN EXCLUSIVE, the others find it done.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--observations", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="10,000 observations")
    parser.add_argument("--output", type=Path, help="the markdown file to put the section in")
    args = parser.parse_args(argv)
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
    )
    with tempfile.TemporaryDirectory(prefix="vaultgate-memory-bench-") as scratch:
        work = Path(scratch) / "memory.db"
        shutil.copyfile(cached, work)
        store = MemoryStore.open(str(work))
        log("reads …")
        measure_reads(store, report)
        log("compaction …")
        measure_compaction(store, report)
        log("saves …")
        measure_saves(store, report)
        store.close()
        log("through MCP …")
        anyio.run(measure_tools, work, report)
        log(f"{WRITERS} processes × {SAVES_PER_WRITER} saves …")
        report.writers.append(run_writers(Path(scratch) / "fresh.db", "fresh file"))
        report.writers.append(run_writers(work, f"the {count:,}-row file"))

    section = render_report(report, (time.perf_counter() - started) / 60, RUNS)
    write_section("memory", section, output)
    print(section)
    log(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
