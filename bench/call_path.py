"""Benchmark: what one tool call costs over stdio next to a GET of the same note, and how fast
the server starts. Two targets of issue 11, each measured side by side with its baselines:

- **A note read over stdio**: ``vaultgate serve`` as a subprocess over stdio, as an MCP host runs
  it, reads a typical note with ``vault(operation="read")`` (the default tool profile). Beside it,
  in the same rounds: a keep-alive GET of the same note with ``httpx.AsyncClient`` (what a
  client that talks to the plugin directly pays; the baseline of the issue's "2.65–2.74×"), a GET
  on a bare kept-alive socket (the floor: the server's work and the loopback round trip), and an
  MCP server that does nothing but answer the note's text from memory (the SDK's own cost:
  JSON-RPC over stdio, dispatch, argument validation), served by the SDK's stdio transport and,
  as a prototype, on the event loop. Each round measures them alternating (one call of each
  kind after the other: every process idle for a moment before each call, as between the calls
  of a conversation) and in blocks (each kind's calls back to back: warm). Target: at most 2.0
  times the httpx GET.
- **Start → initialize**: from starting ``vaultgate serve`` until its answer to ``initialize``
  has been read, next to ``python -c pass`` and a process that only imports the SDK's server
  (``mcp.server.mcpserver``), which no MCP server on this SDK can avoid. Target: at most 0.6 s.

    python bench/call_path.py             # about 4 minutes on 2 cores; writes docs/benchmarks.md
    python bench/call_path.py --quick     # fewer rounds; the report goes to bench/.cache/
    python bench/call_path.py --compare /path/to/other/venv/bin/python   # adds a "before" row

Each figure is the minimum and the median of its rounds (a round's figure is the median of its
calls): the machine is shared, and the minimum is the figure least disturbed by other work.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import os
import platform
import re
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal
from urllib.parse import quote

import httpx

from generate_vault import CACHE_DIR, generate
from report import write_section

QUICK_REPORT = CACHE_DIR / "benchmarks-call-path-quick.md"
API_KEY = "c0ffee" * 10 + "beef"  # 64 hex characters, as the plugin's keys
CALL_TARGET = 2.0  # a note read over stdio, in keep-alive httpx GETs of the same note
START_TARGET = 0.6  # seconds from starting `vaultgate serve` to its initialize answer
START_TIMEOUT = 60.0
TOOL = "vault"

Protocol = Literal["http", "https"]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- the emulator, as its own process ---------------------------------------------------------


@dataclass
class Emulator:
    process: subprocess.Popen[bytes]
    ports: dict[str, int]  # "http" / "https" -> port
    certificate_pem: str

    def url(self, protocol: Protocol) -> str:
        return f"{protocol}://127.0.0.1:{self.ports[protocol]}"

    def tls_context(self) -> ssl.SSLContext:
        """Trusts the emulator's self-signed certificate, as vaultgate pins the plugin's."""
        context = ssl.create_default_context(cadata=self.certificate_pem)
        context.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN
        return context


@contextlib.contextmanager
def emulator(vault: Path) -> Iterator[Emulator]:
    """``vaultgate emulate`` on free ports (plain HTTP and HTTPS), stopped on exit."""
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "vaultgate", "emulate", "--vault", str(vault)),
                *("--port", "0", "--http-port", "0", "--api-key", API_KEY),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        try:
            ports = _announced_ports(process, err)
            yield Emulator(process, ports, _plugin_certificate(ports["https"]))
        finally:
            process.kill()  # a graceful stop would wait for idle TLS clients to say goodbye
            process.wait(timeout=30)


def _announced_ports(process: subprocess.Popen[bytes], err: IO[bytes]) -> dict[str, int]:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        err.seek(0)
        text = err.read().decode("utf-8", errors="replace")
        if "API key:" in text:
            found = re.findall(r"(https?)://127\.0\.0\.1:(\d+)", text)
            return {scheme: int(port) for scheme, port in found}
        if process.poll() is not None:
            raise RuntimeError(f"the emulator exited: {text}")
        time.sleep(0.05)
    raise RuntimeError("the emulator did not start")


def _plugin_certificate(port: int) -> str:
    """The PEM the emulator serves, fetched as vaultgate fetches the plugin's."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with RawClient("https", port, context) as raw:
        return raw.get("/obsidian-local-rest-api.crt", authorised=False).decode("ascii")


