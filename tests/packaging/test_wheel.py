"""The wheel as users get it: built with ``python -m build``, installed into a fresh venv, run.

Slow (a build environment and every dependency installed from the registry or pip's cache), so
it is marked and bounded: each step has a timeout and the whole module takes about a minute.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from vaultgate.demo import fixture_vault

ROOT = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
KEY = "w" * 64

pytestmark = [pytest.mark.packaging, pytest.mark.e2e]


def _env() -> dict[str, str]:
    """The environment without our settings or the developer's venv on the path."""
    drop = ("OBSIDIAN_", "VAULTGATE_", "VIRTUAL_ENV", "PYTHONPATH")
    return {k: v for k, v in os.environ.items() if not k.startswith(drop)}


def _run(args: list[str], timeout: float, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        args,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**_env(), **env},
        cwd=tempfile.gettempdir(),  # never the source tree: the wheel must stand alone
    )
    assert done.returncode == 0, f"{args} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)], 600)
    (built,) = out.glob("vaultgate-*.whl")
    return built


@pytest.fixture(scope="module")
def bin_dir(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin (Scripts) folder of a fresh venv with only the wheel and its dependencies."""
    home = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=True).create(home)
    scripts = home / ("Scripts" if sys.platform == "win32" else "bin")
    pip = [str(scripts / "python"), "-m", "pip", "--disable-pip-version-check"]
    _run([*pip, "install", "--quiet", str(wheel)], 600)
    return scripts


def test_the_wheel_carries_the_licence_the_sample_vault_and_one_version(wheel: Path) -> None:
    assert wheel.name == f"vaultgate-{VERSION}-py3-none-any.whl"
    names = zipfile.ZipFile(wheel).namelist()
    assert f"vaultgate-{VERSION}.dist-info/licenses/LICENSE" in names
    assert "vaultgate/py.typed" in names
    assert any(n.startswith("vaultgate/_fixtures/vault/") and n.endswith(".md") for n in names)
    metadata = zipfile.ZipFile(wheel).read(f"vaultgate-{VERSION}.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata
    assert "Classifier: Programming Language :: Python :: 3.11" in metadata
    assert "python-frontmatter" not in metadata


def test_the_installed_command_reports_the_version_from_pyproject(bin_dir: Path) -> None:
    done = _run([str(bin_dir / "vaultgate"), "--version"], 60)
    assert done.stdout.strip() == f"vaultgate {VERSION}"


def test_vaultgate_demo_runs_from_the_installed_wheel(bin_dir: Path) -> None:
    done = _run([str(bin_dir / "vaultgate"), "demo"], 180)
    assert done.stdout.strip()  # the tour, printed; exit status 0


def test_vaultgate_doctor_passes_against_the_emulator_from_the_installed_wheel(
    bin_dir: Path, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(fixture_vault(), vault)
    command = [str(bin_dir / "vaultgate"), "emulate", "--vault", str(vault)]
    emulator = subprocess.Popen(
        [*command, "--port", "0", "--api-key", KEY],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        assert emulator.stderr is not None
        announced = ""
        while (url := re.search(r"https://127\.0\.0\.1:(\d+)", announced)) is None:
            line = emulator.stderr.readline()
            assert line, f"emulate exited early: {announced}"
            announced += line
        done = _run(
            [str(bin_dir / "vaultgate"), "doctor"],
            120,
            OBSIDIAN_API_KEY=KEY,
            OBSIDIAN_HOST="127.0.0.1",
            OBSIDIAN_PORT=url.group(1),
        )
    finally:
        emulator.send_signal(signal.SIGINT)
        emulator.communicate(timeout=30)
    assert (done.stdout + done.stderr).strip()  # exit status 0: every check passed
