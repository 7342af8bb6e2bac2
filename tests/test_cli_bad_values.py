"""Every command, given a bad value for each option or setting it reads, ends with a short
error on stderr and a non-zero exit status: never a traceback, never a hang.

Each case runs ``python -m vaultgate`` in a child, as a user's shell or MCP host would, with
stdin closed (a server that wrongly started would end at once with status 0, and fail here)
and a bounded time."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vaultgate import cli

SECONDS = 60  # generous: a child imports the server on a loaded machine

NO_HOME = "~nosuchuser-vaultgate/x"
A_FILE = "/etc/hostname" if Path("/etc/hostname").is_file() else __file__

# (command line, environment): one bad value each; every option and setting a command reads.
SERVE_SETTINGS = {
    "OBSIDIAN_API_KEY": "key with\ta tab and a newline\n inside",
    "OBSIDIAN_HOST": "http://127.0.0.1:27124/",
    "OBSIDIAN_PORT": "99999",
    "OBSIDIAN_PROTOCOL": "ftp",
    "OBSIDIAN_CERT": NO_HOME,
    "OBSIDIAN_VERIFY_SSL": "perhaps",
    "OBSIDIAN_TIMEOUT": "-1",
    "OBSIDIAN_SEARCH_TIMEOUT": "nan",
    "VAULTGATE_VAULT": NO_HOME,
    "VAULTGATE_BACKEND": "cloud",
    "VAULTGATE_FOLLOW_LINKS": "some",
    "VAULTGATE_ALLOW": "Notes\\*.md",
    "VAULTGATE_DENY": "/etc",
    "VAULTGATE_FETCH_ALLOW_PRIVATE": "perhaps",
    "VAULTGATE_HTTP_TOKEN": "short",
    "VAULTGATE_LOG_LEVEL": "loud",
    "VAULTGATE_MEMORY_DB": NO_HOME + "/memory.db",
    "VAULTGATE_PROMPTS_FOLDER": "../Prompts",
    "VAULTGATE_READ_ONLY": "perhaps",
    "VAULTGATE_SDD_FOLDER": "/abs/sdd",
    "VAULTGATE_TOOLS": "everything",
}
MORE_SETTINGS = [
    ("VAULTGATE_VAULT", A_FILE),
    ("VAULTGATE_VAULT", "/nonexistent/vaultgate-vault"),
    ("OBSIDIAN_CERT", A_FILE + "/cert.pem"),
    ("OBSIDIAN_PORT", "port"),
    ("OBSIDIAN_TIMEOUT", "inf"),
    ("VAULTGATE_MEMORY_DB", A_FILE + "/memory.db"),
]
CONNECTING_FLAGS = [
    ["--host", "bad host name"],
    ["--port", "0"],
    ["--port", "65536"],
    ["--port", "many"],
    ["--protocol", "ftp"],
    ["--cert", NO_HOME],
    ["--cert", "/nonexistent/plugin.pem"],
    ["--timeout", "-5"],
    ["--timeout", "soon"],
    ["--search-timeout", "0"],
    ["--vault", NO_HOME],
    ["--vault", A_FILE],
    ["--no-verify-ssl", "--protocol", "ftp"],
    ["-v", "--vault", NO_HOME],
]
CASES = [
    *(
        pytest.param(["serve"], {name: value}, id=f"serve-{name}={value[:20]}")
        for name, value in [*SERVE_SETTINGS.items(), *MORE_SETTINGS]
    ),
    *(
        pytest.param(["serve", *flags], {}, id=f"serve{' '.join(flags)}")
        for flags in CONNECTING_FLAGS
    ),
    # the doctor reads the same settings the same way (Settings.from_env): a sample
    *(
        pytest.param(["doctor"], {name: value}, id=f"doctor-{name}={value[:20]}")
        for name, value in [
            ("VAULTGATE_VAULT", NO_HOME),
            ("OBSIDIAN_CERT", NO_HOME),
            ("VAULTGATE_MEMORY_DB", NO_HOME),
            ("OBSIDIAN_PORT", "99999"),
        ]
    ),
    *(
        pytest.param(["doctor", *flags], {}, id=f"doctor{' '.join(flags)}")
        for flags in (["--vault", A_FILE], ["--cert", NO_HOME], ["--timeout", "-5"])
    ),
    pytest.param(["serve", "--http", "--port", "65536"], {}, id="serve-http-port"),
    pytest.param(["serve", "--http", "--host", "no such host."], {}, id="serve-http-host"),
    pytest.param(["serve", "--http", "--port", "-1"], {}, id="serve-http-negative-port"),
    pytest.param(["--vault", NO_HOME], {}, id="no-command-vault"),
    pytest.param(["nosuchcommand"], {}, id="unknown-command"),
    pytest.param(["demo", "--vault", A_FILE], {}, id="demo-vault-file"),
    pytest.param(["demo", "--vault", NO_HOME], {}, id="demo-vault-no-home"),
    pytest.param(["demo", "--vault", "/nonexistent/vault"], {}, id="demo-vault-missing"),
    pytest.param(["demo", "--port", "1"], {}, id="demo-refuses-port"),
    pytest.param(["emulate"], {}, id="emulate-no-vault"),
    pytest.param(["emulate", "--vault", A_FILE], {}, id="emulate-vault-file"),
    pytest.param(["emulate", "--vault", NO_HOME], {}, id="emulate-vault-no-home"),
    pytest.param(["emulate", "--vault", ".", "--port", "65536"], {}, id="emulate-port"),
    pytest.param(["emulate", "--vault", ".", "--port", "-1"], {}, id="emulate-negative-port"),
    pytest.param(["emulate", "--vault", ".", "--http-port", "70000"], {}, id="emulate-http-port"),
    pytest.param(
        ["emulate", "--vault", ".", "--plugin-version", "banana"], {}, id="emulate-version"
    ),
    pytest.param(["emulate", "--vault", ".", "--active", "../x.md"], {}, id="emulate-active"),
]


def test_every_command_is_covered() -> None:
    covered = {case.values[0][0] for case in CASES if case.values[0][0] in cli.COMMANDS}
    assert covered == set(cli.COMMANDS)


@pytest.mark.parametrize(("argv", "settings"), CASES)
def test_a_bad_value_ends_in_a_short_error_not_a_traceback(
    tmp_path: Path, argv: list[str], settings: dict[str, str]
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OBSIDIAN_", "VAULTGATE_"))}
    env |= {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), **settings}
    env["PYTHONPATH"] = str(Path(cli.__file__).parents[1])

    run = subprocess.run(
        [sys.executable, "-m", "vaultgate", *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=SECONDS,
        env=env,
        cwd=tmp_path,
    )

    stderr = run.stderr.strip()
    assert run.returncode != 0, stderr[-2000:]
    assert "Traceback" not in stderr + run.stdout, stderr[-2000:]
    if argv[0] == "doctor" and run.stdout:
        return  # the doctor's report, on stdout, says what failed
    assert run.stdout == ""
    last = stderr.splitlines()[-1]
    assert last.startswith("vaultgate"), stderr[-2000:]
    assert "unexpected" not in last, last  # a known mistake has its own message
    if "error:" not in last:  # argparse's usage lines come before its error line
        assert len(stderr.splitlines()) <= 2, stderr  # a notice, at most, before the error
