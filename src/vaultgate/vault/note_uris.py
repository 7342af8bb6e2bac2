"""Pure: the URI of a vault file as an MCP resource, and back.

A file is ``vault:///`` followed by its vault path, each segment percent-encoded as RFC 3986
wants it (everything but letters, digits and ``-._~`` as UTF-8 bytes), the slashes between
segments kept: ``Projects/Plan 🚀 #1 100%.md`` is
``vault:///Projects/Plan%20%F0%9F%9A%80%20%231%20100%25.md``. So a ``#`` is never read as a
fragment, a ``%`` never as an escape, and hosts that show the URI show the folders.

The template is ``vault:///{path}``: a host expanding it as RFC 6570 does encodes the slashes
too (``%2F``), and that spelling is read the same. Literal non-ASCII characters (an IRI, as some
hosts send) are read as themselves. The path's own Unicode form is kept both ways: an NFD name
in the vault has an NFD URI.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from vaultgate.errors import InvalidArgument
from vaultgate.paths import validate_vault_path

SCHEME = "vault"
PREFIX = f"{SCHEME}:///"
TEMPLATE = PREFIX + "{path}"


def note_uri(path: str) -> str:
    """The resource URI of the vault file at ``path``."""
    return PREFIX + "/".join(quote(segment, safe="") for segment in path.split("/"))


def path_of(uri: str) -> str:
    """The vault path a resource URI names; InvalidArgument says what a URI looks like."""
    if not uri.startswith(PREFIX):
        raise InvalidArgument(
            f"{uri!r} is not a vaultgate resource: a vault file's URI is {PREFIX}<path>, "
            f"e.g. {note_uri('Projects/Plan 🚀.md')!r}. List them with resources/list."
        )
    encoded = uri[len(PREFIX) :].split("?", 1)[0]
    try:
        path = unquote(encoded, errors="strict")
    except UnicodeDecodeError as exc:
        raise InvalidArgument(
            f"{uri!r} escapes bytes that are no UTF-8 text; encode the path's characters "
            "as UTF-8, as resources/list does."
        ) from exc
    if not path or path.endswith("/"):
        raise InvalidArgument(
            f"{uri!r} names no file: give a vault file's path after {PREFIX}, e.g. "
            f"{note_uri('Projects/Plan.md')!r}; complete the path argument to find one."
        )
    validate_vault_path(path)
    return path
