"""``serve --http`` over real HTTP on 127.0.0.1: refused without the token or from a foreign
Origin, and a working MCP server with the token."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent

from vaultgate.cli import main
from vaultgate.config import Secret, Settings
from vaultgate.emulator.runner import RunningEmulator, start_emulator
from vaultgate.errors import ConfigError
from vaultgate.http_server import (
    MCP_PATH,
    ConnectionLimits,
    ServerThread,
    allowed_origins,
    bind,
    build_http_app,
    is_loopback,
    resolve_token,
)
from vaultgate.server import build_server

FIXTURE_VAULT = Path(__file__).resolve().parents[1] / "fixtures" / "vault"
TOKEN = "test-token-0123456789-abcdefghij"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningEmulator]:
    vault = tmp_path_factory.mktemp("http") / "vault"
    shutil.copytree(FIXTURE_VAULT, vault)
    with start_emulator(vault) as running:
        yield running


@pytest.fixture(scope="module")
def server_url(emulator: RunningEmulator) -> Iterator[str]:
    """vaultgate over Streamable HTTP on a free loopback port, in front of the emulator."""
    assert emulator.https_url is not None
    settings = Settings.from_env(
        {
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
            "OBSIDIAN_CERT": str(emulator.certificate_path),
            "VAULTGATE_TOOLS": "get_server_info,get_vault_file,fetch",
        }
    )
    server = build_server(settings)
    sock = bind("127.0.0.1", 0)
    app = build_http_app(server, host="127.0.0.1", port=sock.getsockname()[1], token=Secret(TOKEN))
    with ServerThread(app, sock) as running:
        yield running.url


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def post_initialize(server_url: str, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(
        f"{server_url}{MCP_PATH}",
        json=INITIALIZE,
        headers={**MCP_HEADERS, **headers},
        timeout=30,
    )


# --- refusals -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({}, id="no-token"),
        pytest.param({"Authorization": "Bearer wrong-token-0123456789"}, id="wrong-token"),
        pytest.param({"Authorization": f"Bearer {TOKEN}x"}, id="token-plus-one"),
        pytest.param({"Authorization": f"Bearer {TOKEN[:-1]}"}, id="token-prefix"),
        pytest.param({"Authorization": "Bearer"}, id="scheme-only"),
        pytest.param({"Authorization": TOKEN}, id="no-scheme"),
        pytest.param({"Authorization": f"Basic {TOKEN}"}, id="basic-scheme"),
    ],
)
def test_a_request_without_the_right_bearer_token_gets_401(
    server_url: str, headers: dict[str, str]
) -> None:
    response = post_initialize(server_url, headers)

    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert TOKEN not in response.text


def test_every_path_needs_the_token(server_url: str) -> None:
    for path in ("/", "/mcp/", "/anything", "/.well-known/oauth-protected-resource"):
        assert httpx.get(f"{server_url}{path}", timeout=30).status_code == 401


@pytest.mark.parametrize(
    "origin",
    [
        pytest.param("https://evil.example", id="foreign-site"),
        pytest.param("http://evil.example:{port}", id="dns-rebinding-same-port"),
        pytest.param("http://127.0.0.1:1", id="loopback-other-port"),
        pytest.param("http://localhost", id="loopback-no-port"),
        pytest.param("null", id="opaque-origin"),
    ],
)
@pytest.mark.parametrize("with_token", [True, False], ids=["with-token", "without-token"])
def test_a_foreign_origin_gets_403_with_or_without_the_token(
    server_url: str, origin: str, with_token: bool
) -> None:
    headers = {"Origin": origin.format(port=port_of(server_url))}
    if with_token:
        headers["Authorization"] = f"Bearer {TOKEN}"

    assert post_initialize(server_url, headers).status_code == 403


def test_a_rebound_host_name_gets_421_even_with_the_token(server_url: str) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}", "Host": f"evil.example:{port_of(server_url)}"}

    assert post_initialize(server_url, headers).status_code == 421


# --- what is let through --------------------------------------------------------------------


@pytest.mark.parametrize(
    "origin",
    [None, "http://127.0.0.1:{port}", "http://localhost:{port}", "http://[::1]:{port}"],
    ids=["no-origin", "127.0.0.1", "localhost", "[::1]"],
)
def test_the_token_with_no_or_a_local_origin_is_served(server_url: str, origin: str | None) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if origin is not None:
        headers["Origin"] = origin.format(port=port_of(server_url))

    response = post_initialize(server_url, headers)

    assert response.status_code == 200, response.text
    assert '"serverInfo"' in response.text


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_sdk_client_with_the_token_lists_tools_and_calls_one(
    server_url: str, mode: str
) -> None:
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {TOKEN}"}, timeout=httpx2.Timeout(30, read=300)
    )
    async with (
        http,
        Client(streamable_http_client(f"{server_url}{MCP_PATH}", http_client=http), mode=mode) as c,
    ):
        names = {tool.name for tool in (await c.list_tools()).tools}
        result = await c.call_tool("get_server_info", {})

    assert names == {"get_server_info", "get_vault_file", "fetch"}
    assert not result.is_error
    block = result.content[0]
    assert isinstance(block, TextContent)
    info = json.loads(block.text)
    assert info["authenticated"] is True
    assert info["plugin"] == "5.1.0"


# --- start-up rules -------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "myhost.lan"])
def test_a_non_loopback_bind_without_a_configured_token_is_refused(host: str) -> None:
    with pytest.raises(ConfigError, match="VAULTGATE_HTTP_TOKEN"):
        resolve_token(host, None)


def test_a_non_loopback_bind_with_a_configured_token_uses_it() -> None:
    assert resolve_token("0.0.0.0", Secret(TOKEN)) == (Secret(TOKEN), False)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_a_loopback_bind_without_a_token_generates_a_long_random_one(host: str) -> None:
    first, generated = resolve_token(host, None)
    second, _ = resolve_token(host, None)

    assert generated is True
    assert len(first.reveal()) >= 32
    assert first != second


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("localhost", True), ("::1", True), ("[::1]", True), ("0.0.0.0", False)],
)
def test_loopback_hosts_are_recognised(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_allowed_origins_are_the_local_names_on_the_servers_port_and_the_bound_address() -> None:
    assert allowed_origins("127.0.0.1", 8765) == {
        f"{scheme}://{name}:8765"
        for scheme in ("http", "https")
        for name in ("127.0.0.1", "localhost", "[::1]")
    }
    assert "http://192.168.1.5:9000" in allowed_origins("192.168.1.5", 9000)
    assert not any("0.0.0.0" in origin for origin in allowed_origins("0.0.0.0", 9000))


def test_serve_http_on_a_public_address_without_a_token_stops_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OBSIDIAN_API_KEY", "k")

    status = main(["serve", "--http", "--host", "0.0.0.0", "--port", "0"])

    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith("vaultgate: Refusing to listen on 0.0.0.0 without")


def test_the_http_token_comes_from_the_environment_and_must_be_long() -> None:
    settings = Settings.from_env({"VAULTGATE_HTTP_TOKEN": TOKEN})
    assert settings.http.token == Secret(TOKEN)
    assert Settings.from_env({}).http.token is None
    with pytest.raises(ConfigError, match="too short") as refused:
        Settings.from_env({"VAULTGATE_HTTP_TOKEN": "short-secret"})
    assert "short-secret" not in str(refused.value)


# --- clients that never finish a request ----------------------------------------------------

HALF_OPEN = 300
SMALL_LIMITS = ConnectionLimits(header_timeout=1.0, max_connections=64)


@pytest.fixture
def guarded_url(emulator: RunningEmulator) -> Iterator[str]:
    """A server with a short header deadline and a small connection cap, to test them fast."""
    assert emulator.https_url is not None
    settings = Settings.from_env(
        {
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
            "OBSIDIAN_CERT": str(emulator.certificate_path),
            "VAULTGATE_TOOLS": "get_server_info",
        }
    )
    sock = bind("127.0.0.1", 0)
    app = build_http_app(
        build_server(settings), host="127.0.0.1", port=sock.getsockname()[1], token=Secret(TOKEN)
    )
    with ServerThread(app, sock, SMALL_LIMITS) as running:
        yield running.url


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes ``sock`` before ``within`` seconds pass (read to the end)."""
    deadline = time.monotonic() + within
    try:
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            if sock.recv(4096) == b"":
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        pass
    return False


