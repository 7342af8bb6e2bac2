"""The command line: connection flags mean the same before and after the subcommand."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

import pytest

from vaultgate import cli
from vaultgate.config import Settings
from vaultgate.engine.index import VaultIndex
from vaultgate.engine.index.database import default_location

FLAGS = [
    "--host",
    "10.0.0.7",
    "--port",
    "27125",
    "--protocol",
    "http",
    "--timeout",
    "7",
    "--search-timeout",
    "90",
    "--no-verify-ssl",
    "-v",
]


def parsed(argv: list[str]) -> argparse.Namespace:
    return cli._parser().parse_args(argv)


def connection(args: argparse.Namespace) -> dict[str, object]:
    return {flag: getattr(args, flag, None) for flag in cli.CONNECTION_FLAGS}


@pytest.mark.parametrize("command", ["serve", "doctor"])
def test_connection_flags_before_the_subcommand_mean_what_they_mean_after_it(
    command: str,
) -> None:
    before = parsed([*FLAGS, command])
    after = parsed([command, *FLAGS])

    assert before.command == after.command == command
    assert connection(before) == connection(after)
    assert connection(before)["port"] == 27125
    assert connection(before)["no_verify_ssl"] is True


@pytest.mark.parametrize("command", ["serve", "doctor"])
def test_flags_split_around_the_subcommand_are_all_kept(command: str) -> None:
    args = parsed(["--port", "27125", command, "--protocol", "http"])

    assert args.port == 27125
    assert args.protocol == "http"


@pytest.mark.parametrize("command", ["serve", "doctor"])
def test_the_settings_are_the_same_either_way(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OBSIDIAN_API_KEY", "k" * 16)
    argv = ["--port", "27125", "--protocol", "http", "--timeout", "7"]

    before = cli._settings(parsed([*argv, command]))
    after = cli._settings(parsed([command, *argv]))

    assert before.obsidian == after.obsidian
    assert before.obsidian.port == 27125
    assert before.obsidian.protocol == "http"


def test_a_port_before_emulate_is_the_emulators_port() -> None:
    assert parsed(["--port", "27199", "emulate", "--vault", "v"]).port == 27199
    assert parsed(["emulate", "--vault", "v", "--port", "27199"]).port == 27199
    assert getattr(parsed(["emulate", "--vault", "v"]), "port", None) is None  # 27124 applied


@pytest.mark.parametrize(
    ("argv", "refused"),
    [
        pytest.param(["--port", "1", "demo"], "--port", id="demo-port"),
        pytest.param(["--host", "x", "emulate", "--vault", "v"], "--host", id="emulate-host"),
    ],
)
def test_a_flag_a_subcommand_cannot_use_is_refused_before_it_too(
    argv: list[str], refused: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)

    assert exited.value.code == 2
    assert refused in capsys.readouterr().err


def test_the_log_level_setting_is_applied_unless_v_asks_for_debug(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = logging.getLogger()
    monkeypatch.setattr(root, "level", logging.WARNING)
    monkeypatch.setenv("VAULTGATE_LOG_LEVEL", "error")

    cli._settings(parsed(["doctor"]))
    assert root.level == logging.ERROR

    root.setLevel(logging.DEBUG)  # what main() sets for -v
    cli._settings(parsed(["doctor", "-v"]))
    assert root.level == logging.DEBUG


def test_a_key_in_typographic_quotes_starts_with_one_notice_that_never_shows_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    key = "0123abcd" * 8
    monkeypatch.setenv("OBSIDIAN_API_KEY", f"\u201c{key}\u201d")

    settings = cli._settings(parsed(["serve"]))

    assert settings.obsidian.api_key is not None
    assert settings.obsidian.api_key.reveal() == key
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("vaultgate: OBSIDIAN_API_KEY was pasted in typographic quotes")
    assert key not in line


@pytest.mark.parametrize("backend", ["folder", "auto"])
def test_serve_gives_a_folder_vault_with_an_index_a_head_start(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault 100% #1"
    vault.mkdir()
    (vault / "note.md").write_text("a note\n", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    env = {"VAULTGATE_VAULT": str(vault), "VAULTGATE_BACKEND": backend}
    settings = Settings.from_env(env)
    assert cli._head_start(settings) is None  # no index yet: the server builds it

    with VaultIndex(vault) as index:
        index.sync()
    ahead = cli._head_start(settings)
    assert ahead is not None
    try:
        assert ahead.location == default_location(vault.resolve())
        found = ahead.listing()
        assert found is not None
        assert found.files == ["note.md"]
        assert ahead.caught_up()
    finally:
        ahead.close()
    assert cli._head_start(Settings.from_env({**env, "VAULTGATE_BACKEND": "obsidian"})) is None
