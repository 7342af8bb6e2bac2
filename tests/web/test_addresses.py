"""Every address of a host is checked; one non-public address is enough to refuse it."""

from __future__ import annotations

import httpx
import pytest
from tests.web.conftest import PUBLIC_IP, fake_dns, no_dns

from vaultgate.errors import PageUnavailable, URLRefused
from vaultgate.web.addresses import checked_address, non_public_reason, system_resolver

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        pytest.param("127.0.0.1", "loopback", id="ipv4-loopback"),
        pytest.param("127.8.9.10", "loopback", id="ipv4-loopback-range"),
        pytest.param("::1", "loopback", id="ipv6-loopback"),
        pytest.param("10.1.2.3", "private", id="10/8"),
        pytest.param("172.16.0.1", "private", id="172.16/12"),
        pytest.param("172.31.255.254", "private", id="172.16/12-top"),
        pytest.param("192.168.1.10", "private", id="192.168/16"),
        pytest.param("169.254.169.254", "link-local", id="cloud-metadata"),
        pytest.param("fe80::1", "link-local", id="ipv6-link-local"),
        pytest.param("fe80::1%eth0", "link-local", id="ipv6-link-local-zone"),
        pytest.param("fd12:3456::1", "private", id="ipv6-unique-local"),
        pytest.param("0.0.0.0", "unspecified", id="ipv4-unspecified"),
        pytest.param("::", "unspecified", id="ipv6-unspecified"),
        pytest.param("224.0.0.1", "multicast", id="multicast"),
        pytest.param("ff02::1", "multicast", id="ipv6-multicast"),
        pytest.param("100.64.0.1", "non-public", id="carrier-grade-nat"),
        pytest.param("::ffff:127.0.0.1", "loopback", id="ipv4-mapped-loopback"),
        pytest.param("::ffff:10.0.0.1", "private", id="ipv4-mapped-private"),
        pytest.param("2002:c0a8:0101::1", "private", id="6to4-of-192.168.1.1"),
        pytest.param("fec0::1", "site-local", id="ipv6-site-local"),
        pytest.param("feff:ffff::1", "site-local", id="ipv6-site-local-top"),
        pytest.param("3fff::1", "documentation", id="ipv6-documentation-rfc9637"),
        pytest.param("64:ff9b::7f00:1", "reserved", id="nat64-of-loopback"),
        pytest.param("::7f00:1", "reserved", id="ipv4-compatible-loopback"),
    ],
)
def test_non_public_addresses_are_named_for_what_they_are(address: str, reason: str) -> None:
    assert non_public_reason(address) == reason


@pytest.mark.parametrize("address", [PUBLIC_IP, "1.1.1.1", "2606:4700:4700::1111"])
def test_public_addresses_pass(address: str) -> None:
    assert non_public_reason(address) is None


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("http://127.0.0.1/", id="127.0.0.1"),
        pytest.param("http://[::1]:8080/", id="::1"),
        pytest.param("http://10.0.0.8/admin", id="10.x"),
        pytest.param("http://172.16.4.2/", id="172.16.x"),
        pytest.param("https://192.168.0.1/", id="192.168.x"),
        pytest.param("http://169.254.169.254/latest/meta-data/", id="169.254.x"),
        pytest.param("http://[fe80::1]/", id="fe80::"),
        pytest.param("http://0.0.0.0:8000/", id="0.0.0.0"),
        pytest.param("http://[::ffff:127.0.0.1]/", id="mapped-loopback"),
        pytest.param("http://[fec0::1]/", id="site-local"),
    ],
)
async def test_ip_literal_targets_that_are_not_public_are_refused(url: str) -> None:
    with pytest.raises(URLRefused, match="VAULTGATE_FETCH_ALLOW_PRIVATE=true"):
        await checked_address(httpx.URL(url), resolver=no_dns, allow_private=False)


async def test_localhost_is_refused_through_the_system_resolver() -> None:
    with pytest.raises(URLRefused, match=r"localhost resolves to .*loopback"):
        await checked_address(
            httpx.URL("http://localhost:8080/"), resolver=system_resolver, allow_private=False
        )


@pytest.mark.parametrize(
    ("addresses", "reason"),
    [
        pytest.param(["10.20.30.40"], "private", id="private-only"),
        pytest.param([PUBLIC_IP, "192.168.1.1"], "private", id="public-and-private"),
        pytest.param(["127.0.0.1", PUBLIC_IP], "loopback", id="loopback-first"),
        pytest.param([PUBLIC_IP, "fe80::1"], "link-local", id="public-and-link-local"),
    ],
)
async def test_a_host_name_with_any_non_public_address_is_refused(
    addresses: list[str], reason: str
) -> None:
    dns = fake_dns({"intranet.example": addresses})
    with pytest.raises(URLRefused) as refused:
        await checked_address(
            httpx.URL("https://intranet.example/wiki"), resolver=dns, allow_private=False
        )
    assert "intranet.example resolves to" in str(refused.value)
    assert reason in str(refused.value)


async def test_a_public_host_gives_its_first_checked_address() -> None:
    dns = fake_dns({"public.example": [PUBLIC_IP, "93.184.216.35"]})
    address = await checked_address(
        httpx.URL("https://public.example/"), resolver=dns, allow_private=False
    )
    assert address == PUBLIC_IP


async def test_allow_private_lets_private_targets_through() -> None:
    dns = fake_dns({"nas.example": ["192.168.1.20"]})
    assert (
        await checked_address(httpx.URL("http://nas.example/"), resolver=dns, allow_private=True)
        == "192.168.1.20"
    )
    assert (
        await checked_address(httpx.URL("http://127.0.0.1/"), resolver=no_dns, allow_private=True)
        == "127.0.0.1"
    )


async def test_a_name_that_does_not_resolve_is_a_clear_error() -> None:
    with pytest.raises(PageUnavailable, match="could not be resolved"):
        await checked_address(
            httpx.URL("https://nowhere.example/"), resolver=fake_dns({}), allow_private=False
        )


async def test_a_host_name_idna_cannot_encode_is_a_resolution_error() -> None:
    url = httpx.URL("https://" + "a" * 64 + ".example/")

    with pytest.raises(PageUnavailable, match="could not be resolved"):
        await checked_address(url, resolver=system_resolver, allow_private=False)
