"""Run the emulator on real sockets: in a background thread (tests, demo, benchmarks) or in
the foreground (``vaultgate emulate``).

Sockets are bound before uvicorn starts, so port 0 resolves to a free port at once and the
URL is known before the first request; the caller waits only until uvicorn has started
serving. Uvicorn logs warnings and errors only, to stderr (stdout belongs to the demo).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import hashlib
import secrets
import shutil
import socket
import ssl
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import httpx
import uvicorn
from starlette.applications import Starlette

from vaultgate.emulator.app import EmulatorConfig, create_app, emulator_state
from vaultgate.emulator.tls import make_self_signed_certificate
from vaultgate.emulator.workspace import EmulatorState
from vaultgate.serving import NotifyingServer, listen_tcp

DEFAULT_HTTPS_PORT = 27124
_START_TIMEOUT = 30.0
# On Ctrl-C (or stop()) a request in flight gets this long to finish; then every connection
# still open is cut (see _EmulatorServer). The backstop bounds the rest (an app still running).
GRACE_SECONDS = 0.5
GRACEFUL_SHUTDOWN_BACKSTOP = 5  # seconds; uvicorn takes an int


def generate_api_key() -> str:
    """64 lowercase hex characters, as the plugin makes them (SHA-256 of random bytes)."""
    return hashlib.sha256(secrets.token_bytes(32)).hexdigest()


@dataclass
class _Listener:
    sock: socket.socket
    scheme: str  # "https" or "http"

    def url(self, host: str) -> str:
        port = self.sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        return f"{self.scheme}://{shown}:{port}"


def _uvicorn_config(app: Starlette, tls_files: tuple[Path, Path] | None) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        log_level="warning",
        log_config=None,  # leave logging alone: nothing of ours goes to stdout
        access_log=False,
        lifespan="off",
        timeout_keep_alive=60,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_BACKSTOP,
        ssl_certfile=str(tls_files[0]) if tls_files else None,
        ssl_keyfile=str(tls_files[1]) if tls_files else None,
    )


class _EmulatorServer(NotifyingServer):
    """Stops promptly while clients hold connections open.

    Uvicorn's shutdown asks each connection to close and waits until every one has. An idle
    keep-alive TLS connection is closed only once its client answers TLS's close, which an idle
    client (a running vaultgate, a browser) never does, so Ctrl-C waited 30 s (asyncio's TLS
    shutdown timeout) per server. Here a request in flight gets GRACE_SECONDS to finish its
    answer; whatever connection is still open then is cut, as a quitting Obsidian cuts it.

    Uvicorn also looks at ``should_exit`` every 0.1 s and sleeps 0.1 s in every shutdown; the
    test suite starts and stops hundreds of emulators, so ``ask_to_stop`` wakes the loop at
    once, and a server with no connection and no task left closes without the sleep.
    """

    def __init__(self, config: uvicorn.Config, on_started: Callable[[], None]) -> None:
        super().__init__(config, on_started)
        self._stop_asked = asyncio.Event()

    def ask_to_stop(self) -> None:
        """Stop serving now; called on the server's own loop."""
        self.should_exit = True
        self._stop_asked.set()

    async def main_loop(self) -> None:
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864_000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop_asked.wait(), 0.1)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if not self.server_state.connections and not self.server_state.tasks:
            for server in self.servers:
                server.close()
            for sock in sockets or []:
                sock.close()
            for server in self.servers:
                await server.wait_closed()
            return
        cut = asyncio.get_running_loop().call_later(GRACE_SECONDS, self.drop_connections)
        try:
            await super().shutdown(sockets)
        finally:
            cut.cancel()

    def drop_connections(self) -> None:
        """Cut every connection still open (a request in flight loses its answer)."""
        for connection in list(self.server_state.connections):
            connection.transport.abort()


async def _serve(
    app: Starlette,
    listeners: Sequence[_Listener],
    tls_files: tuple[Path, Path] | None,
    servers: list[_EmulatorServer],
    on_ready: Callable[[], None],
) -> None:
    pending = len(listeners)

    def started() -> None:
        nonlocal pending
        pending -= 1
        if pending == 0:
            on_ready()

    for listener in listeners:
        files = tls_files if listener.scheme == "https" else None
        servers.append(_EmulatorServer(_uvicorn_config(app, files), started))
    await asyncio.gather(
        *(
            server.serve(sockets=[listener.sock])
            for server, listener in zip(servers, listeners, strict=True)
        )
    )


