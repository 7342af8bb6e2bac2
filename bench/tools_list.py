"""How much a tools/list answer costs, per VAULTGATE_TOOLS profile.

Every conversation pays for the tool list before its first message, so its size is measured
here: the compact JSON of each tool's name, description and inputSchema (what a host puts in
the model's context; issue 10's measure, vaultgate.tools.schema.listed_characters), tokens
estimated as ceil(chars / 4), and the whole wire answer (titles and annotations too), next
to the figure published for mcp-obsidian: about 2,000 tokens for its 15 tools.
"""

from __future__ import annotations

import json
import math
import sys

import anyio
from mcp import Client

from report import write_section
from vaultgate.config import Settings
from vaultgate.server import build_server
from vaultgate.tools.schema import listed_characters

PROFILES = [("compact (default)", "compact"), ("split", "split"), ("full", "full")]
MCP_OBSIDIAN = ("mcp-obsidian (published figure)", 15, None, 2_000)


async def measure(profile: str) -> tuple[int, int, int, int]:
    settings = Settings.from_env(
        {"OBSIDIAN_API_KEY": "k", "VAULTGATE_TOOLS": profile, "VAULTGATE_MEMORY_DB": ":memory:"}
    )
    async with Client(build_server(settings)) as client:
        tools = (await client.list_tools()).tools
    wire = json.dumps(
        {"tools": [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools]},
        separators=(",", ":"),
        ensure_ascii=False,
    )
    listed = listed_characters(tools)
    return len(tools), listed, math.ceil(listed / 4), len(wire)


async def main() -> int:
    rows = []
    for label, profile in PROFILES:
        count, chars, tokens, wire = await measure(profile)
        rows.append(f"| {label} | {count} | {chars:,} | {tokens:,} | {wire:,} |")
    name, count, _, tokens = MCP_OBSIDIAN
    rows.append(f"| {name} | {count} | – | ≈ {tokens:,} | – |")
    body = "\n".join(
        [
            "## Tool list size",
            "",
            "The `tools/list` answer per `VAULTGATE_TOOLS` profile: the compact JSON of each",
            "tool's name, description and inputSchema (what the model's context holds; the",
            "compact profile's bar is 6,500, held by a test), tokens estimated as ⌈chars / 4⌉,",
            "and the whole wire answer with titles and annotations. Schemas are tidied: no",
            "titles, no null unions, no null defaults. Rerun with `python bench/tools_list.py`.",
            "",
            "| Profile | tools | characters | ≈ tokens | whole answer |",
            "| --- | ---: | ---: | ---: | ---: |",
            *rows,
            "",
            "The compact profile is seed 004's: `vault` (every vault operation, reads and",
            "changes), `active_file` (the open note) and `memory` (every memory and SDD",
            "operation), with `discover` to explain each (its parameters and an example call)",
            "and `fetch`. `split` has reading apart from changing (`vault`/`vault_edit`,",
            "`memory`/`memory_edit`) for hosts that approve tools one by one; `full` adds every",
            "single tool under its own name for hosts that prefer them.",
        ]
    )
    write_section("tools", body)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
