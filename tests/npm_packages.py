"""npm packages the tests run but do not ship (the MCP Bundle CLI, the MCP Inspector), pinned
and installed once into pytest's cache folder, then reused."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

NPM_TIMEOUT = 300


def npm_package(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    version: str,
) -> Path:
    """An npm prefix holding ``name`` at ``version``: installed on first use into pytest's
    cache folder and kept there (the test is skipped only where Node.js and npm are missing)."""
    package = f"{name}@{version}"
    cache = getattr(request.config, "cache", None)
    folder = "npm-" + name.rsplit("/", 1)[-1]
    root = cache.mkdir(folder) if cache is not None else tmp_path_factory.mktemp(folder)
    prefix = root / version
    if installed_version(prefix, name) == version:
        return prefix
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        pytest.skip(f"Node.js and npm are not installed; the tests of {package} need them")
    # into a fresh folder first, then renamed: a run stopped half-way, or another run
    # installing at the same time, never leaves a half-installed prefix behind
    fresh = Path(tempfile.mkdtemp(prefix="installing-", dir=root))
    try:
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(fresh), package],
            capture_output=True,
            text=True,
            timeout=NPM_TIMEOUT,
            check=False,
        )
        if done.returncode != 0:
            pytest.fail(
                f"npm could not install {package} (is the npm registry reachable?):\n"
                f"{done.stderr[-2000:]}"
            )
        assert installed_version(fresh, name) == version, f"npm did not install {package}"
        if installed_version(prefix, name) == version:  # another run finished first
            return prefix
        shutil.rmtree(prefix, ignore_errors=True)
        try:
            fresh.rename(prefix)
        except OSError:  # another run put its own in place meanwhile
            if installed_version(prefix, name) != version:
                raise
    except subprocess.TimeoutExpired:
        pytest.fail(f"npm install {package} took over {NPM_TIMEOUT} s; is the registry up?")
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return prefix


def installed_version(prefix: Path, name: str) -> str | None:
    package = prefix / "node_modules" / name / "package.json"
    try:
        version: str = json.loads(package.read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        return None
    return version
