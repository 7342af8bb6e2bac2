"""The MCP Inspector CLI, a client we do not write, lists and reads a vault note as a resource
over stdio. The Inspector is npm-installed once (pinned) into pytest's cache folder; the test
is skipped only where Node.js and npm are missing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.npm_packages import npm_package

from vaultgate.demo import fixture_vault
from vaultgate.vault.note_uris import note_uri

pytestmark = pytest.mark.e2e

INSPECTOR_VERSION = "2.12.0"
INSPECTOR_NAME = "@modelcontextprotocol/inspector"
RUN_TIMEOUT = 120
NOTE = "Projects/Personal/🚀 Launch plan.md"


@pytest.fixture(scope="session")
def inspector(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``mcp-inspector`` command at INSPECTOR_VERSION, installed on first use."""
    prefix = npm_package(request, tmp_path_factory, INSPECTOR_NAME, INSPECTOR_VERSION)
    return prefix / "node_modules" / ".bin" / "mcp-inspector"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    copy = tmp_path / "vault"
    shutil.copytree(fixture_vault(), copy)
    return copy


def ask(inspector: Path, vault: Path, method: str, *extra: str) -> Any:
    """One Inspector CLI call to vaultgate over stdio; its JSON answer."""
    settings = {
        "VAULTGATE_VAULT": str(vault),
        "VAULTGATE_BACKEND": "folder",
        "VAULTGATE_MEMORY_DB": ":memory:",
    }
    if "PYTHONPATH" in os.environ:  # the code under test, where it is not the installed one
        settings["PYTHONPATH"] = os.environ["PYTHONPATH"]
    command = [str(inspector), "--cli"]
    for key, value in settings.items():
        command += ["-e", f"{key}={value}"]
    command += ["--method", method, *extra, sys.executable, "-m", "vaultgate"]
    done = subprocess.run(
        command, capture_output=True, text=True, encoding="utf-8", timeout=RUN_TIMEOUT, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_inspector_lists_the_notes_and_reads_one(inspector: Path, vault: Path) -> None:
    listed = ask(inspector, vault, "resources/list")
    templates = ask(inspector, vault, "resources/templates/list")
    read = ask(inspector, vault, "resources/read", "--uri", note_uri(NOTE))

    names = [resource["name"] for resource in listed["resources"]]
    notes = [p.relative_to(vault).as_posix() for p in vault.rglob("*.md")]
    # the Inspector walks the pages (more than one: 5,000 characters each) by their cursors
    assert sorted(names) == sorted(n for n in notes if not n.startswith("."))
    assert [t["uriTemplate"] for t in templates["resourceTemplates"]] == ["vault:///{path}"]
    (contents,) = read["contents"]
    assert contents["uri"] == note_uri(NOTE)
    assert contents["text"] == (vault / NOTE).read_text(encoding="utf-8")