class RunningEmulator:
    """An emulator serving in a background thread; ``stop()`` (or leaving ``with``) ends it."""

    https_url: str | None
    http_url: str | None
    api_key: str
    certificate_pem: str
    certificate_path: Path
    state: EmulatorState

    def __init__(
        self,
        *,
        app: Starlette,
        listeners: list[_Listener],
        host: str,
        api_key: str,
        certificate_pem: str,
        workdir: Path,
    ) -> None:
        self.api_key = api_key
        self.certificate_pem = certificate_pem
        self.certificate_path = workdir / "obsidian-local-rest-api.crt"
        self.state = emulator_state(app)
        self.https_url = next((li.url(host) for li in listeners if li.scheme == "https"), None)
        self.http_url = next((li.url(host) for li in listeners if li.scheme == "http"), None)
        self._app = app
        self._listeners = listeners
        self._workdir = workdir
        self._servers: list[_EmulatorServer] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="vaultgate-emulator", daemon=True)

    def client(self) -> httpx.AsyncClient:
        """A client of the HTTPS server that trusts its certificate and sends its key: how a
        test (or a curious user) asks the emulated plugin directly, past vaultgate."""
        if self.https_url is None:
            raise RuntimeError("this emulator serves no HTTPS")
        return httpx.AsyncClient(
            base_url=self.https_url,
            verify=ssl.create_default_context(cafile=self.certificate_path),
            headers={"Authorization": f"Bearer {self.api_key}"},
        )

    @property
    def _tls_files(self) -> tuple[Path, Path]:
        return self.certificate_path, self._workdir / "key.pem"

    def drop_connections(self) -> None:
        """Cut every open connection at once, as a quitting Obsidian does (stop() does it
        too, after giving a request in flight GRACE_SECONDS)."""
        loop = self._loop

        def abort() -> None:
            for server in self._servers:
                server.drop_connections()

        if loop is not None and self._thread.is_alive():
            loop.call_soon_threadsafe(abort)

    def _run(self) -> None:
        def ready() -> None:
            self._loop = asyncio.get_running_loop()
            self._ready.set()

        try:
            asyncio.run(_serve(self._app, self._listeners, self._tls_files, self._servers, ready))
        except BaseException as exc:  # reported to the starting thread
            self._error = exc
        finally:
            self._ready.set()

    def _start(self) -> None:
        self._thread.start()
        if not self._ready.wait(_START_TIMEOUT):
            self.stop()
            raise RuntimeError(f"the emulator did not start within {_START_TIMEOUT:g} s")
        if self._error is not None or not self._thread.is_alive():
            self.stop()
            raise RuntimeError("the emulator failed to start") from self._error

    def stop(self) -> None:
        loop = self._loop
        for server in self._servers:
            server.should_exit = True
            if loop is not None and self._thread.is_alive():
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: it is done
                    loop.call_soon_threadsafe(server.ask_to_stop)
        if self._thread.is_alive():
            self._thread.join(_START_TIMEOUT)
        for listener in self._listeners:
            listener.sock.close()
        shutil.rmtree(self._workdir, ignore_errors=True)

    def __enter__(self) -> RunningEmulator:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def start_emulator(
    vault: Path,
    *,
    api_key: str | None = None,
    plugin_version: str = "5.1.0",
    https_port: int | None = 0,
    http_port: int | None = None,
    active_file: str | None = None,
    extensions: bool = False,
    host: str = "127.0.0.1",
    today: Callable[[], dt.date] | None = None,
    extra_commands: tuple[tuple[str, str], ...] = (),
) -> RunningEmulator:
    """Serve ``vault`` in a background thread and return once it accepts requests.

    Port 0 picks a free port; ``https_port=None`` means no HTTPS server, ``http_port=None``
    no plain-HTTP server. Both servers share one app and one state.
    """
    if https_port is None and http_port is None:
        raise ValueError("start_emulator needs an https_port or an http_port")
    cert_pem, key_pem = make_self_signed_certificate([host])
    key = api_key if api_key is not None else generate_api_key()
    config = EmulatorConfig(
        vault=vault,
        api_key=key,
        plugin_version=plugin_version,
        active_file=active_file,
        extensions=extensions,
        certificate_pem=cert_pem,
        extra_commands=extra_commands,
    )
    if today is not None:  # the clock /periodic/ notes are dated by
        config = dataclasses.replace(config, today=today)
    app = create_app(config)
    workdir = Path(tempfile.mkdtemp(prefix="vaultgate-emulator-"))
    listeners: list[_Listener] = []
    try:
        (workdir / "obsidian-local-rest-api.crt").write_text(cert_pem, encoding="utf-8")
        (workdir / "key.pem").write_text(key_pem, encoding="utf-8")
        if https_port is not None:
            listeners.append(_Listener(listen_tcp(host, https_port), "https"))
        if http_port is not None:
            listeners.append(_Listener(listen_tcp(host, http_port), "http"))
    except BaseException:
        for listener in listeners:
            listener.sock.close()
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    running = RunningEmulator(
        app=app,
        listeners=listeners,
        host=host,
        api_key=key,
        certificate_pem=cert_pem,
        workdir=workdir,
    )
    running._start()
    return running


