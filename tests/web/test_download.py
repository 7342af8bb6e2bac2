"""Downloads through respx: pinning to the checked address, redirects re-checked hop by hop,
the 5 MB cap, content types, error statuses and timeouts."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
import respx
from tests.web.conftest import OTHER_PUBLIC_IP, PUBLIC_IP, FetcherFactory

from vaultgate.errors import (
    FetchTimeout,
    PageTooLarge,
    PageUnavailable,
    UnsupportedContent,
    URLRefused,
)
from vaultgate.web.download import MAX_DOWNLOAD_BYTES, FetchLimits

pytestmark = pytest.mark.anyio

ORIGIN = f"https://{PUBLIC_IP}"  # where requests for https://public.example go


@respx.mock
async def test_the_request_goes_to_the_checked_address_with_the_real_host_name(
    make_fetcher: FetcherFactory,
) -> None:
    route = respx.get(f"{ORIGIN}/docs?page=2").respond(200, text="hello", content_type="text/plain")

    text = await make_fetcher().text("https://public.example/docs?page=2")

    assert text == "hello"
    request = route.calls.last.request
    assert request.headers["host"] == "public.example"
    assert request.extensions["sni_hostname"] == "public.example"


@respx.mock
async def test_no_authorization_header_or_cookie_is_ever_sent(
    make_fetcher: FetcherFactory,
) -> None:
    route = respx.get(f"{ORIGIN}/a").respond(200, text="a", content_type="text/plain")

    await make_fetcher().text("https://public.example/a")

    headers = route.calls.last.request.headers
    assert "authorization" not in headers
    assert "cookie" not in headers
    assert headers["user-agent"].startswith("vaultgate/")


@respx.mock
async def test_a_redirect_to_a_private_address_is_refused_after_a_public_first_hop(
    make_fetcher: FetcherFactory,
) -> None:
    first = respx.get(f"{ORIGIN}/start").respond(
        302, headers={"Location": "http://intranet.example/admin"}
    )
    fetcher = make_fetcher({"public.example": [PUBLIC_IP], "intranet.example": ["10.0.0.7"]})

    with pytest.raises(URLRefused) as refused:
        await fetcher.text("https://public.example/start")

    assert first.call_count == 1
    message = str(refused.value)
    assert "intranet.example resolves to 10.0.0.7, which is a private address" in message
    assert "a redirect from https://public.example/start" in message


@respx.mock
async def test_a_redirect_to_a_loopback_literal_or_another_scheme_is_refused(
    make_fetcher: FetcherFactory,
) -> None:
    respx.get(f"{ORIGIN}/to-loopback").respond(301, headers={"Location": "http://127.0.0.1:9/"})
    respx.get(f"{ORIGIN}/to-file").respond(307, headers={"Location": "file:///etc/passwd"})
    fetcher = make_fetcher()

    with pytest.raises(URLRefused, match="loopback"):
        await fetcher.text("https://public.example/to-loopback")
    with pytest.raises(URLRefused, match="'file:'"):
        await fetcher.text("https://public.example/to-file")


@respx.mock
async def test_redirects_between_public_hosts_are_followed_and_each_resolved_again(
    make_fetcher: FetcherFactory,
) -> None:
    respx.get(f"{ORIGIN}/old").respond(301, headers={"Location": "https://mirror.example/new"})
    respx.get(f"https://{OTHER_PUBLIC_IP}/new").respond(
        302, headers={"Location": "/newest"}
    )  # relative: resolved against the hop that sent it
    final = respx.get(f"https://{OTHER_PUBLIC_IP}/newest").respond(
        200, text="arrived", content_type="text/plain"
    )
    fetcher = make_fetcher({"public.example": [PUBLIC_IP], "mirror.example": [OTHER_PUBLIC_IP]})

    assert await fetcher.text("https://public.example/old") == "arrived"
    assert final.calls.last.request.headers["host"] == "mirror.example"


@respx.mock
async def test_more_than_five_redirects_is_a_clear_error(make_fetcher: FetcherFactory) -> None:
    for n in range(7):
        respx.get(f"{ORIGIN}/r{n}").respond(302, headers={"Location": f"/r{n + 1}"})

    with pytest.raises(PageUnavailable, match="redirected more than 5 times"):
        await make_fetcher().text("https://public.example/r0")
    assert respx.calls.call_count == 6  # the first request and five redirects, then it stops


@respx.mock
async def test_a_body_of_exactly_5_mb_is_read(make_fetcher: FetcherFactory) -> None:
    respx.get(f"{ORIGIN}/big.txt").respond(
        200, content=b"a" * MAX_DOWNLOAD_BYTES, content_type="text/plain"
    )

    assert len(await make_fetcher().text("https://public.example/big.txt")) == MAX_DOWNLOAD_BYTES


@respx.mock
async def test_one_byte_over_5_mb_is_refused_with_the_cap_named(
    make_fetcher: FetcherFactory,
) -> None:
    respx.get(f"{ORIGIN}/huge.txt").respond(
        200, content=b"a" * (MAX_DOWNLOAD_BYTES + 1), content_type="text/plain"
    )

    with pytest.raises(PageTooLarge, match="larger than 5 MB, the download cap") as refused:
        await make_fetcher().text("https://public.example/huge.txt")
    assert refused.value.limit == MAX_DOWNLOAD_BYTES


@respx.mock
async def test_a_declared_length_over_the_cap_is_refused_before_reading(
    make_fetcher: FetcherFactory,
) -> None:
    class Unread(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            raise AssertionError("the body must not be read")
            yield b""  # pragma: no cover - makes this an async generator

    respx.get(f"{ORIGIN}/declared").mock(
        return_value=httpx.Response(
            200,
            headers={"Content-Type": "text/html", "Content-Length": str(50 * 1024 * 1024)},
            stream=Unread(),
        )
    )

    with pytest.raises(PageTooLarge):
        await make_fetcher().text("https://public.example/declared")


@respx.mock
@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/pdf", b"%PDF-1.7"),
        ("image/png", b"\x89PNG\r\n"),
        ("application/octet-stream", b"\x00\x01"),
        ("", b"\x00\x00\x00binary"),
    ],
)
async def test_content_that_is_not_text_is_refused(
    make_fetcher: FetcherFactory, content_type: str, body: bytes
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    respx.get(f"{ORIGIN}/file").respond(200, content=body, headers=headers)

    with pytest.raises(UnsupportedContent, match="not text"):
        await make_fetcher().text("https://public.example/file")


@respx.mock
@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "text/markdown", "application/json", "application/ld+json", "text/csv"],
)
async def test_textual_content_types_are_read(
    make_fetcher: FetcherFactory, content_type: str
) -> None:
    respx.get(f"{ORIGIN}/data").respond(200, text='{"a": 1}', content_type=content_type)

    assert await make_fetcher().text("https://public.example/data") == '{"a": 1}'


@respx.mock
@pytest.mark.parametrize(
    ("headers", "body", "expected"),
    [
        ({"Content-Type": "text/plain; charset=iso-8859-1"}, "café".encode("latin-1"), "café"),
        ({"Content-Type": "text/html"}, b'<meta charset="windows-1252"><p>caf\xe9</p>', "café"),
        ({"Content-Type": "text/plain"}, "\ufeffgrüße".encode("utf-8"), "grüße"),
        ({"Content-Type": "text/plain; charset=bogus"}, "naïve".encode(), "naïve"),
    ],
)
async def test_text_is_decoded_by_charset_then_bom_then_meta_then_utf8(
    make_fetcher: FetcherFactory, headers: dict[str, str], body: bytes, expected: str
) -> None:
    respx.get(f"{ORIGIN}/enc").respond(200, content=body, headers=headers)

    assert expected in await make_fetcher().text("https://public.example/enc")


@respx.mock
async def test_an_error_status_is_reported_with_its_number(make_fetcher: FetcherFactory) -> None:
    respx.get(f"{ORIGIN}/missing").respond(404, text="nope")

    with pytest.raises(PageUnavailable, match="answered 404 Not Found") as failed:
        await make_fetcher().text("https://public.example/missing")
    assert failed.value.status == 404


@respx.mock
@pytest.mark.parametrize(
    "failure",
    [httpx.ConnectTimeout("slow connect"), httpx.ReadTimeout("slow read")],
    ids=["connect", "read"],
)
async def test_timeouts_are_clear_errors(
    make_fetcher: FetcherFactory, failure: httpx.TimeoutException
) -> None:
    respx.get(f"{ORIGIN}/slow").mock(side_effect=failure)

    with pytest.raises(FetchTimeout, match=r"did not answer completely within 7 s"):
        await make_fetcher(limits=FetchLimits(timeout=7)).text("https://public.example/slow")


@respx.mock
async def test_a_refused_connection_is_a_clear_error(make_fetcher: FetcherFactory) -> None:
    respx.get(f"{ORIGIN}/down").mock(side_effect=httpx.ConnectError("Connection refused"))

    with pytest.raises(PageUnavailable, match=r"Could not get .*ConnectError"):
        await make_fetcher().text("https://public.example/down")
