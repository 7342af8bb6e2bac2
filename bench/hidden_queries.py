"""Benchmark: what answering link queries as if hidden or denied notes were missing costs
(issue 23), through the emulator, which costs what the plugin costs.

    python bench/hidden_queries.py            # 3,000 notes in 300 folders
    python bench/hidden_queries.py --notes 20000 --folders 2000

The vault comes from bench/generate_vault.py (cached, read in place). One server answers with
no rule (the plugin evaluates the query), one with VAULTGATE_DENY naming a folder (vaultgate
asks for every note's JSON, reads the notes that link into the folder, and evaluates the query
itself). Each query is new on every run (the search cache never answers). It prints a
markdown table of the best and median of RUNS runs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from mcp import Client

import generate_vault
from vaultgate.config import Settings
from vaultgate.emulator.runner import start_emulator
from vaultgate.server import build_server

RUNS = 5
QUERIES: dict[str, Any] = {
    "backlinks": {"var": "backlinks"},
    "links that name a word": {"some": [{"var": "links"}, {"in": ["a", {"var": ""}]}]},
    "links and content": {"if": [{"in": ["the", {"var": "content"}]}, {"var": "links"}, 0]},
    "tags only (never evaluated here)": {"in": ["project", {"var": "tags"}]},
}


async def measure(vault: Path, deny: str | None) -> dict[str, tuple[float, float]]:
    with start_emulator(vault, plugin_version="5.1.0") as emulator:
        assert emulator.https_url is not None
        env = {
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
            "OBSIDIAN_CERT": str(emulator.certificate_path),
            "VAULTGATE_MEMORY_DB": ":memory:",
            "VAULTGATE_TOOLS": "full",
        }
        if deny:
            env["VAULTGATE_DENY"] = deny
        times: dict[str, tuple[float, float]] = {}
        async with Client(build_server(Settings.from_env(env))) as client:
            await client.call_tool("search_vault", {"query": {"var": "path"}})  # warm up
            for name, query in QUERIES.items():
                seconds = []
                for run in range(RUNS):
                    fresh = {"if": [run + 1, query, 0]}  # a new query: no cached answer
                    started = time.perf_counter()
                    result = await client.call_tool("search_vault", {"query": fresh})
                    seconds.append(time.perf_counter() - started)
                    assert not result.is_error, result
                times[name] = (min(seconds), statistics.median(seconds))
        return times


def ms(pair: tuple[float, float]) -> str:
    return f"{pair[0] * 1000:.0f} / {pair[1] * 1000:.0f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=3_000)
    parser.add_argument("--folders", type=int, default=300)
    args = parser.parse_args(argv)
    vault = generate_vault.generate(args.notes, args.folders).path
    deny = sorted(p.name for p in vault.iterdir() if p.is_dir() and not p.name.startswith("."))[0]
    plain = asyncio.run(measure(vault, None))
    denied = asyncio.run(measure(vault, deny))
    print(f"{args.notes} notes, {args.folders} folders; VAULTGATE_DENY={deny}; best / median\n")
    print("| query | plugin evaluates (no rule) | vaultgate evaluates (deny) |")
    print("|---|---|---|")
    for name in QUERIES:
        print(f"| {name} | {ms(plain[name])} | {ms(denied[name])} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
