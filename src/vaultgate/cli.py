"""The command line: the only place that reads argv.

vaultgate [serve]   the MCP server over stdio (configured from the environment)
vaultgate serve --http [--host 127.0.0.1] [--port 8765]
                    the MCP server over Streamable HTTP, behind a bearer token
vaultgate emulate   a Local REST API emulator serving a folder of notes
vaultgate demo      the server against the bundled sample vault, through the emulator
vaultgate doctor    checks the configured Obsidian and says how to fix what fails
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vaultgate import __version__
from vaultgate.config import DEFAULT_PORT, Settings
from vaultgate.errors import ConfigError
from vaultgate.logs import LOG_FORMAT, hide_in_logs, set_log_level

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from vaultgate.folder.head_start import HeadStart


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.DEBUG if getattr(args, "verbose", False) else logging.WARNING,
        format=LOG_FORMAT,
    )
    command = args.command or "serve"
    try:
        match command:
            case "serve":
                return _serve(args)
            case "emulate":
                _refuse_connection_flags(parser, args, "emulate", allowed=("port",))
                return _emulate(args)
            case "demo":
                from vaultgate.demo import run_demo

                _refuse_connection_flags(parser, args, "demo", allowed=())

                vault = getattr(args, "demo_vault", None)
                return run_demo(Path(vault).expanduser() if vault else None)
            case "doctor":
                from vaultgate.doctor import run_doctor

                return run_doctor(_settings(args))
    except ConfigError as exc:
        print(f"vaultgate: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    parser.error(f"unknown command {command!r}")
    return 2  # pragma: no cover - parser.error exits


def _refuse_connection_flags(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    command: str,
    *,
    allowed: tuple[str, ...],
) -> None:
    """A connection flag given before a subcommand that has no use for it is an error, as it
    is after the subcommand (argparse refuses it there), never silently ignored."""
    for flag in CONNECTION_FLAGS:
        if flag not in (*allowed, "verbose") and getattr(args, flag, None):
            parser.error(f"{command} takes no --{flag.replace('_', '-')}")


def _settings(args: argparse.Namespace, *, listen: bool = False) -> Settings:
    settings = _parsed_settings(args, listen=listen)
    _check_certificate(settings)
    return settings


def _parsed_settings(args: argparse.Namespace, *, listen: bool = False) -> Settings:
    overrides: dict[str, Any] = {
        "host": getattr(args, "host", None),
        "port": getattr(args, "port", None),
        "protocol": getattr(args, "protocol", None),
        "cert": getattr(args, "cert", None),
        "timeout": getattr(args, "timeout", None),
        "search_timeout": getattr(args, "search_timeout", None),
        "vault": getattr(args, "vault_folder", None),
    }
    if getattr(args, "no_verify_ssl", False):
        overrides["verify_ssl"] = "false"
    if listen:  # with --http, --host and --port say where vaultgate listens, not where Obsidian is
        overrides["host"] = overrides["port"] = None
    settings = Settings.from_env(os.environ, overrides)
    if not getattr(args, "verbose", False):
        set_log_level(settings.log_level.upper())
    hide_in_logs(
        secret.reveal()
        for secret in (settings.obsidian.api_key, settings.http.token)
        if secret is not None
    )
    for notice in settings.notices:
        print(f"vaultgate: {notice}", file=sys.stderr)
    return settings


def _check_certificate(settings: Settings) -> None:
    from vaultgate.obsidian.transport import check_certificate

    check_certificate(settings.obsidian)


def _serve(args: argparse.Namespace) -> int:
    http = bool(getattr(args, "http", False))
    # Without OBSIDIAN_API_KEY the server still starts: memory and SDD tools work, and every
    # vault tool answers an error saying where the key is found (errors.APIKeyMissing).
    settings = _parsed_settings(args, listen=http)
    head_start = _head_start(settings)  # first: the child works while the SDK is imported
    try:
        server = _built_server(settings, head_start)
    except BaseException:
        if head_start is not None:
            head_start.close()
        raise
    if not http:
        print(settings.summary(__version__), file=sys.stderr)
        server.run()
        return 0
    from vaultgate.http_server import DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT, run_http

    return run_http(
        server,
        host=args.host or DEFAULT_HTTP_HOST,
        port=DEFAULT_HTTP_PORT if args.port is None else args.port,
        token=settings.http.token,
        summary=settings.summary(__version__),
    )


def _head_start(settings: Settings) -> HeadStart | None:
    """A child process walking the vault folder and catching its index up, when the folder
    serves and its index exists (``folder/head_start.py``)."""
    folder = settings.vault.served_folder
    if folder is None:
        return None
    from vaultgate.engine.index.database import default_location
    from vaultgate.folder.head_start import HeadStart

    return HeadStart.begin(folder, default_location(folder), settings.vault.follow_links)


def _built_server(settings: Settings, head_start: HeadStart | None) -> MCPServer:
    """The server, its modules imported with the garbage collector paused: what they make
    lives as long as the process, and the full collections the imports would otherwise set
    off (50-120 ms on this project's imports) find nothing to free."""
    gc.disable()
    try:
        _check_certificate(settings)
        from vaultgate.server import build_server

        server = build_server(settings, head_start=head_start)
        if settings.vault.served_folder is not None:
            import vaultgate.folder.backend  # noqa: F401  (what the server's start imports)
        return server
    finally:
        gc.freeze()  # out of every later collection too
        gc.enable()


def _emulate(args: argparse.Namespace) -> int:
    from vaultgate.emulator.runner import run_emulate_command

    vault = Path(args.vault).expanduser()
    if not vault.is_dir():
        raise ConfigError(f"--vault {str(vault)!r} is not a folder.")
    return run_emulate_command(
        vault=vault,
        port=DEFAULT_PORT if args.port is None else args.port,
        http_port=args.http_port,
        api_key=args.api_key,
        plugin_version=args.plugin_version,
        active=args.active,
        extensions=args.extensions,
    )


CONNECTION_FLAGS = (
    "host",
    "port",
    "protocol",
    "cert",
    "no_verify_ssl",
    "timeout",
    "search_timeout",
    "verbose",
)


def _add_connection_flags(parser: argparse.ArgumentParser, *, subcommand: bool) -> None:
    """The flags that say how to reach Obsidian, accepted before or after the subcommand.

    On a subcommand they default to "not given" (SUPPRESS), so a flag given before the
    subcommand is not overwritten by the subcommand's own default: `vaultgate --port 27125
    doctor` and `vaultgate doctor --port 27125` mean the same.
    """
    unset: dict[str, Any] = {"default": argparse.SUPPRESS} if subcommand else {}
    group = parser.add_argument_group("Obsidian connection (override the OBSIDIAN_* environment)")
    group.add_argument("--host", help="OBSIDIAN_HOST (default 127.0.0.1)", **unset)
    group.add_argument("--port", type=int, help="OBSIDIAN_PORT (default 27124)", **unset)
    group.add_argument("--protocol", choices=["http", "https"], help="OBSIDIAN_PROTOCOL", **unset)
    group.add_argument("--cert", help="OBSIDIAN_CERT: the plugin's certificate (PEM)", **unset)
    group.add_argument(
        "--no-verify-ssl",
        action="store_true",
        help="OBSIDIAN_VERIFY_SSL=false: skip certificate checks for this client only",
        **unset,
    )
    group.add_argument("--timeout", type=float, help="OBSIDIAN_TIMEOUT in seconds", **unset)
    group.add_argument(
        "--search-timeout", type=float, help="OBSIDIAN_SEARCH_TIMEOUT in seconds", **unset
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="debug logging to stderr", **unset
    )


def _add_vault_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--vault",
        dest="vault_folder",
        help="VAULTGATE_VAULT: the vault's folder, served directly (Obsidian only for what "
        "needs it; VAULTGATE_BACKEND=folder: never)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vaultgate",
        description="A context-frugal MCP server for Obsidian vaults.",
    )
    parser.add_argument("--version", action="version", version=f"vaultgate {__version__}")
    _add_connection_flags(parser, subcommand=False)
    commands = parser.add_subparsers(dest="command")

    serve = commands.add_parser("serve", help="run the MCP server over stdio (the default)")
    _add_connection_flags(serve, subcommand=True)
    serve.add_argument(
        "--http",
        action="store_true",
        help="serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio; --host and --port "
        "then say where to listen (default 127.0.0.1:8765) and Obsidian's address comes from "
        "OBSIDIAN_HOST / OBSIDIAN_PORT. Clients send 'Authorization: Bearer "
        "<VAULTGATE_HTTP_TOKEN>' (generated and shown on stderr when unset).",
    )

    _add_vault_flag(serve)

    emulate = commands.add_parser("emulate", help="serve a folder as the Local REST API does")
    emulate.add_argument("--vault", required=True, help="folder of notes to serve")
    # not given here (SUPPRESS): a --port before `emulate` stands; _emulate applies 27124
    emulate.add_argument(
        "--port", type=int, default=argparse.SUPPRESS, help=f"HTTPS port ({DEFAULT_PORT})"
    )
    emulate.add_argument("--http-port", type=int, help="also serve plain HTTP on this port")
    emulate.add_argument("--api-key", help="the key clients must send (generated if omitted)")
    emulate.add_argument("--plugin-version", default="5.1.0", help="plugin version to emulate")
    emulate.add_argument("--active", help="vault path of the note open in 'Obsidian'")
    emulate.add_argument(
        "--extensions",
        action="store_true",
        help="also serve the MCP Tools companion plugin's routes (/search/smart, templates)",
    )

    demo = commands.add_parser("demo", help="a tour of the tools against the bundled sample vault")
    demo.add_argument(
        "--vault",
        dest="demo_vault",
        help="tour a copy of this vault folder served from the folder, with Obsidian closed",
    )

    doctor = commands.add_parser("doctor", help="check the connection to Obsidian")
    _add_connection_flags(doctor, subcommand=True)
    _add_vault_flag(doctor)
    return parser
