"""`vaultgate doctor` against the emulator: each row a real test, each known mistake its fix."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from vaultgate import __version__
from vaultgate.config import ObsidianSettings, Settings
from vaultgate.doctor import Check, render, run_checks
from vaultgate.doctor.certificates import names_cover
from vaultgate.doctor.connection import tcp_check
from vaultgate.doctor.memory import memory_check
from vaultgate.doctor.wsl import wsl_hint
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.emulator.tls import make_self_signed_certificate
from vaultgate.memory import MemoryStore
from vaultgate.memory.migrations import LATEST_VERSION
from vaultgate.obsidian.features import MIN_PLUGIN_VERSION

pytestmark = pytest.mark.anyio

WSL_KERNEL = "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@1c602f52c2e4) #1 SMP"
LINUX_KERNEL = "Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) #45-Ubuntu SMP"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "note.md").write_text("# Note\n", encoding="utf-8")
    return folder


@pytest.fixture
def emulator(vault: Path) -> Iterator[RunningEmulator]:
    with start_emulator(vault, plugin_version="4.1.7", http_port=0) as running:
        yield running


def port_of(url: str | None) -> str:
    assert url is not None
    return url.rsplit(":", 1)[1]


def env_for(emulator: RunningEmulator, **extra: str) -> dict[str, str]:
    return {
        "OBSIDIAN_API_KEY": emulator.api_key,
        "OBSIDIAN_PORT": port_of(emulator.https_url),
        "VAULTGATE_MEMORY_DB": ":memory:",
        **extra,
    }


async def checks_for(env: dict[str, str]) -> dict[str, Check]:
    checks = await run_checks(Settings.from_env(env), proc_version=LINUX_KERNEL)
    return {check.name: check for check in checks}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- a healthy set-up ------------------------------------------------------------------------


def vault_list(tmp_path: Path, *folders: Path) -> str:
    """A stand-in for Obsidian's obsidian.json naming ``folders``."""
    place = tmp_path / "obsidian.json"
    vaults = {
        f"v{n}": {"path": str(folder), "ts": n, "open": True} for n, folder in enumerate(folders)
    }
    place.write_text(json.dumps({"vaults": vaults}), encoding="utf-8")
    return str(place)


async def test_a_healthy_https_setup_passes_every_check(
    emulator: RunningEmulator, vault: Path, tmp_path: Path
) -> None:
    checks = await checks_for(
        env_for(emulator, VAULTGATE_OBSIDIAN_CONFIG=vault_list(tmp_path, vault))
    )

    assert all(check.ok and not check.warning for check in checks.values()), render(
        list(checks.values())
    )
    assert list(checks) == [
        "backend",
        "endpoint",
        "TCP",
        "TLS",
        "request",
        "API key",
        "plugin",
        "features",
        "not in this version",
        "found",
        "memory",
    ]
    assert f"{vault} served from the folder" in checks["found"].detail
    assert "handshake verified" in checks["TLS"].detail
    assert "pinned" in checks["TLS"].detail
    assert "IP:127.0.0.1" in checks["TLS"].detail
    assert "4.1.7" in checks["plugin"].detail
    assert "move" in checks["features"].detail
    assert "dataview_search" in checks["not in this version"].detail


async def test_a_healthy_http_setup_passes_every_check(emulator: RunningEmulator) -> None:
    env = env_for(emulator, OBSIDIAN_PROTOCOL="http", OBSIDIAN_PORT=port_of(emulator.http_url))

    checks = await checks_for(env)

    assert all(check.ok for check in checks.values()), render(list(checks.values()))
    assert "plain http answered" in checks["HTTP"].detail
    assert checks["API key"].ok


async def test_a_vault_list_naming_another_vault_is_a_warning(
    emulator: RunningEmulator, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "elsewhere.md").write_text("elsewhere\n", encoding="utf-8")
    env = env_for(emulator, VAULTGATE_OBSIDIAN_CONFIG=vault_list(tmp_path, other))

    found = (await checks_for(env))["found"]

    assert found.ok
    assert found.warning
    assert "the plugin will answer every call" in found.detail
    assert "VAULTGATE_VAULT" in found.fix


