"""Search by meaning, measured through vaultgate's own search: recall and MRR on text no one on
the team wrote, and the cost of note vectors on the 20,000-note bench vault (issue 26). Results
in docs/benchmarks.md.

Quality. The corpus is the Python standard library's own docstrings, one note per module
(semantic_corpus.py); the questions and their answer key are bench/data/semantic_questions.json,
written by hand without naming the module. A folder-backend server runs in this process
(``Client(build_server(settings))``, its index in a temporary user cache folder); once its
index and every note's vector are built, each question is asked of:

- ``search_vault_smart`` with ``mode`` keyword (bm25 over the query's words, OR-ed), semantic
  (cosine with each note's vector) and hybrid (reciprocal rank fusion of the two), the default;
- ``search_vault_simple``, the plugin's simple search (every word must occur), what a user
  had before.

Each answer is paged until DEPTH paths are read. recall@k: the share of questions with an
answer note in the top k; MRR: the mean of 1/rank of the first answer note (0 beyond DEPTH).
The questions are split once, by a hash of their text, into a tuning half and a test half
(``split``): any choice made by looking at figures is made on the tuning half, and the test
half's figures are reported beside the whole set's.

Cost. ``python -m vaultgate serve`` over stdio on the generated bench vault
(generate_vault.py), the folder backend, the process pinned to one core: the background build
of the note vectors (from the keyword index's readiness until every note has its vector, wall
and CPU time of the server), a semantic and a hybrid query's first page (distinct questions,
min / median / max, as the client sees them), and the server's peak memory (VmHWM) after the build
and the queries. Targets are the issue's and are reported, never moved.

    python bench/semantic_eval.py [--notes 20000] [--skip-scale]
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

import semantic_corpus
from call_path import StdioServer
from report import write_section
from vaultgate.config import Settings
from vaultgate.semantic.embedder import load_embedder, why_unavailable
from vaultgate.server import build_server

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
QUESTIONS = HERE / "data" / "semantic_questions.json"
DEPTH = 20  # ranks read for MRR
PAGE = 50  # search_vault_smart's largest page
MODES = ("keyword", "semantic", "hybrid")
SIMPLE = "plugin-style simple search"
QUERIES = 30  # distinct questions timed at scale, per mode
POLL_SECONDS = 0.5  # how often the build's progress is asked at scale

TARGET_HYBRID_RECALL5 = 0.80
TARGET_OVER_KEYWORD = 0.20
TARGET_BUILD_SECONDS = 240.0
TARGET_QUERY_MS = 100.0
TARGET_MEMORY_MB = 300.0


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load_questions() -> list[dict[str, Any]]:
    questions: list[dict[str, Any]] = json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]
    return questions


def split(question: str) -> str:
    """'tune' or 'test', fixed by the question's text alone."""
    return "tune" if hashlib.sha256(question.encode("utf-8")).digest()[0] % 2 == 0 else "test"


def measure(ranked: dict[str, list[str]], questions: Sequence[dict[str, Any]]) -> dict[str, float]:
    at1 = at5 = reciprocal = 0.0
    for item in questions:
        answers = {f"{name}.md" for name in item["answers"]}
        found = ranked[item["question"]][:DEPTH]
        rank = next((n for n, path in enumerate(found, 1) if path in answers), None)
        if rank is not None:
            at1 += rank == 1
            at5 += rank <= 5
            reciprocal += 1 / rank
    n = len(questions) or 1
    return {"recall@1": at1 / n, "recall@5": at5 / n, "MRR": reciprocal / n}


# --- quality: an in-process server over the corpus ---------------------------------------------


@asynccontextmanager
async def folder_server(vault: Path, cache: Path) -> AsyncIterator[Client]:
    """A folder-backend server for ``vault``, its index under ``cache``, vectors built."""
    os.environ["XDG_CACHE_HOME"] = str(cache)  # where the index file goes
    settings = Settings.from_env(
        {
            "VAULTGATE_VAULT": str(vault),
            "VAULTGATE_BACKEND": "folder",
            "VAULTGATE_TOOLS": "full",
            "VAULTGATE_MEMORY_DB": ":memory:",
        }
    )
    async with Client(build_server(settings)) as client:
        with anyio.fail_after(600):
            for n in itertools.count():  # the index's first build, then the vectors
                result = await client.call_tool(  # a new query each time: no cached answer
                    "search_vault_smart", {"query": f"progress {n}", "mode": "semantic"}
                )
                if not result.is_error and "notice" not in answer_of(result):
                    break
                await anyio.sleep(0.1)
        yield client


def answer_of(result: Any) -> dict[str, Any]:
    text = "\n".join(block.text for block in result.content if block.type == "text")
    if result.is_error:
        raise RuntimeError(text)
    value: dict[str, Any] = json.loads(text.split("\n\n")[0] if "\n\n" in text else text)
    return value


