"""Search by meaning, measured: recall and MRR on text no one on the team wrote, and the cost of
embeddings on the 20,000-note bench vault (issue 26). Results in docs/benchmarks.md.

Quality. The corpus is the Python standard library's own docstrings, one note per module
(semantic_corpus.py); the questions and their answer key are bench/data/semantic_questions.json,
written by hand without naming the module. Each question is answered by:

- keyword: BM25 over an FTS5 table of the notes (unicode61), the question's words OR-ed;
- plugin-style simple search: the folder backend's own ``search_simple`` (every word must occur),
  scored as the plugin scores;
- semantic: the semantic extra's embedder (vaultgate.semantic), one vector per note, cosine;
- hybrid: reciprocal rank fusion (k = 60) of keyword and semantic.

recall@k: the share of questions with an answer note in the top k; MRR: the mean of 1/rank of
the first answer note (0 when none is in the top 100).

Cost. On the generated bench vault (generate_vault.py): embedding every note pinned to one core,
a semantic and a hybrid query's top 10, and the process's peak memory (VmHWM) while holding the
vectors. Targets are the issue's and are reported, never moved.

    python bench/semantic_eval.py [--notes 20000] [--skip-scale]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import semantic_corpus
from report import write_section
from vaultgate.folder.backend import FolderBackend
from vaultgate.semantic.embedder import load_embedder, why_unavailable
from vaultgate.semantic.ranking import cosine_top, fuse

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "data" / "semantic_questions.json"
DEPTH = 100  # ranks looked at for MRR
Ranker = Callable[[str], list[str]]

TARGET_HYBRID_RECALL5 = 0.80
TARGET_OVER_KEYWORD = 0.20
TARGET_BUILD_SECONDS = 240.0
TARGET_QUERY_MS = 100.0
TARGET_MEMORY_MB = 300.0


def load_questions() -> list[dict[str, Any]]:
    questions: list[dict[str, Any]] = json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]
    return questions


def read_notes(folder: Path) -> tuple[list[str], list[str]]:
    paths = sorted(folder.rglob("*.md"))
    return [str(p.relative_to(folder))[:-3] for p in paths], [
        p.read_text(encoding="utf-8", errors="replace") for p in paths
    ]


class Keyword:
    """BM25 over FTS5, the query's words OR-ed (every word quoted as data)."""

    def __init__(self, names: Sequence[str], texts: Sequence[str]) -> None:
        self.names = list(names)
        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE t USING fts5(title, body, "
            "tokenize='unicode61 remove_diacritics 2')"
        )
        self.db.executemany(
            "INSERT INTO t (rowid, title, body) VALUES (?, ?, ?)",
            [
                (n, Path(name).name, text)
                for n, (name, text) in enumerate(zip(names, texts, strict=True))
            ],
        )

    def __call__(self, query: str, depth: int = DEPTH) -> list[str]:
        words = re.findall(r"\w+", query)
        if not words:
            return []
        expression = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = self.db.execute(
            "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (expression, depth)
        )
        return [self.names[row[0]] for row in rows]


def plugin_simple(folder: Path) -> Ranker:
    """The folder backend's simple search, as the plugin answers it (every word must occur)."""
    index = Path(tempfile.mkdtemp(prefix="semantic-eval-")) / "index.db"
    backend = FolderBackend(folder, index_location=index)

    def rank(query: str) -> list[str]:
        hits = asyncio.run(backend.search_simple(query, 0))
        hits.sort(key=lambda hit: -float(hit.get("score", 0)))
        return [hit["filename"][:-3] for hit in hits[:DEPTH]]

    return rank


def measure(ranker: Ranker, questions: Sequence[dict[str, Any]]) -> dict[str, float]:
    at1 = at5 = reciprocal = 0.0
    for item in questions:
        answers = set(item["answers"])
        ranked = ranker(item["question"])[:DEPTH]
        rank = next((n for n, name in enumerate(ranked, 1) if name in answers), None)
        if rank is not None:
            at1 += rank == 1
            at5 += rank <= 5
            reciprocal += 1 / rank
    n = len(questions)
    return {"recall@1": at1 / n, "recall@5": at5 / n, "MRR": reciprocal / n}


def quality() -> dict[str, Any]:
    folder = semantic_corpus.build_corpus()
    names, texts = read_notes(folder)
    questions = load_questions()
    missing = sorted({a for q in questions for a in q["answers"]} - set(names))
    embedder = load_embedder()
    if embedder is None:
        raise SystemExit(f"semantic search unavailable: {why_unavailable()}")
    keyword = Keyword(names, texts)
    matrix = embedder.embed([f"{name}\n{text}" for name, text in zip(names, texts, strict=True)])
    half = matrix.astype("float16")

    def semantic(query: str) -> list[str]:
        return [names[row] for row, _ in cosine_top(embedder.embed_query(query), half, DEPTH)]

    def hybrid(query: str) -> list[str]:
        return [name for name, _ in fuse([keyword(query), semantic(query)])][:DEPTH]

    rankers: dict[str, Ranker] = {
        "keyword (BM25, words OR-ed)": keyword,
        "plugin-style simple search": plugin_simple(folder),
        "semantic": semantic,
        "hybrid (RRF k=60)": hybrid,
    }
    return {
        "notes": len(names),
        "questions": len(questions),
        "answers missing from the corpus": missing,
        "model": embedder.model,
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "results": {name: measure(ranker, questions) for name, ranker in rankers.items()},
    }


