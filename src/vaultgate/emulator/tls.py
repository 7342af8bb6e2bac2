"""A certificate like the plugin's: self-signed, CA-flagged, RSA 2048, SHA-256, 365 days.

The plugin serves this one certificate both as its CA and as the TLS leaf (NOTES §1), so a
client that trusts the downloaded PEM as a CA file can verify the connection.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from collections.abc import Sequence

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

COMMON_NAME = "Obsidian Local REST API"
VALIDITY_DAYS = 365


def make_self_signed_certificate(hosts: Sequence[str] = ("127.0.0.1",)) -> tuple[str, str]:
    """(certificate PEM, private key PEM); SAN = IP 127.0.0.1, each IP in ``hosts`` and each
    host name in it.

    Like the plugin's: ``IP:127.0.0.1`` plus the names a user adds in its settings, and no
    ``localhost``, so ``OBSIDIAN_HOST=localhost`` fails here as it does against Obsidian.
    """
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, COMMON_NAME)])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now - dt.timedelta(minutes=1))
        .not_valid_after(now + dt.timedelta(days=VALIDITY_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=True,  # nonRepudiation
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=False,
        )
        .add_extension(
            x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
            ),
            critical=False,
        )
        .add_extension(x509.SubjectAlternativeName(_alt_names(hosts)), critical=False)
        # key identifiers: strict verifiers (Python 3.13's default context) require them
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), critical=False
        )
        .sign(key, hashes.SHA256())
    )
    cert_pem = certificate.public_bytes(serialization.Encoding.PEM).decode("ascii")
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode("ascii")
    return cert_pem, key_pem


def _alt_names(hosts: Sequence[str]) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
    dns: list[str] = []
    for host in hosts:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            if host not in dns:
                dns.append(host)
            continue
        general = x509.IPAddress(address)
        if not address.is_unspecified and general not in names:
            names.append(general)
    names.extend(x509.DNSName(host) for host in dns)
    return names
