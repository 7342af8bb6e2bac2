"""Which URLs fetch accepts: absolute http(s) URLs with a host and no credentials."""

from __future__ import annotations

import httpx

from vaultgate.errors import URLRefused, quoted
from vaultgate.hostnames import host_name_problem

ALLOWED_SCHEMES = frozenset({"http", "https"})


def parse_fetch_url(url: str, *, redirected_from: str | None = None) -> httpx.URL:
    """``url`` parsed, without its fragment, or URLRefused saying what would work instead."""
    via = f" (a redirect from {redirected_from})" if redirected_from else ""
    try:
        parsed = httpx.URL(url.strip())
    except (httpx.InvalidURL, UnicodeError, ValueError) as exc:  # IDNA errors are UnicodeErrors
        raise URLRefused(
            url,
            f"{quoted(url, 200)}{via} is not a valid URL ({str(exc)[:120]}). Pass an "
            "absolute URL such as 'https://example.com/page'.",
        ) from exc
    if parsed.scheme not in ALLOWED_SCHEMES:
        scheme = f"'{parsed.scheme}:'" if parsed.scheme else "no scheme"
        raise URLRefused(
            url,
            f"fetch reads only http and https URLs; {url!r}{via} has {scheme}. "
            "Pass an absolute URL such as 'https://example.com/page'.",
        )
    if not parsed.raw_host:
        raise URLRefused(
            url, f"{url!r}{via} has no host. Pass a URL such as 'https://example.com/'."
        )
    problem = _host_name_problem(parsed)
    if problem:
        raise URLRefused(
            url,
            f"The host of {quoted(url, 200)}{via} is not a valid host name: {problem}. "
            "Check the URL.",
        )
    # Credentials in a URL would go out as an Authorization header; fetch never sends any.
    if parsed.userinfo:
        raise URLRefused(
            url,
            f"The URL{via} carries a user name or password; fetch never sends credentials. "
            "Remove the 'user:password@' part.",
        )
    return parsed.copy_with(fragment=None)


def _host_name_problem(parsed: httpx.URL) -> str:
    """What makes the host unusable as a DNS name ('' when fine or an IP address)."""
    host = parsed.raw_host.decode("ascii", errors="replace")
    if host.startswith("[") or ":" in host or host.replace(".", "").isdigit():
        return ""  # an IP address: httpx has checked it
    return host_name_problem(host)
