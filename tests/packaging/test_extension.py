"""The Claude Desktop extension: manifest.json passes the official validator and packs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import zipfile
from pathlib import Path

import pytest

from vaultgate.config import KNOWN_SETTINGS

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = json.loads((ROOT / "manifest.json").read_text(encoding="utf-8"))
README = (ROOT / "README.md").read_text(encoding="utf-8")

pytestmark = pytest.mark.packaging


def test_mcpb_validate_accepts_the_manifest(mcpb: Path) -> None:
    done = subprocess.run(
        [str(mcpb), "validate", str(ROOT / "manifest.json")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "passes" in done.stdout


def test_scripts_bundle_packs_the_server_without_the_developer_files(
    mcpb: Path, tmp_path: Path
) -> None:
    out = tmp_path / "vaultgate.mcpb"
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "bundle"), str(out)],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env={**_base_env(), "MCPB": str(mcpb)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    names = set(zipfile.ZipFile(out).namelist())
    assert {"manifest.json", "pyproject.toml", "README.md", "LICENSE"} <= names
    assert "src/vaultgate/__main__.py" in names
    assert any(n.startswith("fixtures/vault/") for n in names)  # the wheel force-includes it
    assert not any(n.startswith((".venv/", "tests/", "bench/", ".git/")) for n in names)
    assert not any("__pycache__" in n for n in names)


def test_the_packed_bundle_runs_vaultgate_with_the_manifests_uv_command(
    mcpb: Path, uv: Path, tmp_path: Path
) -> None:
    bundle = tmp_path / "vaultgate.mcpb"
    subprocess.run(
        ["bash", str(ROOT / "scripts" / "bundle"), str(bundle)],
        capture_output=True,
        timeout=180,
        check=True,
        env={**_base_env(), "MCPB": str(mcpb)},
    )
    unpacked = tmp_path / "unpacked"
    zipfile.ZipFile(bundle).extractall(unpacked)
    config = MANIFEST["server"]["mcp_config"]
    args = [a.replace("${__dirname}", str(unpacked)) for a in config["args"]]
    assert args[-1] == "serve"
    done = subprocess.run(
        [str(uv), *args[:-1], "--version"],  # the same command, asking only for the version
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=tmp_path,
        env={k: v for k, v in _base_env().items() if k != "VIRTUAL_ENV"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == f"vaultgate {MANIFEST['version']}"


def test_the_server_is_run_by_uv_from_the_bundle() -> None:
    server = MANIFEST["server"]
    assert server["type"] == "uv"
    assert (ROOT / server["entry_point"]).is_file()
    assert server["mcp_config"]["command"] == "uv"
    assert server["mcp_config"]["args"] == [
        "run",
        "--directory",
        "${__dirname}",
        "vaultgate",
        "serve",
    ]


def test_user_config_asks_for_the_key_secretly_and_everything_optionally() -> None:
    """With a vault folder the key is needed only for what needs Obsidian, so nothing is
    required: the key or the folder (or both) make a working set-up."""
    config = MANIFEST["user_config"]
    assert config["api_key"] | {"description": ""} == {
        "type": "string",
        "title": "API key",
        "description": "",
        "default": "",
        "required": False,
        "sensitive": True,
    }
    assert config["port"]["type"] == "number"
    assert config["vault"]["type"] == "directory"
    assert not any(v.get("required") for v in config.values())


def test_every_setting_has_a_default_so_a_blank_one_never_reaches_the_server_unexpanded() -> None:
    """mcpb leaves ${user_config.NAME} as it is for a blank setting without a default; an
    empty default expands to an empty variable, which vaultgate reads as unset
    (test_extension_settings.py checks every combination with mcpb itself)."""
    assert [name for name, v in MANIFEST["user_config"].items() if "default" not in v] == []


def test_every_user_setting_reaches_the_server_environment() -> None:
    env = MANIFEST["server"]["mcp_config"]["env"]
    used = {m for value in env.values() for m in re.findall(r"\$\{user_config\.(\w+)\}", value)}
    assert used == set(MANIFEST["user_config"])
    assert env["OBSIDIAN_API_KEY"] == "${user_config.api_key}"
    # every variable is a setting vaultgate knows (an unknown one would warn at every start)
    assert set(env) <= set(KNOWN_SETTINGS)
    for name in env:
        assert f"`{name}`" in README, f"{name} is passed by the extension but not in the README"


def _base_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("OBSIDIAN_", "VAULTGATE_"))}