def test_hundreds_of_half_sent_requests_neither_starve_a_client_nor_stay_open(
    guarded_url: str,
) -> None:
    host, port = "127.0.0.1", port_of(guarded_url)
    stalled: list[socket.socket] = []
    try:
        for _ in range(HALF_OPEN):
            sock = socket.create_connection((host, port), timeout=30)
            sock.sendall(b"POST /mc")  # half a request line, then nothing
            stalled.append(sock)

        answer = post_initialize(guarded_url, {"Authorization": f"Bearer {TOKEN}"})

        assert answer.status_code == 200, answer.text
        # Generous bounds: a slow machine may take long, but the server must close them all.
        deadline = time.monotonic() + 60
        still_open = [
            sock
            for sock in stalled
            if not closed_by_server(sock, max(0.1, deadline - time.monotonic()))
        ]
        assert still_open == []
    finally:
        for sock in stalled:
            sock.close()


def test_a_request_trickled_byte_by_byte_is_cut_at_the_header_deadline(guarded_url: str) -> None:
    with socket.create_connection(("127.0.0.1", port_of(guarded_url)), timeout=30) as sock:
        request = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Slow: " + b"a" * 4000
        cut = False
        started = time.monotonic()
        for byte in request:  # one byte per 50 ms: about 200 s if never cut
            try:
                sock.sendall(bytes([byte]))
            except (ConnectionResetError, BrokenPipeError):
                cut = True
                break
            sock.settimeout(0.05)
            try:
                if sock.recv(1024) == b"":
                    cut = True
                    break
            except TimeoutError:
                continue
            except ConnectionResetError:
                cut = True
                break
        elapsed = time.monotonic() - started

    assert cut
    assert elapsed < 100  # long before the whole header could have been sent