# --- the baselines: a bare socket, and httpx --------------------------------------------------


class RawClient:
    """HTTP/1.1 GETs on one kept-alive socket, read up to their Content-Length, with nothing in
    between: what any client of the plugin pays at the least."""

    def __init__(self, scheme: Protocol, port: int, context: ssl.SSLContext | None) -> None:
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if scheme == "https":
            assert context is not None
            sock = context.wrap_socket(sock, server_hostname="127.0.0.1")
        self._sock = sock
        self._host = f"127.0.0.1:{port}"
        self._buffer = b""

    def __enter__(self) -> RawClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self._sock.close()

    def get(self, path: str, *, authorised: bool = True) -> bytes:
        headers = [f"GET {path} HTTP/1.1", f"Host: {self._host}", "Accept: text/markdown"]
        if authorised:
            headers.append(f"Authorization: Bearer {API_KEY}")
        self._sock.sendall(("\r\n".join(headers) + "\r\n\r\n").encode("ascii"))
        while b"\r\n\r\n" not in self._buffer:
            self._receive()
        head, _, self._buffer = self._buffer.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        found = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
        if found is None:
            raise RuntimeError(f"GET {path}: no Content-Length")
        length = int(found[1])
        while len(self._buffer) < length:
            self._receive()
        body, self._buffer = self._buffer[:length], self._buffer[length:]
        if status != 200:
            raise RuntimeError(f"GET {path} answered {status}")
        return body

    def _receive(self) -> None:
        chunk = self._sock.recv(262_144)
        if not chunk:
            raise RuntimeError("the emulator closed the connection")
        self._buffer += chunk


def httpx_client(emulator: Emulator, protocol: Protocol) -> httpx.AsyncClient:
    verify: ssl.SSLContext | bool = emulator.tls_context() if protocol == "https" else True
    return httpx.AsyncClient(
        base_url=emulator.url(protocol),
        headers={"Authorization": f"Bearer {API_KEY}", "Accept": "text/markdown"},
        verify=verify,
    )


# --- MCP servers over stdio -------------------------------------------------------------------


class StdioServer:
    """An MCP server as a subprocess, spoken to in JSON-RPC lines as an MCP host does."""

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self._next_id = 0

    def __enter__(self) -> StdioServer:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the server exited (code {self.process.poll()})")
        answer: dict[str, Any] = json.loads(line)
        if "result" not in answer:
            raise RuntimeError(f"{method} failed: {answer}")
        return answer

    def initialize(self) -> dict[str, Any]:
        answer = self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "call-path-bench", "version": "1"},
            },
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        result = self.request("tools/call", {"name": name, "arguments": arguments})["result"]
        text = "\n".join(block["text"] for block in result["content"] if block["type"] == "text")
        if result.get("isError"):
            raise RuntimeError(f"{name}({arguments}) failed: {text}")
        return text

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
        self.process.stdin.flush()


def vaultgate_serve(python: str, env: dict[str, str]) -> StdioServer:
    return StdioServer([python, "-m", "vaultgate", "serve"], env)


def server_env(emulator: Emulator, protocol: Protocol) -> dict[str, str]:
    """The environment an MCP host gives vaultgate: the key and where Obsidian listens. Over
    https no certificate is configured: vaultgate pins the one the plugin serves, as it does by
    default on loopback."""
    keep = ("PATH", "HOME", "LANG", "SYSTEMROOT", "TMPDIR")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env.update(
        OBSIDIAN_API_KEY=API_KEY,
        OBSIDIAN_HOST="127.0.0.1",
        OBSIDIAN_PORT=str(emulator.ports[protocol]),
        OBSIDIAN_PROTOCOL=protocol,
        VAULTGATE_MEMORY_DB=":memory:",
    )
    return env


