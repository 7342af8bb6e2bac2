"""The official MCP Bundle package, npm-installed once into pytest's cache folder, and uv."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

import pytest

# The version Claude Desktop's extension code is checked against (tests/packaging/
# expand_manifest.mjs); its CLI validates and packs the bundle too.
MCPB_VERSION = "2.1.2"
MCPB_PACKAGE = f"@anthropic-ai/mcpb@{MCPB_VERSION}"
NPM_TIMEOUT = 300


@pytest.fixture(scope="session")
def mcpb_prefix(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An npm prefix holding @anthropic-ai/mcpb at MCPB_VERSION: installed on first use into
    pytest's cache folder and kept there (skipped only where Node.js and npm are missing)."""
    cache = getattr(request.config, "cache", None)
    root = cache.mkdir("npm-mcpb") if cache is not None else tmp_path_factory.mktemp("npm-mcpb")
    prefix = root / MCPB_VERSION
    if _installed_version(prefix) == MCPB_VERSION:
        return prefix
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        pytest.skip(f"Node.js and npm are not installed; the tests of {MCPB_PACKAGE} need them")
    # into a fresh folder first, then renamed: a run stopped half-way, or another run
    # installing at the same time, never leaves a half-installed prefix behind
    fresh = Path(tempfile.mkdtemp(prefix="installing-", dir=root))
    try:
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(fresh), MCPB_PACKAGE],
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT,
            check=False,
        )
        if done.returncode != 0:
            pytest.fail(
                f"npm could not install {MCPB_PACKAGE} (is the npm registry reachable?):\n"
                f"{done.stderr[-2000:]}"
            )
        assert _installed_version(fresh) == MCPB_VERSION, f"npm did not install {MCPB_PACKAGE}"
        if _installed_version(prefix) == MCPB_VERSION:  # another run finished first
            return prefix
        shutil.rmtree(prefix, ignore_errors=True)
        try:
            fresh.rename(prefix)
        except OSError:  # another run put its own in place meanwhile
            if _installed_version(prefix) != MCPB_VERSION:
                raise
    except subprocess.TimeoutExpired:
        pytest.fail(f"npm install {MCPB_PACKAGE} took over {NPM_TIMEOUT} s; is the registry up?")
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return prefix


def _installed_version(prefix: Path) -> str | None:
    package = prefix / "node_modules" / "@anthropic-ai" / "mcpb" / "package.json"
    try:
        version: str = json.loads(package.read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        return None
    return version


@pytest.fixture(scope="session")
def mcpb(request: pytest.FixtureRequest) -> Path:
    """The ``mcpb`` command: $MCPB if set, else the one of the cached install."""
    if given := os.environ.get("MCPB"):
        return Path(given)
    prefix: Path = request.getfixturevalue("mcpb_prefix")
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
