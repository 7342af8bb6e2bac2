"""The official MCP Bundle CLI, installed once per run into a temporary folder with npm."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

MCPB_PACKAGE = "@anthropic-ai/mcpb@2"
NPM_TIMEOUT = 300


@pytest.fixture(scope="session")
def mcpb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``mcpb`` binary: $MCPB, or on PATH, or a fresh npm install (skipped without Node)."""
    if given := os.environ.get("MCPB") or shutil.which("mcpb"):
        return Path(given)
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        pytest.skip("Node.js and npm are not installed; the MCP Bundle CLI needs them")
    prefix = tmp_path_factory.mktemp("mcpb")
    try:
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(prefix), MCPB_PACKAGE],
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"npm install {MCPB_PACKAGE} took over {NPM_TIMEOUT} s; is the registry up?")
    if done.returncode != 0:
        pytest.fail(
            f"npm could not install {MCPB_PACKAGE} (is the npm registry reachable?):\n"
            f"{done.stderr[-2000:]}"
        )
    binary = prefix / "node_modules" / ".bin" / "mcpb"
    assert binary.exists(), f"npm installed {MCPB_PACKAGE} but left no {binary}"
    return binary


@pytest.fixture(scope="session")
def uv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``uv`` binary Claude Desktop runs extensions with: on PATH, or pip-installed."""
    if found := shutil.which("uv"):
        return Path(found)
    home = tmp_path_factory.mktemp("uv")
    venv.EnvBuilder(with_pip=True).create(home)
    python = home / ("Scripts" if sys.platform == "win32" else "bin") / "python"
    try:
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "uv"],
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"pip install uv took over {NPM_TIMEOUT} s; is the registry up?")
    if done.returncode != 0:
        pytest.fail(f"pip could not install uv (is PyPI reachable?):\n{done.stderr[-2000:]}")
    return python.parent / "uv"