def serve_noop(note_file: str, stdio: str) -> None:
    """The SDK's floor (run as ``call_path.py --noop-server FILE threads|loop``): an MCPServer
    whose only tool answers the note's text, read once at start, with no HTTP at all.

    ``threads`` serves stdio as ``MCPServer.run()`` does (a worker thread reads each line and
    writes each answer); ``loop`` passes asyncio pipes to the SDK's ``stdio_server``, which needs
    the SDK's private low-level server: a prototype of what that would save, not what vaultgate
    does."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.stdio import stdio_server

    text = Path(note_file).read_text(encoding="utf-8")
    server = MCPServer("noop")

    @server.tool(name=TOOL, structured_output=False)
    async def read(operation: str, filename: str) -> str:
        return text

    if stdio == "threads":
        server.run()
        return

    class Lines:
        def __init__(self, reader: asyncio.StreamReader) -> None:
            self._reader = reader

        def __aiter__(self) -> Lines:
            return self

        async def __anext__(self) -> str:
            line = await self._reader.readline()
            if not line:
                raise StopAsyncIteration
            return line.decode("utf-8", errors="replace")

    class Writer:
        def __init__(self, transport: asyncio.WriteTransport) -> None:
            self._transport = transport

        async def write(self, data: str) -> None:
            self._transport.write(data.encode("utf-8"))

        async def flush(self) -> None:
            pass

    async def main() -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 24)
        stdin = os.fdopen(os.dup(0), "rb", buffering=0)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
        stdout = os.fdopen(os.dup(1), "wb", buffering=0)
        transport, _ = await loop.connect_write_pipe(asyncio.Protocol, stdout)
        lowlevel = server._lowlevel_server  # the prototype's private access
        pipes: Any = (Lines(reader), Writer(transport))
        async with stdio_server(*pipes) as (read_stream, write_stream):
            options = lowlevel.create_initialization_options()
            await lowlevel.run(read_stream, write_stream, options)

    asyncio.run(main())


def noop_server(note_file: Path, stdio: str, env: dict[str, str]) -> StdioServer:
    return StdioServer(
        [sys.executable, str(Path(__file__).resolve()), "--noop-server", str(note_file), stdio],
        env,
    )


# --- the measurements -------------------------------------------------------------------------


@dataclass
class Series:
    """Timings of one kind of call, in rounds; a round's figure is the median of its calls."""

    label: str
    rounds: list[list[float]] = field(default_factory=list)

    def new_round(self) -> list[float]:
        self.rounds.append([])
        return self.rounds[-1]

    @property
    def per_round(self) -> list[float]:
        return [statistics.median(calls) for calls in self.rounds]

    @property
    def min(self) -> float:
        return min(self.per_round)

    @property
    def median(self) -> float:
        return statistics.median(self.per_round)

    def ratios(self, baseline: Series) -> list[float]:
        """This over ``baseline``, round by round (both measured in the same rounds)."""
        return [
            ours / theirs for ours, theirs in zip(self.per_round, baseline.per_round, strict=True)
        ]


Mode = Literal["alternating", "blocks"]
MODES: dict[Mode, str] = {
    "alternating": (
        "**Alternating**, one call of each kind after the other: every process has been idle "
        "for a moment before each call, as between the calls of a conversation"
    ),
    "blocks": (
        "**In blocks**, each kind's calls back to back: a process kept busy answers faster, "
        "which the GETs get and a read through vaultgate cannot (the emulator waits while "
        "vaultgate works)"
    ),
}


@dataclass
class CallPath:
    protocol: Protocol
    note: str
    note_chars: int
    labels: dict[str, str]  # kind -> what it is
    series: dict[Mode, dict[str, Series]]  # mode -> kind -> timings

    def get(self, mode: Mode, kind: str) -> Series:
        return self.series[mode][kind]


Call = Callable[[], Awaitable[object]]


