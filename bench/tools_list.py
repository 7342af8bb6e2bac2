"""How much a tools/list answer costs, per VAULTGATE_TOOLS profile.

Every conversation pays for the tool list before its first message, so its size is measured
here (compact JSON characters, and tokens estimated as ceil(chars / 4)) next to the figure
published for mcp-obsidian: about 2,000 tokens for its 15 tools.
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

PROFILES = [
    ("compact (default)", "compact"),
    ("full", "full"),
    ("vault only: vault, active_file, discover, fetch", "vault,active_file,discover,fetch"),
]
MCP_OBSIDIAN = ("mcp-obsidian (published figure)", 15, None, 2_000)


async def measure(profile: str) -> tuple[int, int, int]:
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
    return len(tools), len(wire), math.ceil(len(wire) / 4)


async def main() -> int:
    rows = []
    for label, profile in PROFILES:
        count, chars, tokens = await measure(profile)
        rows.append(f"| {label} | {count} | {chars:,} | {tokens:,} |")
    name, count, _, tokens = MCP_OBSIDIAN
    rows.append(f"| {name} | {count} | – | ≈ {tokens:,} |")
    body = "\n".join(
        [
            "## Tool list size",
            "",
            "The `tools/list` answer per `VAULTGATE_TOOLS` profile: compact JSON characters and",
            "tokens estimated as ⌈chars / 4⌉ (schemas tidied: no titles, no null unions). Rerun",
            "with `python bench/tools_list.py`.",
            "",
            "| Profile | tools | characters | ≈ tokens |",
            "| --- | ---: | ---: | ---: |",
            *rows,
            "",
            "The compact profile reaches every note operation through `vault` and `active_file`",
            "(with `discover` to explain them) and keeps the memory tools; `full` adds 30 single",
            "tools for hosts that prefer them. The memory tools are most of the compact list.",
        ]
    )
    write_section("tools", body)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
