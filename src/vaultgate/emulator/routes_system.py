"""``GET /``, the certificate download, commands and ``POST /open/``."""

from __future__ import annotations

import datetime as dt
import posixpath
from typing import Any

from cryptography import x509
from starlette.requests import Request
from starlette.responses import Response

from vaultgate.emulator.apierrors import ApiError, ErrorCode
from vaultgate.emulator.context import EmulatorContext, context_of
from vaultgate.emulator.responses import JSON_UTF8, json_response, with_utf8_charset
from vaultgate.emulator.urlpath import decode_component, raw_path
from vaultgate.engine import vaultfs
from vaultgate.engine.behaviour import Behaviour

PLUGIN_ID = "obsidian-local-rest-api"
CERT_NAME = "obsidian-local-rest-api.crt"

MCP_TOOLS_MANIFEST: dict[str, Any] = {
    "id": "mcp-tools",
    "name": "MCP Tools",
    "version": "0.2.31",
    "minAppVersion": "0.15.0",
    "description": (
        "Securely connect Claude Desktop to your vault with semantic search, templates, "
        "and file management capabilities."
    ),
    "author": "Jack Steam",
    "authorUrl": "https://github.com/jacksteamdev",
    "isDesktopOnly": True,
    "dir": ".obsidian/plugins/mcp-tools",
}
MCP_TOOLS_ROUTES = ("/search/smart", "/templates/execute")

# A handful of Obsidian's core commands, so GET /commands/ looks like a real vault's.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("app:go-back", "Navigate back"),
    ("app:go-forward", "Navigate forward"),
    ("app:open-settings", "Open settings"),
    ("daily-notes", "Daily notes: Open today's daily note"),
    ("editor:save-file", "Save current file"),
    ("editor:toggle-bold", "Toggle bold"),
    ("editor:toggle-italics", "Toggle italics"),
    ("global-search:open", "Search: Search in all files"),
    ("graph:open", "Graph view: Open graph view"),
    ("workspace:close", "Close current tab"),
    ("workspace:split-vertical", "Split right"),
)


def manifest(behaviour: Behaviour) -> dict[str, Any]:
    """The plugin's manifest.json at that version, plus the ``dir`` Obsidian adds on load."""
    if behaviour.mcp_manifest:
        description = "A secure REST API and Model Context Protocol (MCP) server for your vault."
        author_url = "https://adamcoddington.net/"
    else:
        description = (
            "Get, change or otherwise interact with your notes in Obsidian via a REST API."
        )
        author_url = "https://coddingtonbear.net/"
    return {
        "id": PLUGIN_ID,
        "name": behaviour.plugin_name,
        "version": behaviour.version_text,
        "minAppVersion": behaviour.min_app_version,
        "description": description,
        "author": "Adam Coddington",
        "authorUrl": author_url,
        "isDesktopOnly": True,
        "dir": f".obsidian/plugins/{PLUGIN_ID}",
    }


def is_authenticated(context: EmulatorContext, request: Request) -> bool:
    return request.headers.get("authorization") == f"Bearer {context.config.api_key}"


async def root(request: Request) -> Response:
    context = context_of(request)
    behaviour = context.behaviour
    authenticated = is_authenticated(context, request)
    body: dict[str, Any] = {
        "status": "OK",
        "manifest": manifest(behaviour),
        "versions": {"obsidian": context.config.obsidian_version, "self": behaviour.version_text},
        "service": "Obsidian Local REST API",
        "authenticated": authenticated,
    }
    if authenticated:
        info = certificate_info(context.config.certificate_pem)
        if info is not None:
            body["certificateInfo"] = info
        body["apiExtensions"] = _extensions(context)
    return json_response(body)


def certificate_info(pem: str | None) -> dict[str, Any] | None:
    """Days left and whether the plugin would advise regenerating (no SAN for 127.0.0.1)."""
    if not pem:
        return None
    try:
        certificate = x509.load_pem_x509_certificate(pem.encode("ascii"))
    except ValueError:
        return None
    left = certificate.not_valid_after_utc - dt.datetime.now(dt.UTC)
    try:
        names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName)
        up_to_standard = bool(names.value.get_values_for_type(x509.IPAddress))
    except x509.ExtensionNotFound:
        up_to_standard = False
    return {
        "validityDays": left.total_seconds() / 86400,
        "regenerateRecommended": not up_to_standard,
    }