async def test_backend_obsidian_says_no_folder_is_looked_for(
    emulator: RunningEmulator, vault: Path, tmp_path: Path
) -> None:
    env = env_for(
        emulator,
        VAULTGATE_BACKEND="obsidian",
        VAULTGATE_OBSIDIAN_CONFIG=vault_list(tmp_path, vault),
    )

    found = (await checks_for(env))["found"]

    assert found.ok
    assert not found.warning
    assert "no vault folder looked for" in found.detail


# --- the way to Obsidian -----------------------------------------------------------------------


async def test_nothing_listening_fails_tcp_and_says_open_obsidian() -> None:
    checks = await checks_for({"OBSIDIAN_API_KEY": "k", "OBSIDIAN_PORT": str(free_port())})

    assert not checks["TCP"].ok
    assert "connection refused" in checks["TCP"].detail
    assert "Open Obsidian" in checks["TCP"].fix
    assert "WSL" not in checks["TCP"].fix
    assert "request" not in checks  # nothing that needs the connection is tried


def connections_made(listener: socket.socket) -> int:
    """The connections a listener that never accepted has queued (each one made to it)."""
    listener.setblocking(False)
    made = 0
    while True:
        try:
            connection, _ = listener.accept()
        except BlockingIOError:
            return made
        connection.close()
        made += 1


@pytest.mark.parametrize(
    ("extra", "row"),
    [
        pytest.param({}, "TLS", id="https-fetching-the-certificate"),
        pytest.param({"OBSIDIAN_VERIFY_SSL": "false"}, "TLS", id="https-unverified"),
        pytest.param({"OBSIDIAN_PROTOCOL": "http"}, "HTTP", id="http"),
    ],
)
async def test_a_port_that_never_answers_is_waited_on_once(extra: dict[str, str], row: str) -> None:
    with socket.socket() as hung:  # the kernel accepts connections; nobody ever answers
        hung.bind(("127.0.0.1", 0))
        hung.listen(16)
        port = str(hung.getsockname()[1])
        env = {"OBSIDIAN_API_KEY": "k" * 32, "OBSIDIAN_PORT": port, "OBSIDIAN_TIMEOUT": "0.2"}

        checks = await checks_for({**env, **extra})

        waits = connections_made(hung) - 1  # the TCP row's connection waits for nothing
    assert waits == 1
    assert checks["TCP"].ok
    assert not checks[row].ok
    assert "within 0.2 s" in checks[row].detail


async def test_http_sent_to_the_https_port_is_named_as_such(emulator: RunningEmulator) -> None:
    checks = await checks_for(env_for(emulator, OBSIDIAN_PROTOCOL="http"))

    assert checks["TCP"].ok
    assert not checks["HTTP"].ok
    assert "speaks https, not plain http" in checks["HTTP"].detail
    assert "OBSIDIAN_PROTOCOL=https" in checks["HTTP"].fix
    assert "refused" not in render(list(checks.values()))


async def test_https_sent_to_the_http_port_is_named_as_such(emulator: RunningEmulator) -> None:
    checks = await checks_for(env_for(emulator, OBSIDIAN_PORT=port_of(emulator.http_url)))

    assert not checks["TLS"].ok
    assert "speaks plain http, not https" in checks["TLS"].detail
    assert "OBSIDIAN_PROTOCOL=http" in checks["TLS"].fix
    assert "OBSIDIAN_CERT" not in checks["TLS"].fix


async def test_localhost_against_the_plugins_certificate_says_use_127_0_0_1(
    emulator: RunningEmulator,
) -> None:
    checks = await checks_for(env_for(emulator, OBSIDIAN_HOST="localhost"))

    tls = checks["TLS"]
    assert not tls.ok
    assert "names IP:127.0.0.1, not 'localhost'" in tls.detail
    assert (
        "use 127.0.0.1, or add localhost to the plugin's subject alternative names"
        in tls.fix.lower()
    )
    assert "OBSIDIAN_CERT" not in tls.fix


async def test_another_certificate_in_obsidian_cert_says_where_to_get_the_right_one(
    emulator: RunningEmulator, tmp_path: Path
) -> None:
    other = tmp_path / "other.crt"
    other.write_text(make_self_signed_certificate()[0], encoding="utf-8")

    checks = await checks_for(env_for(emulator, OBSIDIAN_CERT=str(other)))

    assert not checks["TLS"].ok
    assert "not trusted" in checks["TLS"].detail
    assert "obsidian-local-rest-api.crt" in checks["TLS"].fix
    assert "unset OBSIDIAN_CERT" in checks["TLS"].fix


