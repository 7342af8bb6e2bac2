"""Benchmark: local clients served by ``serve --http``'s connection guard while one address
churns half-sent connections (issue 36: 0 of 6 served while 32,814 were opened).

A background thread keeps ``--open`` connections from 127.0.0.1 that each sent half a request
line (``POST /mc``); once that many are open, each new one follows the close of its oldest, as
fast as the machine allows. After a second of churn, a client from the same 127.0.0.1 makes 6
GET requests one after another (a 10 s timeout each) to a bare ASGI app behind the guard. The
rounds print, per round, how many were answered, their seconds, and the connections opened.

    python bench/http_churn.py               # 3 rounds of 200 held connections
    python bench/http_churn.py --rounds 5 --open 100
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import socket
import statistics
import threading
import time
from typing import Any

import httpx

from vaultgate.http_server import ServerThread, bind

REQUESTS = 6


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def _churn(port: int, held: int, stop: threading.Event, opened: list[int]) -> None:
    live: collections.deque[socket.socket] = collections.deque()
    while not stop.is_set():
        if len(live) >= held:
            live.popleft().close()
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.sendall(b"POST /mc")
        except OSError:
            continue
        live.append(sock)
        opened[0] += 1
    for sock in live:
        sock.close()


def one_round(held: int) -> tuple[int, list[float], int]:
    sock = bind("127.0.0.1", 0)
    port = int(sock.getsockname()[1])
    stop, opened = threading.Event(), [0]
    with ServerThread(_app, sock) as server:  # type: ignore[arg-type]
        churn = threading.Thread(target=_churn, args=(port, held, stop, opened), daemon=True)
        churn.start()
        time.sleep(1.0)
        served, seconds = 0, []
        for _ in range(REQUESTS):
            started = time.perf_counter()
            with contextlib.suppress(httpx.TransportError):  # a cut request is not served
                served += httpx.get(f"{server.url}/", timeout=10).status_code == 200
            seconds.append(time.perf_counter() - started)
        stop.set()
        churn.join(30)
    return served, seconds, opened[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--open", type=int, default=200, dest="held")
    args = parser.parse_args()
    for n in range(1, args.rounds + 1):
        served, seconds, opened = one_round(args.held)
        print(
            f"round {n}: {served}/{REQUESTS} served; seconds median "
            f"{statistics.median(seconds):.2f}, max {max(seconds):.2f}; "
            f"{opened:,} connections opened"
        )


if __name__ == "__main__":
    main()
