"""Which addresses fetch may connect to, and resolving a host name to them.

A host is refused when ANY of its addresses is not public: a name that resolves to both a public
and a private address is how DNS rebinding reaches the private one. The address that was checked
is the one connected to (see download.py), so a second, different DNS answer is never used.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from collections.abc import Awaitable, Callable

import anyio.to_thread
import httpx

from vaultgate.errors import PageUnavailable, URLRefused

Resolver = Callable[[str, int], Awaitable[list[str]]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

ALLOW_PRIVATE_HINT = (
    "fetch reaches only public internet addresses; the user can set "
    "VAULTGATE_FETCH_ALLOW_PRIVATE=true to allow loopback and private ones."
)


async def system_resolver(host: str, port: int) -> list[str]:
    """Every address getaddrinfo gives for ``host``, in its order (a worker thread: it blocks)."""
    lookup = functools.partial(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    infos = await anyio.to_thread.run_sync(lookup)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def non_public_reason(address: str) -> str | None:
    """Why ``address`` is not a public internet address ('loopback', 'private', ...), or None."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone ("fe80::1%eth0")
    for candidate in _embedded(ip):
        reason = _reason(candidate)
        if reason is not None:
            return reason
    return None


def _embedded(ip: IPAddress) -> list[IPAddress]:
    """Any IPv4 address carried inside an IPv6 one (mapped, 6to4, Teredo), then the address.

    The IPv4 one comes first because it names the reason best: ::ffff:127.0.0.1 is loopback.
    """
    found: list[IPAddress] = []
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            found.append(ip.ipv4_mapped)
        if ip.sixtofour is not None:
            found.append(ip.sixtofour)
        if ip.teredo is not None:
            found.extend(ip.teredo)
    return [*found, ip]


# Special ranges that Python 3.11's ipaddress counts as global. fec0::/10 (site-local, RFC 3879
# deprecated it, but networks still route it internally) and 3fff::/20 (documentation, RFC 9637).
_SPECIAL_V6 = (
    ("site-local", ipaddress.IPv6Network("fec0::/10")),
    ("documentation", ipaddress.IPv6Network("3fff::/20")),
)


def _special(ip: IPAddress) -> str | None:
    if isinstance(ip, ipaddress.IPv6Address):
        return next((name for name, network in _SPECIAL_V6 if ip in network), None)
    return None


def _reason(ip: IPAddress) -> str | None:
    # The most telling name first: 127.0.0.1 is also "private" to the ipaddress module.
    checks = (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("site-local", _special(ip) == "site-local"),
        ("documentation", _special(ip) == "documentation"),
        ("multicast", ip.is_multicast),
        ("private", ip.is_private),
        ("reserved", ip.is_reserved),
        ("non-public", not ip.is_global),
    )
    return next((name for name, hit in checks if hit), None)


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


async def checked_address(
    url: httpx.URL,
    *,
    resolver: Resolver,
    allow_private: bool,
    redirected_from: str | None = None,
) -> str:
    """The address to connect to for ``url``: every address of its host checked, the first kept.

    Raises URLRefused when an address is not public (unless ``allow_private``), and
    PageUnavailable when the name does not resolve.
    """
    host = url.raw_host.decode("ascii")
    literal = _literal(host)
    if literal is not None:
        addresses = [str(literal)]
    else:
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            addresses = await resolver(host, port)
        except (OSError, UnicodeError) as exc:  # gaierror; a label IDNA cannot encode
            addresses = []
            detail = f" ({exc})"
        else:
            detail = ""
        if not addresses:
            raise PageUnavailable(
                str(url),
                f"The host {host!r} of {url} could not be resolved{detail}. Check the URL.",
            )
    if not allow_private:
        via = f" (a redirect from {redirected_from})" if redirected_from else ""
        for address in addresses:
            reason = non_public_reason(address)
            if reason is not None:
                named = "is" if literal is not None else f"resolves to {address}, which is"
                article = "an" if reason[0] in "aeiou" else "a"
                raise URLRefused(
                    str(url),
                    f"Refused to fetch {url}{via}: {host} {named} {article} {reason} address. "
                    + ALLOW_PRIVATE_HINT,
                )
    return addresses[0]