async def test_the_plugins_own_certificate_in_obsidian_cert_passes(
    emulator: RunningEmulator,
) -> None:
    env = env_for(emulator, OBSIDIAN_CERT=str(emulator.certificate_path))

    checks = await checks_for(env)

    assert checks["TLS"].ok, checks["TLS"]
    assert "OBSIDIAN_CERT" in checks["TLS"].detail


async def test_turning_verification_off_is_a_warning(emulator: RunningEmulator) -> None:
    checks = await checks_for(env_for(emulator, OBSIDIAN_VERIFY_SSL="false"))

    assert checks["TLS"].ok
    assert checks["TLS"].warning
    assert "verification OFF" in checks["TLS"].detail
    assert checks["API key"].ok


@pytest.mark.parametrize(
    ("names", "host", "covered"),
    [
        pytest.param(["IP:127.0.0.1"], "127.0.0.1", True, id="ip"),
        pytest.param(["IP:127.0.0.1"], "localhost", False, id="localhost-not-named"),
        pytest.param(["IP:127.0.0.1", "DNS:localhost"], "LOCALHOST", True, id="dns-any-case"),
        pytest.param(["DNS:*.lan"], "obsidian.lan", True, id="wildcard"),
        pytest.param(["DNS:*.lan"], "a.obsidian.lan", False, id="wildcard-one-label"),
        pytest.param(["DNS:127.0.0.1"], "127.0.0.1", False, id="ip-only-as-ip"),
    ],
)
def test_certificate_names_are_matched_as_tls_does(
    names: list[str], host: str, covered: bool
) -> None:
    assert names_cover(names, host) is covered


# --- WSL -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("proc_version", "host", "hinted"),
    [
        pytest.param(WSL_KERNEL, "127.0.0.1", True, id="wsl2-loopback"),
        pytest.param("Linux version 4.4.0-19041-Microsoft", "localhost", True, id="wsl1"),
        pytest.param(WSL_KERNEL, "192.168.1.5", False, id="wsl-remote-host"),
        pytest.param(LINUX_KERNEL, "127.0.0.1", False, id="linux"),
        pytest.param("", "127.0.0.1", False, id="no-proc-version"),
    ],
)
def test_wsl_with_a_loopback_host_points_at_the_windows_side(
    proc_version: str, host: str, hinted: bool
) -> None:
    hint = wsl_hint(proc_version, ObsidianSettings(host=host))

    assert bool(hint) is hinted
    if hinted:
        assert "Windows side's address" in hint
        assert "mirrored" in hint


async def test_a_refused_loopback_under_wsl_gets_the_windows_hint() -> None:
    settings = ObsidianSettings(port=free_port())

    check = await tcp_check(settings, WSL_KERNEL)

    assert not check.ok
    assert "WSL" in check.fix
    assert "Open Obsidian" in check.fix


# --- the key ---------------------------------------------------------------------------------


async def test_a_wrong_key_fails_with_where_to_copy_it(emulator: RunningEmulator) -> None:
    checks = await checks_for(env_for(emulator, OBSIDIAN_API_KEY="wrong-key"))

    assert checks["request"].ok
    assert not checks["API key"].ok
    assert "Settings → Local REST API" in checks["API key"].fix
    assert "wrong-key" not in render(list(checks.values()))


async def test_a_missing_key_fails_even_when_obsidian_is_down() -> None:
    checks = await checks_for({"OBSIDIAN_PORT": str(free_port())})

    assert not checks["API key"].ok
    assert "OBSIDIAN_API_KEY" in checks["API key"].fix


async def test_a_key_with_quotes_and_spaces_around_it_is_a_warning_and_works(
    emulator: RunningEmulator,
) -> None:
    checks = await checks_for(env_for(emulator, OBSIDIAN_API_KEY=f'  "{emulator.api_key}"\n'))

    assert checks["settings"].warning
    assert "quotes around it" in checks["settings"].detail
    assert checks["API key"].ok
    assert emulator.api_key not in render(list(checks.values()))


# --- the plugin ------------------------------------------------------------------------------