async def measure_call_path(
    emulator: Emulator,
    protocol: Protocol,
    vault: Path,
    note: str,
    *,
    rounds: int,
    calls: int,
    compare: str | None,
    compare_label: str | None = None,
) -> CallPath:
    log(f"call path over {protocol}: {rounds} rounds of {calls} calls of each kind …")
    url = "/vault/" + "/".join(quote(part, safe="") for part in note.split("/"))
    arguments = {"operation": "read", "filename": note}
    env = server_env(emulator, protocol)
    context = emulator.tls_context() if protocol == "https" else None
    with contextlib.ExitStack() as stack:
        raw = stack.enter_context(RawClient(protocol, emulator.ports[protocol], context))
        http = httpx_client(emulator, protocol)
        servers = {"vaultgate": stack.enter_context(vaultgate_serve(sys.executable, env))}
        for stdio in ("threads", "loop"):
            servers[stdio] = stack.enter_context(noop_server(vault / note, stdio, env))
        if compare is not None:
            servers["compare"] = stack.enter_context(vaultgate_serve(compare, env))
        expected = raw.get(url).decode("utf-8")
        for name, server in servers.items():
            server.initialize()
            if server.call_tool(TOOL, arguments) != expected:
                raise RuntimeError(f"{name}: the note read over stdio is not the note")

        async def httpx_get() -> None:
            response = await http.get(url)
            response.raise_for_status()

        def stdio_call(server: StdioServer) -> Call:
            async def call() -> None:
                server.call_tool(TOOL, arguments)

            return call

        async def raw_get() -> None:
            raw.get(url)

        calls_of: dict[str, tuple[str, Call]] = {
            "httpx": ("keep-alive GET with httpx.AsyncClient", httpx_get),
            "raw": ("keep-alive GET on a bare socket", raw_get),
            "vaultgate": ("vaultgate: the note read over stdio", stdio_call(servers["vaultgate"])),
            "threads": (
                "SDK alone: a tool that answers the note from memory, over stdio",
                stdio_call(servers["threads"]),
            ),
            "loop": (
                "SDK alone, stdio on the event loop (prototype, private SDK API)",
                stdio_call(servers["loop"]),
            ),
        }
        if "compare" in servers:
            calls_of["compare"] = (
                f"vaultgate {compare_label or f'under `{compare}`'}: the note read",
                stdio_call(servers["compare"]),
            )
        result = CallPath(
            protocol,
            note,
            len(expected),
            labels={kind: label for kind, (label, _) in calls_of.items()},
            series={
                mode: {kind: Series(label) for kind, (label, _) in calls_of.items()}
                for mode in MODES
            },
        )
        for _ in range(20):  # warm every path: first calls pay for imports, pools, the TLS pin
            for _, call in calls_of.values():
                await call()
        kinds = list(calls_of)
        for round_number in range(rounds):
            # Each kind first in turn, so that drifting load falls on all alike.
            shift = round_number % len(kinds)
            order = kinds[shift:] + kinds[:shift]
            alternating = {kind: result.get("alternating", kind).new_round() for kind in order}
            for _ in range(calls):
                for kind in order:
                    alternating[kind].append(await _timed(calls_of[kind][1]))
            for kind in order:
                block = result.get("blocks", kind).new_round()
                for _ in range(calls):
                    block.append(await _timed(calls_of[kind][1]))
        await http.aclose()
    return result


async def _timed(call: Call) -> float:
    started = time.perf_counter()
    await call()
    return time.perf_counter() - started


CLIENT_CALLS = 300  # GETs per client and round; short rounds, so that all see the same load


