"""scripts/release.py: the namespace and URLs come from VAULTGATE_REPOSITORY alone, into a
registry entry that meets the published schema and a package whose README the registry accepts.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from tests.packaging.test_registry_entry import schema_errors

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "release.py"
# A stand-in: vaultgate has no public repository yet, and the release is only built, never sent.
REPOSITORY = "github.com/some-owner/vaultgate"
NAME = "io.github.some-owner/vaultgate"
URL = "https://github.com/some-owner/vaultgate"

pytestmark = pytest.mark.packaging


def run_release(out: Path, repository: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "VAULTGATE_REPOSITORY"}
    if repository is not None:
        env["VAULTGATE_REPOSITORY"] = repository
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
    )


@pytest.mark.parametrize(
    "repository",
    [
        pytest.param(None, id="unset"),
        pytest.param("", id="empty"),
        pytest.param("some-owner/vaultgate", id="no-host"),
        pytest.param("gitlab.com/some-owner/vaultgate", id="not-github"),
        pytest.param("github.com/some-owner", id="no-repository"),
        pytest.param("github.com/-owner/vaultgate", id="no-github-account"),
        pytest.param("github.com/some-owner/vaultgate/tree/main", id="a-page"),
    ],
)
def test_the_release_refuses_to_run_without_a_github_repository(
    repository: str | None, tmp_path: Path
) -> None:
    out = tmp_path / "release"

    done = run_release(out, repository)

    assert done.returncode == 2
    assert done.stderr.startswith("scripts/release.py: ")
    assert "VAULTGATE_REPOSITORY" in done.stderr
    assert "github.com/OWNER/NAME" in done.stderr
    assert not out.exists()


def test_the_release_names_the_repository_everywhere_and_leaves_the_tree_alone(
    tmp_path: Path,
) -> None:
    committed = {name: (ROOT / name).read_bytes() for name in ("server.json", "README.md")}
    committed["pyproject.toml"] = (ROOT / "pyproject.toml").read_bytes()
    out = tmp_path / "release"

    done = run_release(out, f"https://{REPOSITORY}.git")

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    entry = json.loads((out / "server.json").read_text(encoding="utf-8"))
    assert schema_errors(entry) == []
    assert entry["name"] == NAME
    assert entry["repository"] == {"url": URL, "source": "github"}
    committed_entry = json.loads(committed["server.json"])
    assert entry | {"name": committed_entry["name"]} == committed_entry | {
        "repository": entry["repository"]
    }
    (wheel,) = out.glob("vaultgate-*.whl")
    (sdist,) = out.glob("vaultgate-*.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        wheel_metadata = archive.read(metadata).decode("utf-8")
    with tarfile.open(sdist) as archive:
        (info,) = (
            m
            for m in archive.getmembers()
            if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")
        )
        reader = archive.extractfile(info)
        assert reader is not None
        sdist_metadata = reader.read().decode("utf-8")
    for metadata_text in (wheel_metadata, sdist_metadata):
        # what the registry looks for in the package's description on PyPI
        assert re.findall(r"^<!-- mcp-name: (\S+) -->$", metadata_text, re.MULTILINE) == [NAME]
        assert f"Project-URL: Repository, {URL}\n" in metadata_text
    assert {name: (ROOT / name).read_bytes() for name in committed} == committed


def test_the_release_never_writes_over_an_earlier_one(tmp_path: Path) -> None:
    out = tmp_path / "release"
    out.mkdir()
    (out / "server.json").write_text("{}", encoding="utf-8")

    done = run_release(out, REPOSITORY)

    assert done.returncode == 2
    assert "is not empty" in done.stderr
    assert (out / "server.json").read_text(encoding="utf-8") == "{}"
