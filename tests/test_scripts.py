"""scripts/demo and scripts/test install only when needed: on a new venv (a fresh clone, CI)
and when pyproject.toml changed, never again on every run; scripts/test runs every stage, says
how long each took, and fails when one did. Run against a stand-in Python that logs what it is
asked, so no venv is made and nothing is downloaded."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
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
if [ "$(basename "$0") ${1:-}" = "${FAKE_FAIL:-}" ]; then
    exit 3
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
    return finished(project, script).calls


@dataclass
class Finished:
    calls: list[str]  # one per line, as the stand-in logged them
    status: int
    stderr: str


def finished(project: Path, script: str, *, failing: str = "") -> Finished:
    """Run ``bash scripts/<script>``, the stand-in exiting 3 when called as ``failing``
    (``"ruff format"``: its name and first argument)."""
    log = project.parent / "calls.log"
    log.unlink(missing_ok=True)
    env = {
        **os.environ,
        "PYTHON": str(project.parent / "python3"),
        "FAKE_LOG": str(log),
        "FAKE_FAIL": failing,
    }
    done = subprocess.run(
        ["bash", f"scripts/{script}"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if not failing:
        assert done.returncode == 0, done.stderr
    calls = log.read_text(encoding="utf-8").splitlines()
    return Finished(calls, done.returncode, done.stderr)


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
        pytest.param("test", "-e .[test,semantic]", "python -m pytest -n auto", id="test"),
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


def test_the_tests_run_on_every_core_and_pass_their_arguments_after() -> None:
    script = (SCRIPTS / "test").read_text(encoding="utf-8")

    assert 'pytest -n auto "$@"' in script  # "-n 0" given to scripts/test wins


@pytest.mark.parametrize(
    ("failing", "stage"),
    [
        pytest.param("ruff format", "format", id="format"),
        pytest.param("mypy --strict", "mypy", id="mypy"),
        pytest.param("python -m", "pytest", id="pytest"),
    ],
)
def test_every_stage_runs_and_the_summary_names_the_one_that_failed(
    project: Path, failing: str, stage: str
) -> None:
    run(project, "test")  # installed

    done = finished(project, "test", failing=failing)

    assert done.status == 1
    ran = [call.split(" ")[:2] for call in done.calls]
    assert [call for call in ran if call[0] in ("ruff", "mypy", "python")] == [
        ["ruff", "format"],
        ["ruff", "check"],
        ["mypy", "--strict"],
        ["python", "-m"],
    ]
    lines = done.stderr.splitlines()
    summary = lines[lines.index("scripts/test, seconds per stage:") + 1 :]
    assert [line.split()[0] for line in summary] == ["install", "format", "lint", "mypy", "pytest"]
    for line in summary:
        name, seconds, unit, *verdict = line.split()
        assert seconds.isdigit()
        assert unit == "s"
        assert verdict == (["FAILED", "(exit", "3)"] if name == stage else ["ok"]), line


def test_a_clean_run_exits_zero_with_every_stage_ok(project: Path) -> None:
    done = finished(project, "test")

    assert done.status == 0
    assert done.stderr.count(" ok") == 5