async def measure_clients(emulator: Emulator, note: str, *, rounds: int) -> dict[str, list[float]]:
    """CPU time of this process per GET of the note over http, one request at a time, for each
    client vaultgate could use: the choice of issue 11. Returns client -> seconds per round."""
    import httpcore
    import httpx2

    from vaultgate.config import ObsidianSettings, Secret
    from vaultgate.obsidian.transport import build_http_client

    log(f"clients: {rounds} rounds of {CLIENT_CALLS} GETs each …")
    url = "/vault/" + "/".join(quote(part, safe="") for part in note.split("/"))
    base = emulator.url("http")
    headers = {"Authorization": f"Bearer {API_KEY}", "Accept": "text/markdown"}
    settings = ObsidianSettings(
        api_key=Secret(API_KEY), protocol="http", port=emulator.ports["http"]
    )
    plugin = await build_http_client(settings)
    client = httpx.AsyncClient(base_url=base, headers=headers)
    client2 = httpx2.AsyncClient(base_url=base, headers=headers)
    pool = httpcore.AsyncConnectionPool()
    raw_headers = [(name.encode(), value.encode()) for name, value in headers.items()]

    async def with_plugin_http() -> None:
        response = await plugin.request("GET", url, headers={"Accept": "text/markdown"})
        response.raise_for_status()

    async def with_httpx() -> None:
        (await client.get(url)).raise_for_status()

    async def with_httpx2() -> None:
        (await client2.get(url)).raise_for_status()

    timeout: dict[str, Any] = {"timeout": httpx.Timeout(settings.timeout).as_dict()}

    async def with_httpcore() -> None:  # with a timeout, as every other client here has
        response = await pool.request("GET", base + url, headers=raw_headers, extensions=timeout)
        if response.status != 200:
            raise RuntimeError(f"GET {url} answered {response.status}")

    clients: dict[str, Call] = {
        "`httpx.AsyncClient`": with_httpx,
        "the SDK's `httpx2.AsyncClient`": with_httpx2,
        "httpcore's `AsyncConnectionPool`, directly": with_httpcore,
        "vaultgate's `PluginHTTP` (an httpx transport, httpcore's pool)": with_plugin_http,
    }
    cpu: dict[str, list[float]] = {name: [] for name in clients}
    for call in clients.values():
        for _ in range(50):
            await call()
    for round_number in range(rounds):
        names = list(clients)
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            started = time.process_time()
            for _ in range(CLIENT_CALLS):
                await clients[name]()
            cpu[name].append((time.process_time() - started) / CLIENT_CALLS)
    await plugin.aclose()
    await client.aclose()
    await client2.aclose()
    await pool.aclose()
    return cpu


@dataclass
class StartUp:
    interpreter: Series
    sdk: Series
    serve: Series
    compare: Series | None


def measure_start_up(
    emulator: Emulator,
    *,
    rounds: int,
    starts: int,
    compare: str | None,
    compare_label: str | None = None,
) -> StartUp:
    """Each round starts each process ``starts`` times, in turn; the interpreter and the SDK's
    import are the baselines of the same round."""
    log(f"start-up: {rounds} rounds of {starts} starts each …")
    result = StartUp(
        Series("`python -c pass`"),
        Series("`python -c 'import mcp.server.mcpserver'`: the SDK's import"),
        Series("`vaultgate serve` until its answer to initialize"),
        Series(f"`vaultgate serve` {compare_label or f'under `{compare}`'}") if compare else None,
    )
    env = server_env(emulator, "https")
    for _ in range(rounds):
        interpreter, sdk, serve = (
            result.interpreter.new_round(),
            result.sdk.new_round(),
            result.serve.new_round(),
        )
        other = result.compare.new_round() if result.compare else None
        for _ in range(starts):
            interpreter.append(_run_python("pass", env))
            sdk.append(_run_python("import mcp.server.mcpserver", env))
            serve.append(_start(sys.executable, env))
            if other is not None and compare is not None:
                other.append(_start(compare, env))
    return result


