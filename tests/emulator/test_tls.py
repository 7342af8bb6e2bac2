"""The self-signed certificate has the plugin's shape."""

from __future__ import annotations

import ipaddress

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from vaultgate.emulator.tls import make_self_signed_certificate


def test_the_certificate_matches_the_plugins() -> None:
    cert_pem, key_pem = make_self_signed_certificate(["127.0.0.1", "192.168.1.5", "0.0.0.0"])
    cert = x509.load_pem_x509_certificate(cert_pem.encode())
    key = serialization.load_pem_private_key(key_pem.encode(), password=None)
    assert isinstance(key, rsa.RSAPrivateKey)
    assert key.key_size == 2048
    assert cert.public_key().public_numbers() == key.public_key().public_numbers()
    assert isinstance(cert.signature_hash_algorithm, hashes.SHA256)
    common_name = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value
    assert common_name == "Obsidian Local REST API"
    assert cert.issuer == cert.subject
    constraints = cert.extensions.get_extension_for_class(x509.BasicConstraints)
    assert constraints.critical
    assert constraints.value.ca
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert names.get_values_for_type(x509.IPAddress) == [
        ipaddress.ip_address("127.0.0.1"),
        ipaddress.ip_address("192.168.1.5"),
    ]
    assert names.get_values_for_type(x509.DNSName) == []
    assert (cert.not_valid_after_utc - cert.not_valid_before_utc).days == 365


def test_by_default_the_certificate_names_only_127_0_0_1_as_the_plugins_does() -> None:
    names = _alt_names(make_self_signed_certificate()[0])

    assert names.get_values_for_type(x509.IPAddress) == [ipaddress.ip_address("127.0.0.1")]
    assert names.get_values_for_type(x509.DNSName) == []


def test_host_names_given_are_added_as_in_the_plugins_settings() -> None:
    names = _alt_names(make_self_signed_certificate(["127.0.0.1", "obsidian.lan", "localhost"])[0])

    assert names.get_values_for_type(x509.DNSName) == ["obsidian.lan", "localhost"]


def _alt_names(cert_pem: str) -> x509.SubjectAlternativeName:
    cert = x509.load_pem_x509_certificate(cert_pem.encode())
    return cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