async def serve_emulator(
    config: EmulatorConfig,
    *,
    https_port: int | None = DEFAULT_HTTPS_PORT,
    http_port: int | None = None,
    host: str = "127.0.0.1",
    key_pem: str | None = None,
    on_ready: Callable[[list[str]], None] | None = None,
) -> None:
    """Serve in the foreground until cancelled (or until uvicorn sees Ctrl-C).

    HTTPS needs the private key of ``config.certificate_pem``; without one a fresh
    certificate is made (and served at ``/obsidian-local-rest-api.crt``).
    """
    tls_pems: tuple[str, str] | None = None
    if https_port is not None:
        if config.certificate_pem is None or key_pem is None:
            cert_pem, key_pem = make_self_signed_certificate([host])
            config = dataclasses.replace(config, certificate_pem=cert_pem)
        tls_pems = (config.certificate_pem or "", key_pem)
    app = create_app(config)
    listeners: list[_Listener] = []
    with tempfile.TemporaryDirectory(prefix="vaultgate-emulator-") as tmp:
        tls_files: tuple[Path, Path] | None = None
        if tls_pems is not None:
            tls_files = (Path(tmp) / "obsidian-local-rest-api.crt", Path(tmp) / "key.pem")
            tls_files[0].write_text(tls_pems[0], encoding="utf-8")
            tls_files[1].write_text(tls_pems[1], encoding="utf-8")
        try:
            if https_port is not None:
                listeners.append(_Listener(listen_tcp(host, https_port), "https"))
            if http_port is not None:
                listeners.append(_Listener(listen_tcp(host, http_port), "http"))
            urls = [listener.url(host) for listener in listeners]

            def ready() -> None:
                if on_ready is not None:
                    on_ready(urls)

            await _serve(app, listeners, tls_files, [], ready)
        finally:
            for listener in listeners:
                listener.sock.close()


def run_emulate_command(
    vault: Path,
    port: int,
    http_port: int | None,
    api_key: str | None,
    plugin_version: str,
    active: str | None,
    extensions: bool,
) -> int:
    """``vaultgate emulate``: print where it listens and its key to stderr, serve until Ctrl-C."""
    if not vault.is_dir():
        print(f"vaultgate emulate: {vault} is not a folder.", file=sys.stderr)
        return 2
    key = api_key or generate_api_key()
    cert_pem, key_pem = make_self_signed_certificate()
    config = EmulatorConfig(
        vault=vault,
        api_key=key,
        plugin_version=plugin_version,
        active_file=active,
        extensions=extensions,
        certificate_pem=cert_pem,
    )

    def announce(urls: list[str]) -> None:
        lines = [f"Local REST API {plugin_version} emulator serving {vault}"]
        lines += [f"  {url}" for url in urls]
        # the emulator's own key: showing it is how a user connects a client to it
        lines.append(f"  API key: {key}")
        lines.append("  Certificate: GET /obsidian-local-rest-api.crt   (Ctrl-C stops)")
        print("\n".join(lines), file=sys.stderr, flush=True)

    try:
        asyncio.run(
            serve_emulator(
                config,
                https_port=port,
                http_port=http_port,
                key_pem=key_pem,
                on_ready=announce,
            )
        )
    except KeyboardInterrupt:
        return 0
    except OSError as exc:
        print(f"vaultgate emulate: cannot listen: {exc}", file=sys.stderr)
        return 1
    return 0