def scale_child(folder: str) -> None:
    """Run in a child pinned to one core: build, query, and report VmHWM as JSON."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    names, texts = read_notes(Path(folder))
    embedder = load_embedder()
    assert embedder is not None
    started = time.perf_counter()
    cpu = time.process_time()
    matrix = embedder.embed(texts).astype("float16")
    build = time.perf_counter() - started
    build_cpu = time.process_time() - cpu
    del texts
    keyword = Keyword(names, read_notes(Path(folder))[1])
    queries = [q["question"] for q in load_questions()][:30]
    semantic_ms, hybrid_ms = [], []
    for query in queries:
        t = time.perf_counter()
        top = cosine_top(embedder.embed_query(query), matrix, 10)
        semantic_ms.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        fused = fuse(
            [
                keyword(query),
                [names[row] for row, _ in cosine_top(embedder.embed_query(query), matrix, DEPTH)],
            ]
        )[:10]
        hybrid_ms.append((time.perf_counter() - t) * 1000)
        assert top
        assert fused
    peak = next(
        int(line.split()[1]) / 1024
        for line in Path("/proc/self/status").read_text().splitlines()
        if line.startswith("VmHWM")
    )
    print(
        json.dumps(
            {
                "notes": len(names),
                "build_seconds": build,
                "build_cpu_seconds": build_cpu,
                "notes_per_second": len(names) / build,
                "vectors_mb": matrix.nbytes / 1e6,
                "semantic_ms_median": statistics.median(semantic_ms),
                "hybrid_ms_median": statistics.median(hybrid_ms),
                "peak_mb": peak,
            }
        )
    )


def scale(notes: int) -> dict[str, Any]:
    import generate_vault

    vault = generate_vault.generate(notes=notes, folders=min(2_000, notes)).path
    out = subprocess.run(
        [sys.executable, __file__, "--scale-child", str(vault)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def ok(met: bool) -> str:
    return "met" if met else "**not met**"


def report(found: dict[str, Any], cost: dict[str, Any] | None) -> str:
    results = found["results"]
    rows = "\n".join(
        f"| {name} | {r['recall@1']:.2f} | {r['recall@5']:.2f} | {r['MRR']:.2f} |"
        for name, r in results.items()
    )
    keyword5 = results["keyword (BM25, words OR-ed)"]["recall@5"]
    hybrid5 = results["hybrid (RRF k=60)"]["recall@5"]
    lines = [
        "## Search by meaning (issue 26)",
        "",
        f"`python bench/semantic_eval.py`. Corpus: the Python {found['python']} standard "
        f"library's docstrings, one note per module ({found['notes']} notes, "
        "bench/semantic_corpus.py); "
        f"{found['questions']} hand-written questions that paraphrase a module without naming "
        "it (bench/data/semantic_questions.json). Model: "
        f"{found['model']}.",
        "",
        "| search | recall@1 | recall@5 | MRR |",
        "| --- | --- | --- | --- |",
        rows,
        "",
        f"- Hybrid recall@5 {hybrid5:.2f} (target ≥ {TARGET_HYBRID_RECALL5:.2f}): "
        f"{ok(hybrid5 >= TARGET_HYBRID_RECALL5)}.",
        f"- Hybrid over keyword: {hybrid5 - keyword5:+.2f} (target ≥ +{TARGET_OVER_KEYWORD:.2f}):"
        f" {ok(hybrid5 - keyword5 >= TARGET_OVER_KEYWORD)}.",
    ]
    if cost is not None:
        lines += [
            "",
            f"On the {cost['notes']:,}-note bench vault (generate_vault.py), one process pinned "
            "to one core, the embedder called directly:",
            "",
            f"- Embedding every note: {cost['build_seconds']:.0f} s "
            f"({cost['notes_per_second']:.0f} notes/s; target ≤ {TARGET_BUILD_SECONDS:.0f} s): "
            f"{ok(cost['build_seconds'] <= TARGET_BUILD_SECONDS)}; vectors "
            f"{cost['vectors_mb']:.0f} MB as float16.",
            f"- A semantic query's top 10: {cost['semantic_ms_median']:.1f} ms median; a hybrid "
            f"one (BM25 + cosine + fusion): {cost['hybrid_ms_median']:.1f} ms (target ≤ "
            f"{TARGET_QUERY_MS:.0f} ms): "
            f"{ok(max(cost['semantic_ms_median'], cost['hybrid_ms_median']) <= TARGET_QUERY_MS)}.",
            f"- Peak memory (VmHWM) of that process, all note texts and an FTS5 table in memory: "
            f"{cost['peak_mb']:.0f} MB (target for the server ≤ {TARGET_MEMORY_MB:.0f} MB): "
            f"{ok(cost['peak_mb'] <= TARGET_MEMORY_MB)}.",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--skip-scale", action="store_true")
    parser.add_argument("--scale-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.scale_child:
        scale_child(args.scale_child)
        return 0
    found = quality()
    print(json.dumps(found, indent=1))
    cost = None if args.skip_scale else scale(args.notes)
    if cost is not None:
        print(json.dumps(cost, indent=1))
    write_section("semantic", report(found, cost))
    return 0


if __name__ == "__main__":
    sys.exit(main())
