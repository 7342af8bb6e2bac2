"""Benchmark: what checking where paths really lead costs (issue 21), on the generated vault.

    python bench/link_checks.py            # 20,000 notes in 2,000 folders
    python bench/link_checks.py --quick    # 2,000 notes in 200 folders

The vault comes from bench/generate_vault.py (cached) and is read in place (nothing is
written). Measured, RUNS times each, in this process:

- the walk the access policy makes for its link map when the plugin serves and the vault
  folder is known (names only, no ``stat`` of notes: once per 30 s, before a listing or a
  search is filtered), beside the folder backend's own walk (each note ``stat``'ed);
- placing every listed path through a link map: empty (a vault without links, the usual
  case) and holding one link (every path then pays a lookup of its first folder);
- resolving a single path on the disk (``locate``: what every read, write and move end pays
  once the vault folder is known), per path.

It prints a markdown table (docs/benchmarks.md is written by whoever integrates it).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import generate_vault
from vaultgate.engine.walk import scan_folder
from vaultgate.locations import OBSIDIAN_LINKS, LinkMap, locate, real_root

RUNS = 9
SINGLE_PATHS = 2_000  # paths resolved on the disk, one by one, for the per-path figure


def timed(work: Callable[[], object], runs: int = RUNS) -> tuple[float, float]:
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        seconds.append(time.perf_counter() - started)
    return min(seconds), statistics.median(seconds)


def ms(pair: tuple[float, float]) -> str:
    return f"{pair[0] * 1000:.1f} ms / {pair[1] * 1000:.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 notes in 200 folders")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    notes, folders = (2_000, 200) if args.quick else (20_000, 2_000)
    generated = generate_vault.generate(notes, folders, args.seed)
    root = real_root(generated.path)
    files = scan_folder(root).files

    link_walk = timed(lambda: scan_folder(root, rules=OBSIDIAN_LINKS, stat_notes=False))
    full_walk = timed(lambda: scan_folder(root))
    empty = LinkMap(root, {})
    one_link = LinkMap(root, {"Linked elsewhere": "/tmp"})
    # what the policy asks of each listed path before it places one
    placed_empty = timed(lambda: [empty.may_lead_elsewhere(path) for path in files])
    placed_one = timed(lambda: [one_link.may_lead_elsewhere(path) for path in files])
    sample = files[:SINGLE_PATHS]
    single = timed(lambda: [locate(root, path) for path in sample])
    per_path_us = single[1] / len(sample) * 1e6

    print(f"## Checking where paths lead: {len(files):,} files in {folders:,} folders\n")
    print("| Operation | Best / median |")
    print("|---|---|")
    print(
        f"| The policy's link walk (names only), once per 30 s with the plugin | {ms(link_walk)} |"
    )
    print(f"| … the folder backend's own walk (notes `stat`'ed), for scale | {ms(full_walk)} |")
    print(f"| Placing {len(files):,} listed paths, no link in the vault | {ms(placed_empty)} |")
    print(f"| Placing {len(files):,} listed paths, one link in the vault | {ms(placed_one)} |")
    print(f"| One path resolved on the disk (`locate`), median per path | {per_path_us:.1f} µs |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
