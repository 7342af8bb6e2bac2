"""scripts/demo and scripts/test install only when needed: on a new venv (a fresh clone, CI)
and when pyproject.toml changed, never again on every run. Run against a stand-in Python that
logs what it is asked, so no venv is made and nothing is downloaded."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"

# A stand-in for python3 and for everything the venv would hold: each call is one log line.
FAKE_PYTHON = """#!/usr/bin/env bash
set -euo pipefail
echo "$(basename "$0") $*" >> "$FAKE_LOG"
here="$(cd "$(dirname "$0")" && pwd)"
if [ "${1:-}" = "-m" ] && [ "${2:-}" = "venv" ]; then
    mkdir -p "$3/bin"
    cp "$0" "$3/bin/python"
elif [ "${1:-}" = "-m" ] && [ "${2:-}" = "pip" ]; then
    for tool in vaultgate ruff mypy; do cp "$0" "$here/$tool"; done
fi
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A clone's shape: the scripts, a pyproject.toml, no .venv yet."""
    root = tmp_path / "clone"
    shutil.copytree(SCRIPTS, root / "scripts")
    (root / "pyproject.toml").write_text('[project]\nname = "vaultgate"\n', encoding="utf-8")
    python = tmp_path / "python3"
    python.write_text(FAKE_PYTHON, encoding="utf-8")
    python.chmod(0o755)
    return root


def run(project: Path, script: str) -> list[str]:
    """Run ``bash scripts/<script>``; the calls it made, one per line."""
    log = project.parent / "calls.log"
    log.unlink(missing_ok=True)
    env = {**os.environ, "PYTHON": str(project.parent / "python3"), "FAKE_LOG": str(log)}
    subprocess.run(["bash", f"scripts/{script}"], cwd=project, env=env, check=True, timeout=60)
    return log.read_text(encoding="utf-8").splitlines()


def installs(calls: list[str]) -> list[str]:
    return [call for call in calls if " -m pip install " in call]


def edit_pyproject(project: Path) -> None:
    """pyproject.toml changed after the last install (an edit, a git pull): its time is now,
    the installs' are earlier."""
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    earlier = pyproject.stat().st_mtime - 10
    for stamp in (project / ".venv").glob(".vaultgate-installed-*"):
        os.utime(stamp, (earlier, earlier))


@pytest.mark.parametrize(
    ("script", "spec", "last"),
    [
        pytest.param("demo", "-e .", "vaultgate demo", id="demo"),
        pytest.param("test", "-e .[test]", "python -m pytest", id="test"),
    ],
)
def test_a_script_installs_on_a_fresh_clone_then_only_when_pyproject_changes(
    project: Path, script: str, spec: str, last: str
) -> None:
    first = run(project, script)
    assert any(" -m venv .venv" in call for call in first)
    assert [call.rsplit(" ", 2)[-2:] for call in installs(first)] == [spec.split(" ")]
    assert first[-1] == last

    again = run(project, script)
    assert installs(again) == []
    assert again[-1] == last

    edit_pyproject(project)
    changed = run(project, script)
    assert len(installs(changed)) == 1
    assert installs(run(project, script)) == []


def test_the_demo_installs_again_when_its_command_is_gone(project: Path) -> None:
    run(project, "demo")
    (project / ".venv" / "bin" / "vaultgate").unlink()

    assert len(installs(run(project, "demo"))) == 1


def test_the_tests_install_their_extras_even_after_the_demo_installed(project: Path) -> None:
    run(project, "demo")

    assert len(installs(run(project, "test"))) == 1