def _extensions(context: EmulatorContext) -> list[dict[str, Any]]:
    if not context.config.extensions:
        return []
    if not context.behaviour.at_least("5.0.0"):
        return [dict(MCP_TOOLS_MANIFEST)]
    routes = [{"path": path, "authenticated": True} for path in MCP_TOOLS_ROUTES]
    return [{**MCP_TOOLS_MANIFEST, "routes": routes, "mcpTools": []}]


async def certificate(request: Request) -> Response:
    pem = context_of(request).config.certificate_pem
    if not pem:
        raise ApiError(status=404)
    # res.send(string) adds the charset to what the plugin set, parameters sorted by name
    content_type = with_utf8_charset(f'application/octet-stream; filename="{CERT_NAME}"')
    return Response(pem.encode("ascii"), headers={"Content-Type": str(content_type)})


async def openapi_yaml(request: Request) -> Response:
    """``GET /openapi.yaml`` (3.2.0+, no key needed): 200 ``application/yaml``. The plugin
    serves its own spec; the emulator does not ship it, so it serves a stub naming the
    version (a departure, docs/design.md)."""
    behaviour = context_of(request).behaviour
    if not behaviour.serves_openapi:
        raise ApiError(status=404)
    stub = (
        f'openapi: "{behaviour.openapi_version}"\n'
        "info:\n"
        '  title: "Local REST API for Obsidian"\n'
        f'  version: "{behaviour.version_text}"\n'
        "  description: |\n"
        "    vaultgate's emulator of the plugin. The plugin serves its full spec here\n"
        f"    (docs/openapi.yaml at tag {behaviour.version_text}).\n"
        "paths: {}\n"
    )
    return Response(
        stub.encode("utf-8"), headers={"Content-Type": "application/yaml; charset=utf-8"}
    )


def _commands(request: Request) -> tuple[tuple[str, str], ...]:
    return COMMANDS + context_of(request).config.extra_commands


async def commands(request: Request) -> Response:
    return json_response({"commands": [{"id": i, "name": n} for i, n in _commands(request)]})


async def command_execute(request: Request) -> Response:
    """204 and a record in ``state.executed_commands``; an unknown id is 404 ``40400``."""
    command_id = request.path_params["command_id"]
    if command_id not in dict(_commands(request)):
        raise ApiError(status=404)
    context_of(request).state.executed_commands.append(command_id)
    return Response(status_code=204)


async def open_file(request: Request) -> Response:
    """``POST /open/{path}?newLeaf=``: open the note as a wikilink would, creating it if the
    link resolves to nothing (``.md`` added to a bare name); it becomes the active file.

    200 with an empty body, as the plugin's ``res.json()`` sends it.
    """
    context = context_of(request)
    state = context.state
    encoded = raw_path(request.scope).removeprefix("/open/")
    path = decode_component(encoded)
    resolved = posixpath.normpath(posixpath.join("/vault", path))
    if path.startswith("/") or not (resolved == "/vault" or resolved.startswith("/vault/")):
        raise ApiError(ErrorCode.PATH_TRAVERSAL_NOT_ALLOWED)
    new_leaf = request.query_params.get("newLeaf", "false") not in ("false", "")
    if path:
        # Obsidian resolves the link through its index, which has no hidden files
        opened = path if state.is_file(path) else state.resolve_link(path, "")
        if opened is None:
            opened = path if posixpath.splitext(path)[1] else f"{path}.md"
            if state.on_disk(opened) is None:  # a hidden file that exists is not emptied
                vaultfs.write_text(state, opened, "")
        state.active_file = opened
        state.opened.append((opened, new_leaf))
    return Response(b"", headers={"Content-Type": JSON_UTF8})  # res.json() sets the charset