async def ranked_paths(client: Client, tool: str, query: str, **arguments: Any) -> list[str]:
    """The first DEPTH paths the tool answers, page by page."""
    found: list[str] = []
    offset: int | None = 0
    while offset is not None and len(found) < DEPTH:
        page = answer_of(
            await client.call_tool(
                tool, {"query": query, "offset": offset, "limit": PAGE, **arguments}
            )
        )
        rows = page["results"]
        found += [row.get("path") or row["filename"] for row in rows]
        offset = page.get("nextOffset")
    return found[:DEPTH]


async def ask_all(client: Client, questions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    rankings: dict[str, dict[str, list[str]]] = {}
    for mode in MODES:
        rankings[mode] = {
            q["question"]: await ranked_paths(
                client, "search_vault_smart", q["question"], mode=mode
            )
            for q in questions
        }
    rankings[SIMPLE] = {
        q["question"]: await ranked_paths(client, "search_vault_simple", q["question"])
        for q in questions
    }
    return rankings


def quality() -> dict[str, Any]:
    folder = semantic_corpus.build_corpus()
    notes = sorted(p.name for p in folder.glob("*.md"))
    questions = load_questions()
    missing = sorted({f"{a}.md" for q in questions for a in q["answers"]} - set(notes))
    embedder = load_embedder()
    if embedder is None:
        raise SystemExit(f"semantic search unavailable: {why_unavailable()}")
    scratch = Path(tempfile.mkdtemp(prefix="semantic-eval-"))
    try:
        vault = scratch / "vault"
        shutil.copytree(folder, vault, ignore=shutil.ignore_patterns(".complete"))

        async def run() -> dict[str, Any]:
            async with folder_server(vault, scratch / "cache") as client:
                return await ask_all(client, questions)

        rankings = anyio.run(run)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    halves = {
        half: [q for q in questions if split(q["question"]) == half] for half in ("tune", "test")
    }
    return {
        "notes": len(notes),
        "questions": len(questions),
        "halves": {half: len(items) for half, items in halves.items()},
        "answers missing from the corpus": missing,
        "model": embedder.model,
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "results": {
            name: {
                "all": measure(ranked, questions),
                **{half: measure(ranked, items) for half, items in halves.items()},
            }
            for name, ranked in rankings.items()
        },
    }


# --- cost: a stdio server on the bench vault, pinned to one core --------------------------------


def proc_status(pid: int) -> dict[str, float]:
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    found = dict(re.findall(r"^(VmHWM|VmRSS):\s+(\d+) kB", status, re.MULTILINE))
    return {key: int(value) / 1024 for key, value in found.items()}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def scale(notes: int) -> dict[str, Any]:
    import generate_vault

    source = generate_vault.generate(notes=notes, folders=min(2_000, notes)).path
    scratch = Path(tempfile.mkdtemp(prefix="semantic-scale-"))
    try:
        vault = scratch / "vault"
        shutil.copytree(source, vault)
        return serve_and_measure(vault, scratch / "cache")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def serve_and_measure(vault: Path, cache: Path) -> dict[str, Any]:
    keep = ("PATH", "HOME", "LANG", "TMPDIR")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env |= {
        "PYTHONPATH": str(ROOT / "src"),
        "XDG_CACHE_HOME": str(cache),
        "VAULTGATE_VAULT": str(vault),
        "VAULTGATE_BACKEND": "folder",
        "VAULTGATE_TOOLS": "full",
        "VAULTGATE_MEMORY_DB": ":memory:",
    }
    core = min(os.sched_getaffinity(0))
    pinned = (
        f"import os, runpy; os.sched_setaffinity(0, {{{core}}}); "
        "runpy.run_module('vaultgate', run_name='__main__', alter_sys=True)"
    )
    with StdioServer([sys.executable, "-c", pinned, "serve"], env) as server:
        server.initialize()
        pid = server.process.pid
        started = time.perf_counter()
        progress = re.compile(r"Meaning is known for ([\d,]+) of ([\d,]+) notes")
        keyword_ready = build_started_cpu = None
        for n in itertools.count():
            try:  # a new query each time: no cached answer
                page = json.loads(
                    server.call_tool(
                        "search_vault_smart", {"query": f"progress {n}", "mode": "semantic"}
                    )
                )
            except RuntimeError:  # the keyword index is not built yet
                time.sleep(POLL_SECONDS)
                continue
            if keyword_ready is None:
                keyword_ready, build_started_cpu = time.perf_counter(), cpu_seconds(pid)
                log(f"keyword index ready after {keyword_ready - started:.0f} s")
            found = progress.search(page.get("notice", ""))
            if found is None:
                break
            log(f"vectors: {found.group(1)} of {found.group(2)}")
            time.sleep(POLL_SECONDS)
        assert build_started_cpu is not None
        build_seconds = time.perf_counter() - keyword_ready
        build_cpu = cpu_seconds(pid) - build_started_cpu
        questions = [q["question"] for q in load_questions()]
        times: dict[str, list[float]] = {}
        for n, mode in enumerate(("semantic", "hybrid")):
            times[mode] = []
            for query in questions[n * QUERIES : (n + 1) * QUERIES]:  # distinct: no cache hit
                begun = time.perf_counter()
                page = json.loads(
                    server.call_tool("search_vault_smart", {"query": query, "mode": mode})
                )
                times[mode].append((time.perf_counter() - begun) * 1000)
                assert page["results"], (mode, query)
        memory = proc_status(pid)
    return {
        "notes": sum(1 for _ in vault.rglob("*.md")),
        "keyword_index_seconds": keyword_ready - started,
        "build_seconds": build_seconds,
        "build_cpu_seconds": build_cpu,
        "query_ms": {
            mode: {"min": min(ms), "median": statistics.median(ms), "max": max(ms)}
            for mode, ms in times.items()
        },
        "peak_mb": memory["VmHWM"],
        "rss_mb": memory["VmRSS"],
    }


def ok(met: bool) -> str:
    return "met" if met else "**not met**"


def report(found: dict[str, Any], cost: dict[str, Any] | None) -> str:
    results = found["results"]
    rows = "\n".join(
        f"| {name} | "
        + " | ".join(f"{r[half][m]:.2f}" for half in ("all", "test") for m in r["all"])
        + " |"
        for name, r in results.items()
    )
    keyword5 = results["keyword"]["all"]["recall@5"]
    simple5 = results[SIMPLE]["all"]["recall@5"]
    hybrid5 = results["hybrid"]["all"]["recall@5"]
    test5 = results["hybrid"]["test"]["recall@5"]
    test_over = test5 - results["keyword"]["test"]["recall@5"]
    halves = found["halves"]
    lines = [
        "## Search by meaning (issue 26)",
        "",
        f"`python bench/semantic_eval.py`. Corpus: the Python {found['python']} standard "
        f"library's docstrings, one note per module ({found['notes']} notes, "
        "bench/semantic_corpus.py); "
        f"{found['questions']} hand-written questions that paraphrase a module without naming "
        "it (bench/data/semantic_questions.json), split by a hash of their text into a tuning "
        f"half ({halves['tune']}) and a test half ({halves['test']}) never tuned on. Asked of a "
        "folder-backend server in process, through `search_vault_smart` (each `mode`) and "
        f"`search_vault_simple`, reading the first {DEPTH} paths of the answers. Model: "
        f"{found['model']}.",
        "",
        "| search | recall@1 | recall@5 | MRR | test half: recall@1 | recall@5 | MRR |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        rows,
        "",
        f"- Hybrid recall@5 {hybrid5:.2f} (test half {test5:.2f}; target ≥ "
        f"{TARGET_HYBRID_RECALL5:.2f}): {ok(hybrid5 >= TARGET_HYBRID_RECALL5)}.",
        f"- Hybrid over the keyword mode: {hybrid5 - keyword5:+.2f} (test half {test_over:+.2f};"
        f" target ≥ +{TARGET_OVER_KEYWORD:.2f}): {ok(hybrid5 - keyword5 >= TARGET_OVER_KEYWORD)}."
        f" Over the plugin-style simple search users had before: {hybrid5 - simple5:+.2f}.",
    ]
    if cost is not None:
        semantic, hybrid = cost["query_ms"]["semantic"], cost["query_ms"]["hybrid"]
        slowest = max(semantic["median"], hybrid["median"])
        lines += [
            "",
            f"On the {cost['notes']:,}-note bench vault (generate_vault.py), `python -m "
            "vaultgate serve` over stdio with the folder backend, pinned to one core, a fresh "
            f"index (the keyword index was ready after {cost['keyword_index_seconds']:.0f} s):",
            "",
            f"- The note vectors' background build: {cost['build_seconds']:.0f} s "
            f"({cost['build_cpu_seconds']:.0f} s of the server's CPU; target ≤ "
            f"{TARGET_BUILD_SECONDS:.0f} s): {ok(cost['build_seconds'] <= TARGET_BUILD_SECONDS)}.",
            f"- A query's first page, {QUERIES} distinct questions each, min / median / max: "
            f"semantic {semantic['min']:.0f} / {semantic['median']:.0f} / {semantic['max']:.0f} "
            f"ms, hybrid {hybrid['min']:.0f} / {hybrid['median']:.0f} / {hybrid['max']:.0f} ms "
            f"(target, the median: ≤ {TARGET_QUERY_MS:.0f} ms): "
            f"{ok(slowest <= TARGET_QUERY_MS)}.",
            f"- The server's peak memory (VmHWM) after the build and the queries: "
            f"{cost['peak_mb']:.0f} MB (now {cost['rss_mb']:.0f} MB; target ≤ "
            f"{TARGET_MEMORY_MB:.0f} MB): {ok(cost['peak_mb'] <= TARGET_MEMORY_MB)}.",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--no-write", action="store_true", help="print, leave docs alone")
    args = parser.parse_args(argv)
    found = quality()
    print(json.dumps(found, indent=1))
    cost = None if args.skip_scale else scale(args.notes)
    if cost is not None:
        print(json.dumps(cost, indent=1))
    section = report(found, cost)
    print(section)
    if not args.no_write:
        write_section("semantic", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