async def test_a_plugin_older_than_vaultgate_supports_fails(vault: Path) -> None:
    with start_emulator(vault, plugin_version="2.5.0") as old:
        checks = await checks_for(env_for(old))

    assert not checks["plugin"].ok
    assert "2.5.0" in checks["plugin"].detail
    assert f"older than {MIN_PLUGIN_VERSION}" in checks["plugin"].detail
    assert "Community plugins" in checks["plugin"].fix


# --- the memory database ---------------------------------------------------------------------


@pytest.fixture
def unwritable_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder this process cannot write in: read-only permissions, or (as root, whom
    permissions do not stop) a folder under /proc, which refuses everyone."""
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        (folder / "probe").touch()
    except PermissionError:
        yield folder
    else:
        (folder / "probe").unlink()
        if not Path("/proc/self").is_dir():
            pytest.skip("permissions do not stop this user and there is no /proc")
        yield Path("/proc/vaultgate-doctor-test")
    finally:
        folder.chmod(0o700)


def test_a_new_memory_database_in_a_writable_folder_passes_and_is_left_unmade(
    tmp_path: Path,
) -> None:
    path = tmp_path / "data" / "memory.db"

    check = memory_check(str(path))

    assert check.ok, check
    assert "opens, writable" in check.detail
    assert not path.exists()


def test_an_existing_memory_database_shows_its_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    MemoryStore.open(str(path)).close()

    check = memory_check(str(path))

    assert check.ok, check
    assert f"schema version {LATEST_VERSION} of {LATEST_VERSION}" in check.detail


def test_a_memory_database_in_an_unwritable_folder_fails(unwritable_folder: Path) -> None:
    check = memory_check(str(unwritable_folder / "memory.db"))

    assert not check.ok
    assert "VAULTGATE_MEMORY_DB" in check.fix


async def test_the_memory_row_follows_vaultgate_memory_db(
    emulator: RunningEmulator, unwritable_folder: Path
) -> None:
    checks = await checks_for(
        env_for(emulator, VAULTGATE_MEMORY_DB=str(unwritable_folder / "memory.db"))
    )

    assert not checks["memory"].ok
    assert checks["API key"].ok  # the vault side does not depend on it


# --- the command -----------------------------------------------------------------------------


def test_the_command_prints_its_version_and_exits_non_zero_only_on_failure(
    emulator: RunningEmulator,
) -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("OBSIDIAN_", "VAULTGATE_"))}

    def doctor(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "vaultgate", "doctor"],
            env={**base, **env},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    healthy = doctor(env_for(emulator))
    broken = doctor(env_for(emulator, OBSIDIAN_HOST="localhost"))

    assert healthy.returncode == 0, healthy.stdout + healthy.stderr
    assert healthy.stdout.startswith(f"vaultgate {__version__}\n")
    assert "FAIL" not in healthy.stdout
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert broken.stdout.startswith(f"vaultgate {__version__}\n")
    assert "FAIL  TLS" in broken.stdout
    assert emulator.api_key not in healthy.stdout + healthy.stderr + broken.stdout + broken.stderr


# --- a vault folder (VAULTGATE_VAULT) --------------------------------------------------------


async def test_a_folder_backend_checks_the_folder_and_never_asks_obsidian(vault: Path) -> None:
    (vault / ".obsidian").mkdir(exist_ok=True)
    checks = await checks_for(
        {
            "VAULTGATE_VAULT": str(vault),
            "VAULTGATE_BACKEND": "folder",
            "OBSIDIAN_PORT": str(free_port()),
            "VAULTGATE_MEMORY_DB": ":memory:",
        }
    )
    assert list(checks) == ["backend", "vault", "memory"]
    assert checks["backend"].detail.endswith("Obsidian is never asked")
    notes = sum(1 for _ in vault.rglob("*.md") if ".trash" not in _.parts)
    assert checks["vault"].ok
    assert not checks["vault"].warning
    assert f"{notes:,} notes, writable" in checks["vault"].detail


async def test_a_sub_folder_of_the_vault_is_a_warning(vault: Path) -> None:
    (vault / ".obsidian").mkdir()
    (vault / "Projects").mkdir()
    (vault / "Projects" / "plan 100% #1.md").write_text("# Plan\n", encoding="utf-8")
    env = {"VAULTGATE_VAULT": str(vault / "Projects"), "VAULTGATE_BACKEND": "folder"}
    checks = await checks_for(env | {"VAULTGATE_MEMORY_DB": ":memory:"})
    assert checks["vault"].warning
    assert "no .obsidian/ folder" in checks["vault"].detail


async def test_auto_with_obsidian_closed_warns_and_passes(vault: Path) -> None:
    env = {"VAULTGATE_VAULT": str(vault), "OBSIDIAN_PORT": str(free_port())}
    checks = await checks_for(env | {"VAULTGATE_MEMORY_DB": ":memory:"})
    assert checks["backend"].detail.startswith("auto: the vault from")
    assert checks["TCP"].ok
    assert checks["TCP"].warning
    assert "needed only for what needs Obsidian" in checks["TCP"].detail
    assert all(check.ok for check in checks.values())


# --- the doctor writes nothing into the vault (issue 36) -------------------------------------

AGES_AGO = 978_307_200_000_000_000  # 2001-01-01 in ns: any entry made later moves a folder's time


def awkward_vault(root: Path) -> Path:
    """A vault with the names real ones have; every folder's time set back to 2001, so a file
    made and removed in it, however fast, leaves a newer time behind."""
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "app.json").write_text("{}", encoding="utf-8")
    (root / ".trash").mkdir()
    (root / ".trash" / "old.md").write_bytes(b"gone\r\n")
    (root / "Notes").mkdir()
    (root / "Notes" / "plan 100% #1.md").write_bytes("# Plan 🔑\r\n日本語 text\r\n".encode())
    (root / "Cafe\u0301.md").write_text("NFD name\n", encoding="utf-8")
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
        os.utime(folder, ns=(AGES_AGO, AGES_AGO))
    return root


def snapshot(root: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every entry under ``root`` (hidden ones too): its bytes (None for a folder) and, for a
    folder, its modification time (which any entry made or removed in it moves)."""
    entries: dict[str, tuple[bytes | None, int]] = {".": (None, root.stat().st_mtime_ns)}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        entries[name] = (None, path.stat().st_mtime_ns) if path.is_dir() else (path.read_bytes(), 0)
    return entries


