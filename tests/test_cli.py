"""The command line: one grammar, every option the same before and after the command."""

from __future__ import annotations

import argparse
import logging
import re
from pathlib import Path

import pytest

from vaultgate import __version__, cli
from vaultgate.config import Settings
from vaultgate.engine.index import VaultIndex
from vaultgate.engine.index.database import default_location

COMMANDS = ["serve", "emulate", "demo", "doctor"]
CONNECTING = ("serve", "doctor")
EVERY = tuple(COMMANDS)

# The grammar, stated here apart from cli.FLAGS: each option as a user writes it, the value
# it gives, and the commands that take it (every other command refuses it).
OPTIONS = [
    pytest.param(["--host", "10.0.0.7"], "host", "10.0.0.7", CONNECTING, id="host"),
    pytest.param(["--port", "27125"], "port", 27125, ("serve", "emulate", "doctor"), id="port"),
    pytest.param(["--protocol", "http"], "protocol", "http", CONNECTING, id="protocol"),
    pytest.param(["--cert", "plugin.pem"], "cert", "plugin.pem", CONNECTING, id="cert"),
    pytest.param(["--no-verify-ssl"], "no_verify_ssl", True, CONNECTING, id="no-verify-ssl"),
    pytest.param(["--timeout", "7"], "timeout", 7.0, CONNECTING, id="timeout"),
    pytest.param(["--search-timeout", "90"], "search_timeout", 90.0, CONNECTING, id="search-t"),
    pytest.param(["--vault", "notes"], "vault", "notes", EVERY, id="vault"),
    pytest.param(["--http"], "http", True, ("serve",), id="http"),
    pytest.param(["--http-port", "27123"], "http_port", 27123, ("emulate",), id="http-port"),
    pytest.param(["--api-key", "k" * 16], "api_key", "k" * 16, ("emulate",), id="api-key"),
    pytest.param(["--plugin-version", "4.1.7"], "plugin_version", "4.1.7", ("emulate",), id="pv"),
    pytest.param(["--active", "Daily/x.md"], "active", "Daily/x.md", ("emulate",), id="active"),
    pytest.param(["--extensions"], "extensions", True, ("emulate",), id="extensions"),
    pytest.param(["-v"], "verbose", True, EVERY, id="v"),
    pytest.param(["--verbose"], "verbose", True, EVERY, id="verbose"),
]


def outcome(argv: list[str], capsys: pytest.CaptureFixture[str]) -> argparse.Namespace | str:
    """The parsed arguments, or what the refusal said on stderr (exit status 2)."""
    try:
        return cli.parse(argv)
    except SystemExit as exited:
        code = exited.code
    assert code == 2
    return capsys.readouterr().err


def with_vault(command: str, option: list[str]) -> list[str]:
    """What ``command`` needs besides ``option``: emulate needs a folder."""
    return ["--vault", "v"] if command == "emulate" and option[0] != "--vault" else []


def test_the_table_states_every_option_of_the_grammar() -> None:
    stated = {(param.values[0][0], param.values[3]) for param in OPTIONS}  # type: ignore[index]

    assert stated == {(name, flag.commands) for flag in cli.FLAGS for name in flag.names}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(("option", "dest", "value", "takers"), OPTIONS)
