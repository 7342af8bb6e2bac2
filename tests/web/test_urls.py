"""Only absolute http(s) URLs with a host and no credentials may be fetched."""

from __future__ import annotations

import pytest

from vaultgate.errors import URLRefused
from vaultgate.web.urls import parse_fetch_url


@pytest.mark.parametrize(
    ("url", "says"),
    [
        pytest.param("file:///etc/passwd", "'file:'", id="file"),
        pytest.param("ftp://ftp.example.com/pub/x.txt", "'ftp:'", id="ftp"),
        pytest.param("javascript:alert(1)", "'javascript:'", id="javascript"),
        pytest.param("data:text/html,<h1>x</h1>", "'data:'", id="data"),
        pytest.param("gopher://example.com/", "'gopher:'", id="gopher"),
        pytest.param("example.com/page", "no scheme", id="no-scheme"),
        pytest.param("http:///path-only", "has no host", id="no-host"),
    ],
)
def test_urls_that_are_not_http_or_https_are_refused_with_a_way_forward(
    url: str, says: str
) -> None:
    with pytest.raises(URLRefused) as refused:
        parse_fetch_url(url)
    assert says in str(refused.value)
    assert refused.value.url == url


def test_credentials_in_a_url_are_refused_because_fetch_never_sends_any() -> None:
    with pytest.raises(URLRefused, match="never sends credentials") as refused:
        parse_fetch_url("https://alice:s3cret@example.com/private")
    assert "s3cret" not in str(refused.value)


def test_a_refused_redirect_names_where_it_came_from() -> None:
    with pytest.raises(URLRefused, match=r"a redirect from https://example\.com/a"):
        parse_fetch_url("file:///etc/passwd", redirected_from="https://example.com/a")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example.com/a?b=1#section", "https://example.com/a?b=1"),
        ("  http://example.com  ", "http://example.com"),
        ("HTTPS://Example.COM/x", "https://example.com/x"),
    ],
)
def test_accepted_urls_lose_their_fragment_and_surrounding_blanks(url: str, expected: str) -> None:
    assert str(parse_fetch_url(url)).rstrip("/") == expected.rstrip("/")


@pytest.mark.parametrize(
    ("url", "says"),
    [
        pytest.param("https://" + "a" * 64 + ".com/", "at most 63", id="label-64"),
        pytest.param("https://" + "a." * 130 + "com/", "at most 253", id="host-too-long"),
        pytest.param("https://a..example.com/", "empty label", id="empty-label"),
        pytest.param("https://é" + "a" * 70 + ".com/", "not a valid URL", id="idna-label"),
        pytest.param("https://example.com/" + "a" * 70_000, "not a valid URL", id="url-too-long"),
        pytest.param("http://exa\x00mple.com/", "not a valid URL", id="nul"),
    ],
)
def test_a_host_dns_cannot_carry_is_refused_with_what_is_wrong(url: str, says: str) -> None:
    with pytest.raises(URLRefused, match=says) as refused:
        parse_fetch_url(url)

    assert len(str(refused.value)) < 600


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("https://" + "a" * 63 + ".com/", id="label-63"),
        pytest.param("https://example.com./", id="trailing-dot"),
        pytest.param("https://bücher.example/", id="idna"),
        pytest.param("http://xn--a/", id="undecodable-punycode-left-to-dns"),
        pytest.param("http://[2606:4700::1111]/", id="ipv6"),
    ],
)
def test_unusual_but_valid_hosts_pass(url: str) -> None:
    assert parse_fetch_url(url).raw_host
