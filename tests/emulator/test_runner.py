"""The emulator on real sockets: HTTPS with the generated certificate, and plain HTTP."""

from __future__ import annotations

import socket
import ssl
from functools import partial
from pathlib import Path

import anyio
import httpx
import pytest

from vaultgate.emulator.app import EmulatorConfig
from vaultgate.emulator.runner import (
    generate_api_key,
    run_emulate_command,
    serve_emulator,
    start_emulator,
)
from vaultgate.serving import listen_tcp


def test_https_serves_root_and_certificate_verified_against_the_served_pem(vault: Path) -> None:
    with start_emulator(vault, plugin_version="4.1.7") as emulator:
        assert emulator.https_url is not None
        assert emulator.https_url.startswith("https://127.0.0.1:")
        assert emulator.http_url is None
        trust = ssl.create_default_context(cafile=str(emulator.certificate_path))
        with httpx.Client(base_url=emulator.https_url, verify=trust) as http:
            root = http.get("/", headers={"Authorization": f"Bearer {emulator.api_key}"})
            pem = http.get("/obsidian-local-rest-api.crt")
        written = emulator.certificate_path.read_text(encoding="utf-8")
    assert root.status_code == 200
    assert root.json()["authenticated"] is True
    assert root.json()["versions"]["self"] == "4.1.7"
    assert pem.text == emulator.certificate_pem
    assert written == emulator.certificate_pem


def test_an_unverified_client_is_refused_by_default_trust(vault: Path) -> None:
    with start_emulator(vault) as emulator:
        assert emulator.https_url is not None
        with httpx.Client(base_url=emulator.https_url) as http, pytest.raises(httpx.ConnectError):
            http.get("/")


def test_http_only_shares_state_with_tests(vault: Path) -> None:
    with start_emulator(
        vault, https_port=None, http_port=0, api_key="k", active_file="Welcome.md"
    ) as emulator:
        assert emulator.https_url is None
        assert emulator.http_url is not None
        with httpx.Client(
            base_url=emulator.http_url, headers={"Authorization": "Bearer k"}
        ) as http:
            before = http.get("/active/")
            emulator.state.active_file = "Projects/plan.md"
            after = http.get("/active/")
    assert before.headers["content-location"] == "Welcome.md"
    assert after.headers["content-location"] == "Projects/plan.md"


def test_both_servers_at_once(vault: Path) -> None:
    with start_emulator(vault, https_port=0, http_port=0) as emulator:
        assert emulator.https_url is not None
        assert emulator.http_url is not None
        assert emulator.https_url.rsplit(":", 1)[1] != emulator.http_url.rsplit(":", 1)[1]
        with httpx.Client(base_url=emulator.http_url) as http:
            assert http.get("/").json()["status"] == "OK"


def test_stop_releases_the_port_and_removes_the_certificate(vault: Path) -> None:
    emulator = start_emulator(vault, https_port=None, http_port=0)
    assert emulator.http_url is not None
    emulator.stop()
    assert not emulator.certificate_path.exists()
    with httpx.Client(base_url=emulator.http_url) as http, pytest.raises(httpx.ConnectError):
        http.get("/")


def test_generated_keys_look_like_the_plugins() -> None:
    key = generate_api_key()
    assert len(key) == 64
    assert key == key.lower()
    int(key, 16)


def test_starting_and_stopping_writes_nothing_to_stdout(
    vault: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    with start_emulator(vault, https_port=0, http_port=0) as emulator:
        assert emulator.http_url is not None
        with httpx.Client(base_url=emulator.http_url) as http:
            http.get("/vault/")  # a 401, which uvicorn must not log to stdout either
    assert capfd.readouterr().out == ""


@pytest.mark.anyio
async def test_serve_emulator_runs_in_the_foreground_until_cancelled(vault: Path) -> None:
    ready: list[list[str]] = []
    started = anyio.Event()

    def on_ready(urls: list[str]) -> None:
        ready.append(urls)
        started.set()

    config = EmulatorConfig(vault=vault, api_key="k")
    async with anyio.create_task_group() as group:
        group.start_soon(
            partial(serve_emulator, config, https_port=None, http_port=0, on_ready=on_ready)
        )
        await started.wait()
        (url,) = ready[0]
        async with httpx.AsyncClient(base_url=url) as http:
            response = await http.get("/vault/", headers={"Authorization": "Bearer k"})
        group.cancel_scope.cancel()
    assert response.status_code == 200


def test_the_emulate_command_refuses_a_missing_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_emulate_command(tmp_path / "nope", 0, None, None, "5.1.0", None, False)
    assert code == 2
    assert "is not a folder" in capsys.readouterr().err


def test_listening_sockets_are_tcp_so_asyncio_disables_nagle() -> None:
    # asyncio sets TCP_NODELAY on accepted sockets only when proto is IPPROTO_TCP; with proto 0
    # every keep-alive response waited ~40 ms for a delayed ACK.
    sock = listen_tcp("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
    finally:
        sock.close()
