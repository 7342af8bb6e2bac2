"""What the found folder's checks cost (issue 36): verification with and without the whole
tree's recent notes, and the check made before each change that goes through the plugin.

The emulator (plugin 5.1.0, plain HTTP on 127.0.0.1, in a thread of this process) serves the
generated 20,000-note vault and the small fixture vault; vaultgate's own functions are timed
as the server calls them. Prints a markdown section for docs/benchmarks.md.

    PYTHONPATH=src python bench/found_checks.py [--rounds 5] [--checks 50]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

import generate_vault
from vaultgate.config import Settings
from vaultgate.discovery.verify import verify_folder
from vaultgate.emulator.runner import start_emulator
from vaultgate.engine.walk import scan_folder
from vaultgate.folder.same_vault import check_same_notes
from vaultgate.obsidian.client import ObsidianClient
from vaultgate.obsidian.transport import build_http_client

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "vault"


async def timed(rounds: int, run: Callable[[], Awaitable[object]]) -> list[float]:
    spent: list[float] = []
    for _ in range(rounds):
        start = time.perf_counter()
        await run()
        spent.append(time.perf_counter() - start)
    return spent


def ms(values: list[float]) -> str:
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{low * 1000:.1f} / {mid * 1000:.1f} / {high * 1000:.1f} ms"


async def measure(vault: Path, note: str, rounds: int, checks: int) -> dict[str, list[float]]:
    emulator = start_emulator(vault, https_port=None, http_port=0)
    try:
        assert emulator.http_url is not None
        settings = Settings.from_env(
            {
                "OBSIDIAN_API_KEY": emulator.api_key,
                "OBSIDIAN_TIMEOUT": "300",  # the emulator's first note JSON builds its caches
                "OBSIDIAN_PROTOCOL": "http",
                "OBSIDIAN_PORT": emulator.http_url.rsplit(":", 1)[1],
            }
        ).obsidian
        walk = await timed(
            rounds, lambda: anyio.to_thread.run_sync(lambda: scan_folder(str(vault)))
        )
        plugin = ObsidianClient(settings, await build_http_client(settings))
        try:
            await plugin.read_note_json(note)  # warm: measured is the steady state
            whole = await timed(rounds, lambda: verify_folder(vault, plugin))
            cheap = await timed(rounds, lambda: verify_folder(vault, plugin, whole_tree=False))
            check = await timed(
                checks, lambda: check_same_notes(vault, plugin, "Appending to", [note])
            )
            read = await timed(checks, lambda: plugin.read_note_json(note))
            verdict = await verify_folder(vault, plugin)
            assert verdict.matches, verdict.how
        finally:
            await plugin.aclose()
    finally:
        emulator.stop()
    return {"whole": whole, "cheap": cheap, "check": check, "read": read, "walk": walk}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--checks", type=int, default=50)
    options = parser.parse_args(argv)
    large = generate_vault.generate().path
    vaults = [
        ("fixture vault (34 notes)", FIXTURE, "Welcome.md"),
        ("20,000 notes, 2,000 folders", large, sorted(p.name for p in large.glob("*.md"))[0]),
    ]
    lines = [
        "| Vault | verification, whole tree | periodic recheck | check before a change "
        "| its note JSON alone | the folder's walk (part of the whole tree) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, vault, note in vaults:
        found = anyio.run(measure, vault, note, options.rounds, options.checks)
        lines.append(
            f"| {name} | {ms(found['whole'])} | {ms(found['cheap'])} | {ms(found['check'])} "
            f"| {ms(found['read'])} | {ms(found['walk'])} |"
        )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
