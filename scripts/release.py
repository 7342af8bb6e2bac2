"""Build a release that names vaultgate's public repository, from one variable.

    VAULTGATE_REPOSITORY=github.com/OWNER/NAME python scripts/release.py [OUT]

The committed files name no repository: server.json's name is ``io.github.{owner}/vaultgate``,
which the MCP Registry refuses, and the README's ``mcp-name:`` line says the same. This script
copies the files git knows into a temporary folder, fills in the namespace and the repository's
URLs there, and writes into OUT (``dist/release`` unless given, and empty):

- ``server.json``: the MCP Registry entry, named ``io.github.OWNER/vaultgate``, with the
  repository's URL;
- the sdist and the wheel, built from the filled copy: their README carries
  ``mcp-name: io.github.OWNER/vaultgate`` (the line the registry looks for on PyPI to accept the
  entry) and their metadata the project's URLs.

The working tree is left as it is. Without VAULTGATE_REPOSITORY, or with anything but
``github.com/OWNER/NAME``, it stops before doing anything. Then publish the package first
(``twine upload OUT/vaultgate-*``), the entry second (``mcp-publisher publish`` in OUT, after
``mcp-publisher login github`` as OWNER).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VARIABLE = "VAULTGATE_REPOSITORY"
SERVER_NAME = "vaultgate"
# A GitHub account name (letters, digits, inner hyphens; at most 39) and a repository name.
REPOSITORY = re.compile(
    r"(?:https://)?github\.com/(?P<owner>[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?)"
    r"/(?P<name>[A-Za-z0-9._-]{1,100}?)(?:\.git)?/?"
)
MCP_NAME_LINE = re.compile(r"^<!-- mcp-name: \S+ -->$", re.MULTILINE)


class ReleaseError(Exception):
    """What stops the release, said in one line."""


def main(argv: list[str], environ: dict[str, str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "dist" / "release"
    try:
        owner, name = parse_repository(environ.get(VARIABLE, ""))
        if out.exists() and any(out.iterdir()):
            raise ReleaseError(f"{out} is not empty; remove it or name another folder.")
        if importlib.util.find_spec("build") is None:
            raise ReleaseError(
                "the build package is missing: run this with .venv/bin/python (bash scripts/test "
                "makes it) or pip install build."
            )
        release(owner, name, out)
    except ReleaseError as exc:
        print(f"scripts/release.py: {exc}", file=sys.stderr)
        return 2
    return 0


def parse_repository(value: str) -> tuple[str, str]:
    """OWNER and NAME of ``github.com/OWNER/NAME``: the MCP Registry's namespace
    ``io.github.OWNER`` is granted to the GitHub account OWNER."""
    if not value.strip():
        raise ReleaseError(
            f"set {VARIABLE} to the public repository, e.g. {VARIABLE}=github.com/OWNER/NAME: "
            "it names the server in the MCP Registry (io.github.OWNER/vaultgate) and its URLs."
        )
    match = REPOSITORY.fullmatch(value.strip())
    if match is None:
        raise ReleaseError(
            f"{VARIABLE} must be github.com/OWNER/NAME (the MCP Registry grants io.github.OWNER "
            f"to the GitHub account OWNER), not {value.strip()!r}."
        )
    return match["owner"], match["name"]


def release(owner: str, name: str, out: Path) -> None:
    server_name = f"io.github.{owner}/{SERVER_NAME}"
    url = f"https://github.com/{owner}/{name}"
    with tempfile.TemporaryDirectory(prefix="vaultgate-release-") as folder:
        stage = Path(folder)
        copy_tracked_files(stage)
        readme = stage / "README.md"
        readme.write_text(
            fill_mcp_name(readme.read_text(encoding="utf-8"), server_name), encoding="utf-8"
        )
        pyproject = stage / "pyproject.toml"
        pyproject.write_text(
            add_project_urls(pyproject.read_text(encoding="utf-8"), url), encoding="utf-8"
        )
        entry = fill_server_entry(
            json.loads((stage / "server.json").read_text(encoding="utf-8")), server_name, url
        )
        out.mkdir(parents=True, exist_ok=True)
        (out / "server.json").write_text(
            json.dumps(entry, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        built = subprocess.run(
            [sys.executable, "-m", "build", "--outdir", str(out), str(stage)], check=False
        )
        if built.returncode != 0:
            raise ReleaseError("python -m build failed (its output is above).")
    print(f"{out}: server.json ({server_name}), the sdist and the wheel.")
    print(f"Next: twine upload {out}/vaultgate-*; then, in {out}: mcp-publisher publish.")


def copy_tracked_files(stage: Path) -> None:
    """The files git knows (tracked, or new and not ignored), as they are in the working tree."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0:
        raise ReleaseError("git ls-files failed; run this in a clone of vaultgate.")
    for relative in listed.stdout.decode("utf-8").split("\0"):
        source = ROOT / relative
        if relative and source.is_file():  # a deleted file is still listed until committed
            target = stage / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def fill_mcp_name(readme: str, server_name: str) -> str:
    lines = MCP_NAME_LINE.findall(readme)
    if len(lines) != 1:
        raise ReleaseError(
            f"README.md must hold one '<!-- mcp-name: … -->' line, not {len(lines)}."
        )
    return MCP_NAME_LINE.sub(f"<!-- mcp-name: {server_name} -->", readme)


def add_project_urls(pyproject: str, url: str) -> str:
    if "urls" in tomllib.loads(pyproject)["project"]:
        raise ReleaseError("pyproject.toml has [project.urls]; this script writes them.")
    filled = (
        f"{pyproject.rstrip()}\n\n[project.urls]\n"
        f'Homepage = "{url}"\n'
        f'Repository = "{url}"\n'
        f'Issues = "{url}/issues"\n'
        f'Changelog = "{url}/blob/main/CHANGELOG.md"\n'
    )
    tomllib.loads(filled)  # still TOML
    return filled


def fill_server_entry(entry: dict[str, Any], server_name: str, url: str) -> dict[str, Any]:
    """The entry named and pointing at the repository, its keys in the committed order."""
    filled: dict[str, Any] = {}
    for key, value in entry.items():
        filled[key] = server_name if key == "name" else value
        if key == "description":
            filled["repository"] = {"url": url, "source": "github"}
    return filled


if __name__ == "__main__":
    sys.exit(main(sys.argv, dict(os.environ)))
