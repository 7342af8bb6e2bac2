"""The official MCP Bundle package, npm-installed once into pytest's cache folder, and uv."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from tests.npm_packages import NPM_TIMEOUT, npm_package

# The version Claude Desktop's extension code is checked against (tests/packaging/
# expand_manifest.mjs); its CLI validates and packs the bundle too.
MCPB_VERSION = "2.1.2"
MCPB_NAME = "@anthropic-ai/mcpb"


@pytest.fixture(scope="session")
def mcpb_prefix(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An npm prefix holding @anthropic-ai/mcpb at MCPB_VERSION (``tests/npm_packages``)."""
    return npm_package(request, tmp_path_factory, MCPB_NAME, MCPB_VERSION)


@pytest.fixture(scope="session")
def mcpb(request: pytest.FixtureRequest) -> Path:
    """The ``mcpb`` command: $MCPB if set, else the one of the cached install."""
    if given := os.environ.get("MCPB"):
        return Path(given)
    prefix: Path = request.getfixturevalue("mcpb_prefix")
    binary = prefix / "node_modules" / ".bin" / "mcpb"
    assert binary.exists(), f"npm installed {MCPB_NAME}@{MCPB_VERSION} but left no {binary}"
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