def test_a_refused_request_does_not_keep_its_connection(server_url: str) -> None:
    with socket.create_connection(("127.0.0.1", port_of(server_url)), timeout=30) as sock:
        sock.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: 1000000\r\n\r\n{"
            % port_of(server_url)
        )
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk

        assert answer.startswith(b"HTTP/1.1 401")
        assert b"connection: close" in answer.lower()
        assert closed_by_server(sock, 30)


# --- a flood from one address ---------------------------------------------------------------

FLOOD_LIMITS = ConnectionLimits(header_timeout=60.0, max_connections=64, max_waiting_per_address=16)
FLOOD = 150  # half-sent connections from one address: well over both caps


@pytest.fixture
def flood_url(emulator: RunningEmulator) -> Iterator[str]:
    """A server with small caps and a header deadline long enough never to act here."""
    assert emulator.https_url is not None
    settings = Settings.from_env(
        {
            "OBSIDIAN_API_KEY": emulator.api_key,
            "OBSIDIAN_PORT": emulator.https_url.rsplit(":", 1)[1],
            "OBSIDIAN_CERT": str(emulator.certificate_path),
            "VAULTGATE_TOOLS": "get_server_info",
        }
    )
    sock = bind("127.0.0.1", 0)
    app = build_http_app(
        build_server(settings), host="127.0.0.1", port=sock.getsockname()[1], token=Secret(TOKEN)
    )
    with ServerThread(app, sock, FLOOD_LIMITS) as running:
        yield running.url


def connect_from(address: str, url: str) -> socket.socket:
    """A connection to ``url`` from the loopback ``address`` (127.x.y.z: Linux routes them all
    to this machine; elsewhere the test is skipped)."""
    try:
        return socket.create_connection(
            ("127.0.0.1", port_of(url)), timeout=30, source_address=(address, 0)
        )
    except OSError as exc:
        pytest.skip(f"cannot connect from {address} here ({exc})")


