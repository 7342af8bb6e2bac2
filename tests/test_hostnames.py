"""DNS's limits on host names, shared by OBSIDIAN_HOST and fetch."""

from __future__ import annotations

import pytest

from vaultgate.hostnames import host_name_problem


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "localhost", "a" * 63 + ".com", "xn--caf-dma.example.", "my_host"]
)
def test_names_within_dns_limits_have_no_problem(host: str) -> None:
    assert host_name_problem(host) == ""


@pytest.mark.parametrize(
    ("host", "problem"),
    [
        pytest.param("a" * 64 + ".com", "a label is 64 characters long", id="label-64"),
        pytest.param("a..b.com", "empty label", id="two-dots"),
        pytest.param(".example.com", "empty label", id="leading-dot"),
        pytest.param(".".join(["a" * 60] * 5), "DNS allows at most 253", id="too-long"),
    ],
)
def test_names_past_dns_limits_say_which(host: str, problem: str) -> None:
    assert problem in host_name_problem(host)
