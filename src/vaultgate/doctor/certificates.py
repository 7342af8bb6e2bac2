"""What a certificate names, and whether those names cover a host, as TLS decides it."""

from __future__ import annotations

import ipaddress

from cryptography import x509


def certificate_names(der: bytes) -> list[str]:
    """The subject alternative names of a DER certificate, as 'IP:…' and 'DNS:…'."""
    try:
        certificate = x509.load_der_x509_certificate(der)
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (ValueError, x509.ExtensionNotFound):
        return []
    ips = [f"IP:{address}" for address in names.get_values_for_type(x509.IPAddress)]
    return ips + [f"DNS:{name}" for name in names.get_values_for_type(x509.DNSName)]


def names_cover(names: list[str], host: str) -> bool:
    """Whether a certificate with ``names`` is valid for ``host`` (exact names, '*.' wildcards)."""
    try:
        return f"IP:{ipaddress.ip_address(host)}" in names
    except ValueError:
        pass
    host = host.lower().rstrip(".")
    for name in names:
        if not name.startswith("DNS:"):
            continue
        pattern = name[4:].lower().rstrip(".")
        if pattern == host:
            return True
        if pattern.startswith("*.") and host.partition(".")[2] == pattern[2:]:
            return True
    return False