def authorized_initialize(url: str) -> bytes:
    body = json.dumps(INITIALIZE).encode()
    return (
        f"POST {MCP_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port_of(url)}\r\n"
        f"Authorization: Bearer {TOKEN}\r\nAccept: {MCP_HEADERS['Accept']}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode() + body


def answer_to(sock: socket.socket, rest: bytes) -> bytes:
    """Send the rest of a request and read the answer's status line (b"" if cut)."""
    try:
        sock.sendall(rest)
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    except (ConnectionResetError, BrokenPipeError):
        return b""
    return answer.split(b"\r\n", 1)[0]


def count_closed(socks: list[socket.socket], *, at_least: int, within: float) -> int:
    """How many of ``socks`` the server has closed, looking again until ``at_least`` are or
    ``within`` seconds pass (so a slow machine only makes this slower, never wrong)."""
    closed: set[int] = set()
    deadline = time.monotonic() + within
    while len(closed) < at_least and time.monotonic() < deadline:
        for index, sock in enumerate(socks):
            if index in closed:
                continue
            sock.setblocking(False)
            try:
                if sock.recv(4096) == b"":
                    closed.add(index)
            except (BlockingIOError, InterruptedError):
                pass
            except (ConnectionResetError, BrokenPipeError):
                closed.add(index)
        time.sleep(0.05)
    return len(closed)


def all_accepted(url: str, address: str) -> None:
    """Return once the server has taken every connection made before this call: it accepts
    in order, so one answered request from ``address`` comes after all of them."""
    with connect_from(address, url) as probe:
        assert answer_to(probe, authorized_initialize(url)) == b"HTTP/1.1 200 OK"


@pytest.mark.parametrize(
    "flooders",
    [
        pytest.param(["127.0.0.1"], id="one-address"),
        pytest.param([f"127.0.0.{n}" for n in range(10, 20)], id="ten-addresses"),
    ],
)
def test_a_half_sent_request_from_another_address_outlives_a_flood(
    flood_url: str, flooders: list[str]
) -> None:
    request = authorized_initialize(flood_url)
    flood: list[socket.socket] = []
    with connect_from("127.0.0.2", flood_url) as client:
        client.sendall(request[:40])  # the client is slow: half its headers, then the flood
        try:
            for n in range(FLOOD):
                flood.append(connect_from(flooders[n % len(flooders)], flood_url))
                flood[-1].sendall(b"POST /mc")
            all_accepted(flood_url, "127.0.0.3")

            assert answer_to(client, request[40:]) == b"HTTP/1.1 200 OK"
            # the flood closed only its own: each address keeps at most 16 connections, and
            # all together (with the client and the probe) stay within 64
            kept = min(16 * len(flooders), FLOOD_LIMITS.max_connections - 2)
            assert count_closed(flood, at_least=FLOOD - kept, within=30) >= FLOOD - kept
        finally:
            for sock in flood:
                sock.close()


# --- a churn of half-sent connections from the clients' own address --------------------------

CHURN_OPEN = 100  # half-sent connections the churn keeps open at once, all from 127.0.0.1


# The churn runs in a process of its own, as the attack does: in the test's process it would
# share the interpreter lock with the server's thread and only slow both down.
CHURN_SCRIPT = """
import collections, signal, socket, sys, time
port, first_bytes, held = int(sys.argv[1]), bytes.fromhex(sys.argv[2]), int(sys.argv[3])
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
live, opened, ready_by = collections.deque(), 0, time.monotonic() + 30
while not stop:
    if len(live) >= held:
        live.popleft().close()
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(first_bytes)
    except OSError:
        continue  # refused or reset under load: the churn goes on
    live.append(sock)
    opened += 1
    if ready_by and (opened >= 2 * held or time.monotonic() > ready_by):
        ready_by = 0
        print("churning", flush=True)  # it has closed its first connections: under way
print(opened, flush=True)
"""


class Churn:
    """Connections from 127.0.0.1 that send ``first_bytes`` and wait: once CHURN_OPEN are
    open, each new one follows the close of the oldest, as fast as the machine allows (the
    attack of issue 36: tens of thousands opened in a minute)."""

    def __init__(self, url: str, first_bytes: bytes) -> None:
        self._arguments = [str(port_of(url)), first_bytes.hex(), str(CHURN_OPEN)]
        self.opened = "?"

    def __enter__(self) -> Churn:
        self._process = subprocess.Popen(
            [sys.executable, "-c", CHURN_SCRIPT, *self._arguments],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        self._process.stdout.readline()  # "churning", at most 30 s after its start
        return self

    def __exit__(self, *exc: object) -> None:
        self._process.terminate()
        out, _ = self._process.communicate(timeout=60)
        self.opened = out.strip() or "?"


@pytest.mark.parametrize(
    "first_bytes",
    [pytest.param(b"POST /mc", id="half-a-request-line"), pytest.param(b"", id="nothing")],
)
def test_a_churn_of_half_sent_requests_from_the_same_address_starves_no_client(
    server_url: str, first_bytes: bytes
) -> None:
    served = []
    with Churn(server_url, first_bytes) as churn:
        for _ in range(6):
            try:
                answer = post_initialize(server_url, {"Authorization": f"Bearer {TOKEN}"})
            except httpx.TransportError as exc:
                served.append(repr(exc))
            else:
                served.append(answer.status_code)

    assert served == [200] * 6, f"{served} while the churn opened {churn.opened} connections"