def _run_python(code: str, env: dict[str, str]) -> float:
    """Until ``code`` has run and the process said so (its exit, which unloads every module, is
    not timed: nor is vaultgate's)."""
    started = time.perf_counter()
    with subprocess.Popen(
        [sys.executable, "-c", f"{code}\nprint('done', flush=True)"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        env=env,
    ) as process:
        assert process.stdout is not None
        if process.stdout.readline() != b"done\n":
            raise RuntimeError(f"python -c {code!r} failed")
        return time.perf_counter() - started  # read before the exit, which is not timed


def _start(python: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    with vaultgate_serve(python, env) as server:
        server.initialize()
        return time.perf_counter() - started


# --- the report -------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms" if seconds < 0.01 else f"{seconds * 1000:.0f} ms"


def times(ratios: list[float]) -> str:
    return f"{min(ratios):.2f}× / {statistics.median(ratios):.2f}×"


def met(value: float, target: float) -> str:
    return "yes" if value <= target else "**no**"


def call_path_table(path: CallPath, mode: Mode) -> list[str]:
    base, raw = path.get(mode, "httpx"), path.get(mode, "raw")
    lines = [
        f"{MODES[mode]}; over {path.protocol}:",
        "",
        "| Call | min / median | ÷ httpx GET: min / median | ÷ bare-socket GET: min / median |",
        "| --- | ---: | ---: | ---: |",
    ]
    for measured in path.series[mode].values():
        lines.append(
            f"| {measured.label} | {ms(measured.min)} / {ms(measured.median)} | "
            f"{times(measured.ratios(base))} | {times(measured.ratios(raw))} |"
        )
    return lines


def clients_table(cpu: dict[str, list[float]]) -> list[str]:
    lines = [
        "| Client | CPU per GET: min / median |",
        "| --- | ---: |",
    ]
    for name, seconds in cpu.items():
        lines.append(f"| {name} | {ms(min(seconds))} / {ms(statistics.median(seconds))} |")
    return lines


def target_rows(path: CallPath) -> list[str]:
    rows = []
    for mode in MODES:
        ratios = path.get(mode, "vaultgate").ratios(path.get(mode, "httpx"))
        rows.append(
            f"| note read over stdio ÷ httpx GET, {path.protocol}, {mode} | {times(ratios)} | "
            f"≤ {CALL_TARGET:.1f}× | {met(statistics.median(ratios), CALL_TARGET)} |"
        )
    return rows


def report(
    paths: list[CallPath],
    clients: dict[str, list[float]],
    start: StartUp,
    *,
    rounds: int,
    calls: int,
    elapsed: float,
) -> str:
    cores = os.cpu_count() or 0
    first = paths[0]
    lines = [
        "## The call path and start-up",
        "",
        "What one tool call costs over stdio next to a GET of the same note, and how fast",
        "`vaultgate serve` answers `initialize`. Generated by `bench/call_path.py`; rerun with",
        "`python bench/call_path.py` (it rewrites this section only).",
        "",
        f"- **Machine:** {cores} CPU cores, {platform.system()} {platform.machine()}, Python "
        f"{platform.python_version()}; run on {dt.date.today().isoformat()}, "
        f"{elapsed / 60:.1f} minutes in all. Other work ran on the machine at the same time: "
        "each figure is the minimum and the median of its rounds, and every baseline was "
        "measured in the same rounds as the figures it is compared with.",
        "- **Servers:** the emulator (`vaultgate emulate`, plugin 5.1.0) as its own process; "
        "`python -m vaultgate serve` as a subprocess over stdio with the default tool profile, "
        "spoken to in JSON-RPC lines after the legacy handshake; over https it pins the "
        "certificate the emulator serves, as it does by default on loopback.",
        f"- **The note:** `{first.note}`, {first.note_chars:,} characters, read whole with "
        '`vault(operation="read", filename=…)`. The GETs ask for the same URL with the same '
        "`Accept` and key, on one kept-alive connection: with `httpx.AsyncClient` (what a "
        "client that talks to the plugin directly pays, and the baseline of the issue's "
        "2.65–2.74×), and on a bare socket read up to its Content-Length (the server's work "
        "and the loopback round trip alone). *SDK alone* is an MCP server on the same SDK "
        "whose one tool answers the note's text from memory: JSON-RPC over stdio, dispatch "
        "and argument validation, with no HTTP at all.",
        "",
        "### A note read over stdio",
        "",
        f"{rounds} rounds of {calls} calls of each kind, measured twice in each round: "
        "alternating, then in blocks (each kind first in turn, so that load from other work "
        "falls on all alike). A round's figure is the median of its calls; each ratio is taken "
        "round by round.",
        "",
    ]
    for mode in MODES:
        for path in paths:
            lines += [*call_path_table(path, mode), ""]
    lines += [
        "| Target | measured: min / median | target | met |",
        "| --- | ---: | ---: | :---: |",
        *(row for path in paths for row in target_rows(path)),
        "",
        "### The HTTP client",
        "",
        "The CPU time of one process per GET of the same note over http, one request at a "
        f"time, {len(next(iter(clients.values())))} rounds of {CLIENT_CALLS:,} GETs per "
        "client (sniffio installed, as vaultgate now requires): what chose vaultgate's client.",
        "",
        *clients_table(clients),
        "",
        "### Start → initialize",
        "",
        f"{len(start.serve.rounds)} rounds of {len(start.serve.rounds[0])} starts of each "
        "process; each is a new process, timed until it says it has run its code (the "
        "baselines) or until its answer to `initialize` has been read; exits are not timed.",
        "",
        *start_table(start),
    ]
    return "\n".join(lines) + "\n"


def start_table(start: StartUp) -> list[str]:
    lines = [
        "| Process | min | median | target | met |",
        "| --- | ---: | ---: | ---: | :---: |",
        f"| {start.interpreter.label} | {ms(start.interpreter.min)} | "
        f"{ms(start.interpreter.median)} | – | – |",
        f"| {start.sdk.label} | {ms(start.sdk.min)} | {ms(start.sdk.median)} | – | – |",
        f"| {start.serve.label} | {ms(start.serve.min)} | {ms(start.serve.median)} | "
        f"≤ {START_TARGET * 1000:.0f} ms | {met(start.serve.median, START_TARGET)} |",
    ]
    if start.compare is not None:
        lines.append(
            f"| {start.compare.label} | {ms(start.compare.min)} | {ms(start.compare.median)} "
            "| – | – |"
        )
    return lines


# --- the command ------------------------------------------------------------------------------


def pick_note(vault: Path) -> str:
    """A typical note: the median-sized one among the first top folder's first 50 (as
    bench/run.py picks it)."""
    top = sorted(p for p in vault.iterdir() if p.is_dir() and not p.name.startswith("."))[0]
    notes = sorted(top.rglob("*.md"))[:50]
    notes.sort(key=lambda p: p.stat().st_size)
    return notes[len(notes) // 2].relative_to(vault).as_posix()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--calls", type=int, default=100, help="calls of each kind per round")
    parser.add_argument("--starts", type=int, default=3, help="starts of each process per round")
    parser.add_argument("--quick", action="store_true", help="3 rounds of 30 calls, 1 start")
    parser.add_argument(
        "--compare", help="also measure `vaultgate serve` under this interpreter (a 'before')"
    )
    parser.add_argument("--compare-label", help="how the report names --compare's vaultgate")
    parser.add_argument("--protocol", choices=("http", "https", "both"), default="both")
    parser.add_argument(
        "--only",
        choices=("call", "clients", "start"),
        help="measure one part; print it, write nothing",
    )
    parser.add_argument("--output", type=Path, help="where the report goes")
    parser.add_argument("--noop-server", nargs=2, metavar=("NOTE", "STDIO"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.noop_server:
        serve_noop(*args.noop_server)
        return 0
    if args.quick:
        args.rounds, args.calls, args.starts = 3, 30, 1
    protocols: list[Protocol] = ["http", "https"] if args.protocol == "both" else [args.protocol]

    started = time.perf_counter()
    vault = generate(2_000, 200)
    note = pick_note(vault.path)
    with emulator(vault.path) as running:
        if args.only == "clients":
            clients = asyncio.run(measure_clients(running, note, rounds=args.rounds * 2))
            print("\n".join(clients_table(clients)))
            return 0
        if args.only == "start":
            start = measure_start_up(
                running, rounds=args.rounds, starts=args.starts, compare=args.compare
            )
            print("\n".join(start_table(start)))
            return 0
        paths = [
            asyncio.run(
                measure_call_path(
                    running,
                    protocol,
                    vault.path,
                    note,
                    rounds=args.rounds,
                    calls=args.calls,
                    compare=args.compare,
                    compare_label=args.compare_label,
                )
            )
            for protocol in protocols
        ]
        if args.only == "call":
            for path in paths:
                print("\n".join([*call_path_table(path, "alternating"), ""]))
                print("\n".join([*call_path_table(path, "blocks"), *target_rows(path), ""]))
            return 0
        clients = asyncio.run(measure_clients(running, note, rounds=args.rounds * 2))
        start = measure_start_up(
            running,
            rounds=args.rounds,
            starts=args.starts,
            compare=args.compare,
            compare_label=args.compare_label,
        )
    text = report(
        paths,
        clients,
        start,
        rounds=args.rounds,
        calls=args.calls,
        elapsed=time.perf_counter() - started,
    )
    if args.output is None and not args.quick:
        write_section("call-path", text)
        log("wrote the call-path section of docs/benchmarks.md")
    else:
        output: Path = args.output or QUICK_REPORT
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
        log(f"wrote {output}")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