def test_an_option_means_the_same_before_and_after_the_command_or_is_refused_alike(
    option: list[str],
    dest: str,
    value: object,
    takers: tuple[str, ...],
    command: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rest = with_vault(command, option)
    before = outcome([*option, command, *rest], capsys)
    after = outcome([command, *rest, *option], capsys)

    if command in takers:
        assert isinstance(before, argparse.Namespace), before
        assert isinstance(after, argparse.Namespace), after
        assert before.command == after.command == command
        assert getattr(before, dest) == getattr(after, dest) == value
    else:
        assert before == after  # word for word, usage line included
        assert isinstance(before, str)
        assert f"{option[0]} is an option of " in before
        assert f"not of {command}\n" in before


@pytest.mark.parametrize(("option", "dest", "value", "takers"), OPTIONS)
def test_an_option_without_a_command_is_an_option_of_serve(
    option: list[str],
    dest: str,
    value: object,
    takers: tuple[str, ...],
    capsys: pytest.CaptureFixture[str],
) -> None:
    alone = outcome(option, capsys)
    served = outcome(["serve", *option], capsys)

    if "serve" in takers:
        assert isinstance(alone, argparse.Namespace), alone
        assert alone.command == "serve"
        assert getattr(alone, dest) == getattr(served, dest) == value
    else:
        assert alone == served
        assert "not of serve" in str(alone)


@pytest.mark.parametrize("argv", [["--port", "0", "demo"], ["demo", "--timeout", "0"]])
def test_a_zero_is_an_option_given(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert "not of demo" in str(outcome(argv, capsys))


def test_vault_with_no_command_serves_that_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "no such vault")

    alone = cli.main(["--vault", missing])  # a client config's "args": ["--vault", ...]
    alone_said = capsys.readouterr().err
    served = cli.main(["serve", "--vault", missing])

    assert alone == served == 2
    assert alone_said == capsys.readouterr().err
    assert "VAULTGATE_VAULT" in alone_said
    assert "invalid choice" not in alone_said


def test_vault_with_no_command_reaches_the_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OBSIDIAN_API_KEY", "k" * 16)

    settings = cli._settings(cli.parse(["--vault", str(tmp_path)]))

    assert settings.vault.folder == tmp_path.resolve()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_commands_help_lists_exactly_the_options_it_takes(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        cli.parse([command, "--help"])
    shown = capsys.readouterr().out

    for flag in cli.FLAGS:
        for name in flag.names:
            listed = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", shown) is not None
            assert listed == (command in flag.commands), (command, name)


def test_the_overall_help_lists_every_option_with_the_commands_that_take_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        cli.parse(["--help"])
    shown = " ".join(capsys.readouterr().out.split())

    for flag in cli.FLAGS:
        assert f"[{', '.join(flag.commands)}]" in shown
        for name in flag.names:
            assert name in shown
    assert "vaultgate --vault DIR` is `vaultgate serve --vault DIR" in shown


@pytest.mark.parametrize("command", COMMANDS)
def test_version_answers_before_and_after_the_command(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    said = []
    for argv in (["--version", command], [command, "--version"]):
        with pytest.raises(SystemExit) as exited:
            cli.parse(argv)
        assert exited.value.code == 0
        said.append(capsys.readouterr().out)

    assert said[0] == said[1] == f"vaultgate {__version__}\n"


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["--ext", "emulate", "--vault", "v"], id="before"),
        pytest.param(["emulate", "--vault", "v", "--ext"], id="after"),
        pytest.param(["--no-verify", "doctor"], id="doctor-before"),
        pytest.param(["doctor", "--no-verify"], id="doctor-after"),
    ],
)
def test_an_abbreviated_option_is_refused_wherever_it_stands(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    said = outcome(argv, capsys)

    assert isinstance(said, str)
    assert "unrecognized arguments" in said


def test_emulate_needs_a_vault_given_before_or_after_it(capsys: pytest.CaptureFixture[str]) -> None:
    refused = outcome(["emulate"], capsys)

    assert isinstance(refused, str)
    assert "emulate needs --vault DIR" in refused
    assert cli.parse(["--vault", "v", "emulate"]).vault == "v"
    assert cli.parse(["emulate", "--vault", "v"]).vault == "v"


@pytest.mark.parametrize("command", ["serve", "doctor"])
def test_the_settings_are_the_same_either_way(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OBSIDIAN_API_KEY", "k" * 16)
    argv = ["--port", "27125", "--protocol", "http", "--timeout", "7"]

    before = cli._settings(cli.parse([*argv, command]))
    after = cli._settings(cli.parse([command, *argv]))

    assert before.obsidian == after.obsidian
    assert before.obsidian.port == 27125
    assert before.obsidian.protocol == "http"


@pytest.mark.parametrize("command", ["serve", "doctor"])
def test_flags_split_around_the_command_are_all_kept(command: str) -> None:
    args = cli.parse(["--port", "27125", command, "--protocol", "http", "--vault", "v"])

    assert (args.port, args.protocol, args.vault) == (27125, "http", "v")


def test_a_port_before_emulate_is_the_emulators_port() -> None:
    assert cli.parse(["--port", "27199", "emulate", "--vault", "v"]).port == 27199
    assert cli.parse(["emulate", "--vault", "v", "--port", "27199"]).port == 27199
    assert cli.parse(["emulate", "--vault", "v"]).port is None  # 27124 applied


def test_the_log_level_setting_is_applied_unless_v_asks_for_debug(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = logging.getLogger()
    monkeypatch.setattr(root, "level", logging.WARNING)
    monkeypatch.setenv("VAULTGATE_LOG_LEVEL", "error")

    cli._settings(cli.parse(["doctor"]))
    assert root.level == logging.ERROR

    root.setLevel(logging.DEBUG)  # what main() sets for -v
    cli._settings(cli.parse(["doctor", "-v"]))
    assert root.level == logging.DEBUG


def test_a_key_in_typographic_quotes_starts_with_one_notice_that_never_shows_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    key = "0123abcd" * 8
    monkeypatch.setenv("OBSIDIAN_API_KEY", f"\u201c{key}\u201d")

    settings = cli._settings(cli.parse(["serve"]))

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


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        pytest.param(
            ["serve", "--http", "--port", "70000"],
            "vaultgate serve: error: argument --port: 70000 is not a port: ports are 0 to 65535",
            id="port-out-of-range",
        ),
        pytest.param(
            ["--protocol", "ftp"],
            "vaultgate: error: argument --protocol: invalid choice: 'ftp'",  # Python words the rest
            id="not-a-choice",
        ),
    ],
)
def test_a_bad_option_value_is_one_line_not_a_usage_block(
    capsys: pytest.CaptureFixture[str], argv: list[str], line: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.parse(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(line)
    assert err.count("\n") == 1
    assert err.endswith("\n")


def test_a_command_line_of_the_wrong_shape_keeps_the_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        cli.parse(["serve", "--port"])
    err = capsys.readouterr().err
    assert err.startswith("usage: vaultgate serve")
    assert err.endswith("error: argument --port: expected one argument\n")