@pytest.mark.parametrize(
    ("read_only", "says"),
    [
        pytest.param("false", "writable", id="read-write"),
        pytest.param("true", "read-only (VAULTGATE_READ_ONLY", id="read-only"),
    ],
)
async def test_the_doctor_leaves_every_entry_of_the_vault_as_it_was(
    tmp_path: Path, read_only: str, says: str
) -> None:
    vault = awkward_vault(tmp_path / "vault")
    before = snapshot(vault)

    checks = await checks_for(
        {
            "VAULTGATE_VAULT": str(vault),
            "VAULTGATE_BACKEND": "folder",
            "VAULTGATE_READ_ONLY": read_only,
            "VAULTGATE_MEMORY_DB": ":memory:",
        }
    )

    assert checks["vault"].ok
    assert says in checks["vault"].detail
    assert snapshot(vault) == before


@pytest.fixture
def locked_vault(tmp_path: Path) -> Iterator[Path]:
    """A vault whose folder this process may not write in (read and list only)."""
    vault = awkward_vault(tmp_path / "vault")
    vault.chmod(0o555)
    try:
        if os.access(vault, os.W_OK, effective_ids=os.access in os.supports_effective_ids):
            pytest.skip("permissions do not stop this user (root): no unwritable folder here")
        yield vault
    finally:
        vault.chmod(0o755)


@pytest.mark.parametrize(
    ("read_only", "ok"),
    [pytest.param("false", False, id="read-write"), pytest.param("true", True, id="read-only")],
)
async def test_an_unwritable_vault_fails_unless_read_only_and_is_left_as_it_was(
    locked_vault: Path, read_only: str, ok: bool
) -> None:
    before = snapshot(locked_vault)

    checks = await checks_for(
        {
            "VAULTGATE_VAULT": str(locked_vault),
            "VAULTGATE_BACKEND": "folder",
            "VAULTGATE_READ_ONLY": read_only,
            "VAULTGATE_MEMORY_DB": ":memory:",
        }
    )

    assert checks["vault"].ok is ok
    if not ok:
        assert "VAULTGATE_READ_ONLY=true" in checks["vault"].fix
    assert snapshot(locked_vault) == before
