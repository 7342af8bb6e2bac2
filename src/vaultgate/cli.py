"""The command line: the only place that reads argv.

vaultgate [serve]   the MCP server over stdio (configured from the environment)
vaultgate serve --http [--host 127.0.0.1] [--port 8765]
                    the MCP server over Streamable HTTP, behind a bearer token
vaultgate emulate   a Local REST API emulator serving a folder of notes
vaultgate demo      the server against the bundled sample vault, through the emulator
vaultgate doctor    checks the configured Obsidian and says how to fix what fails

One grammar (FLAGS): every option may stand before or after the command, a command refuses
the options it has no use for with the same message in both places, and no command means
serve, so `vaultgate --vault DIR` is `vaultgate serve --vault DIR`.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from vaultgate import __version__
from vaultgate.config import DEFAULT_PORT, Settings, vault_folder
from vaultgate.errors import ConfigError
from vaultgate.logs import LOG_FORMAT, hide_in_logs, set_log_level

DEFAULT_PLUGIN_VERSION = "5.1.0"

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from vaultgate.folder.head_start import HeadStart


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format=LOG_FORMAT,
    )
    try:
        match args.command:
            case "serve":
                return _serve(args)
            case "emulate":
                return _emulate(args)
            case "demo":
                from vaultgate.demo import run_demo

                return run_demo(vault_folder(args.vault, "--vault") if args.vault else None)
            case "doctor":
                from vaultgate.doctor import run_doctor

                return run_doctor(_settings(args))
    except ConfigError as exc:
        print(f"vaultgate: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # no input ends in a traceback; -v shows it for a bug report
        logging.getLogger("vaultgate").debug("the command failed", exc_info=True)
        print(
            f"vaultgate: unexpected error ({exc.__class__.__name__}: {exc}); run with -v for "
            "the details, and please report it.",
            file=sys.stderr,
        )
        return 1
    raise AssertionError(f"unhandled command {args.command!r}")  # parse() knows only COMMANDS


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """``argv`` read by the one grammar: every option before or after the command alike,
    ``serve`` when no command is named, and an option the command has no use for refused
    with the same message wherever it stands. ``command`` is always set; every flag's
    ``dest`` too (None, or False for a switch, when not given)."""
    parser, commands = _parsers()
    args = parser.parse_args(argv)
    args.command = args.command or DEFAULT_COMMAND
    command = commands[args.command]
    for flag in FLAGS:
        if args.command not in flag.commands and _given(args, flag):
            command.error(
                f"{flag.name} is an option of {_listed(flag.commands)}, not of {args.command}"
            )
    if args.command == "emulate" and args.vault is None:
        command.error("emulate needs --vault DIR: the folder of notes to serve")
    return args


def _given(args: argparse.Namespace, flag: Flag) -> bool:
    value = getattr(args, flag.dest)
    return value is not None and value is not False  # `--port 0` is given (0 == False)


def _listed(commands: Sequence[str]) -> str:
    if len(commands) <= 2:
        return " and ".join(commands)
    return f"{', '.join(commands[:-1])} and {commands[-1]}"


def _settings(args: argparse.Namespace, *, listen: bool = False) -> Settings:
    settings = _parsed_settings(args, listen=listen)
    _check_certificate(settings)
    return settings


def _parsed_settings(args: argparse.Namespace, *, listen: bool = False) -> Settings:
    overrides: dict[str, Any] = {
        "host": args.host,
        "port": args.port,
        "protocol": args.protocol,
        "cert": args.cert,
        "timeout": args.timeout,
        "search_timeout": args.search_timeout,
        "vault": args.vault,
    }
    if args.no_verify_ssl:
        overrides["verify_ssl"] = "false"
    if listen:  # with --http, --host and --port say where vaultgate listens, not where Obsidian is
        overrides["host"] = overrides["port"] = None
    settings = Settings.from_env(os.environ, overrides)
    if not args.verbose:
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
    http = bool(args.http)
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
    from vaultgate.errors import InvalidPath
    from vaultgate.obsidian.features import Version
    from vaultgate.paths import validate_vault_path

    vault = vault_folder(args.vault, "--vault")
    plugin_version = args.plugin_version or DEFAULT_PLUGIN_VERSION
    try:
        Version.parse(plugin_version)
    except ValueError:
        raise ConfigError(
            f"--plugin-version {plugin_version!r} is not a version; give one such as 3.6.2, "
            f"4.1.7 or {DEFAULT_PLUGIN_VERSION}."
        ) from None
    if args.active is not None:
        try:
            validate_vault_path(args.active)
        except InvalidPath as exc:
            raise ConfigError(f"--active {args.active!r}: {exc}") from None
    return run_emulate_command(
        vault=vault,
        port=DEFAULT_PORT if args.port is None else args.port,
        http_port=args.http_port,
        api_key=args.api_key,
        plugin_version=plugin_version,
        active=args.active,
        extensions=args.extensions,
    )


COMMANDS = ("serve", "emulate", "demo", "doctor")
DEFAULT_COMMAND = "serve"
_CONNECTING = ("serve", "doctor")  # the commands that reach Obsidian
_SUMMARIES = {
    "serve": "run the MCP server over stdio (the default command)",
    "emulate": "serve a folder as the Local REST API does",
    "demo": "a tour of the tools against the bundled sample vault",
    "doctor": "check the connection to Obsidian and say how to fix what fails",
}


@dataclass(frozen=True, slots=True)
class Flag:
    """An option of the one grammar: what it means to each command that takes it (those
    are ``commands``); every other command refuses it, before or after its name."""

    names: tuple[str, ...]
    dest: str
    helps: Mapping[str, str]  # command → what the option means there
    options: Mapping[str, Any] = field(default_factory=dict)  # type, action, choices, metavar
    summary: str | None = None  # for `vaultgate --help`, when the meanings differ

    @property
    def name(self) -> str:
        return self.names[-1]

    @property
    def commands(self) -> tuple[str, ...]:
        return tuple(command for command in COMMANDS if command in self.helps)

    @property
    def switch(self) -> bool:
        return self.options.get("action") == "store_true"

    def overall_help(self) -> str:
        """What the option means, for ``vaultgate --help``, and the commands that take it."""
        meaning = self.summary or next(iter(self.helps.values()))
        return f"{meaning} [{', '.join(self.commands)}]"


def _port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 to 65535 (0: any free port, where listening)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port: ports are 0 to 65535")
    return port


def _each(commands: Sequence[str], meaning: str) -> dict[str, str]:
    return dict.fromkeys(commands, meaning)


_OBSIDIAN_HOST = "OBSIDIAN_HOST: where Obsidian is (default 127.0.0.1)"
_OBSIDIAN_PORT = f"OBSIDIAN_PORT: Obsidian's port (default {DEFAULT_PORT})"
_SERVED_VAULT = (
    "VAULTGATE_VAULT: the vault's folder, served directly (Obsidian only for what needs it; "
    "VAULTGATE_BACKEND=folder: never)"
)

FLAGS: tuple[Flag, ...] = (
    Flag(
        ("--host",),
        "host",
        {
            "serve": f"{_OBSIDIAN_HOST}; with --http, the address to listen on (127.0.0.1)",
            "doctor": _OBSIDIAN_HOST,
        },
        summary=f"{_OBSIDIAN_HOST}; serve --http: the address to listen on",
    ),
    Flag(
        ("--port",),
        "port",
        {
            "serve": f"{_OBSIDIAN_PORT}; with --http, the port to listen on (8765)",
            "emulate": f"the HTTPS port to serve (default {DEFAULT_PORT})",
            "doctor": _OBSIDIAN_PORT,
        },
        {"type": _port_number, "metavar": "PORT"},
        summary=f"{_OBSIDIAN_PORT}; serve --http: the port to listen on; emulate: the port "
        "to serve",
    ),
    Flag(
        ("--protocol",),
        "protocol",
        _each(_CONNECTING, "OBSIDIAN_PROTOCOL: https (default) or http"),
        {"choices": ["http", "https"]},
    ),
    Flag(
        ("--cert",),
        "cert",
        _each(_CONNECTING, "OBSIDIAN_CERT: the plugin's certificate (PEM) to trust"),
        {"metavar": "PEM"},
    ),
    Flag(
        ("--no-verify-ssl",),
        "no_verify_ssl",
        _each(_CONNECTING, "OBSIDIAN_VERIFY_SSL=false: skip certificate checks, this client only"),
        {"action": "store_true"},
    ),
    Flag(
        ("--timeout",),
        "timeout",
        _each(_CONNECTING, "OBSIDIAN_TIMEOUT in seconds (default 10)"),
        {"type": float, "metavar": "SECONDS"},
    ),
    Flag(
        ("--search-timeout",),
        "search_timeout",
        _each(_CONNECTING, "OBSIDIAN_SEARCH_TIMEOUT in seconds (default 60)"),
        {"type": float, "metavar": "SECONDS"},
    ),
    Flag(
        ("--vault",),
        "vault",
        {
            "serve": _SERVED_VAULT,
            "emulate": "the folder of notes to serve (required)",
            "demo": "tour a copy of this vault folder, served from the folder with Obsidian closed",
            "doctor": _SERVED_VAULT,
        },
        {"metavar": "DIR"},
        summary="VAULTGATE_VAULT: the vault's folder, served directly; emulate: the folder to "
        "serve; demo: the folder to tour a copy of",
    ),
    Flag(
        ("--http",),
        "http",
        {
            "serve": "serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio; --host "
            "and --port then say where to listen (default 127.0.0.1:8765) and Obsidian's "
            "address comes from OBSIDIAN_HOST / OBSIDIAN_PORT. Clients send 'Authorization: "
            "Bearer <VAULTGATE_HTTP_TOKEN>' (generated and shown on stderr when unset).",
        },
        {"action": "store_true"},
        summary="serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    ),
    Flag(
        ("--http-port",),
        "http_port",
        {"emulate": "also serve plain HTTP on this port"},
        {"type": _port_number, "metavar": "PORT"},
    ),
    Flag(
        ("--api-key",),
        "api_key",
        {"emulate": "the key clients must send (generated and shown when omitted)"},
        {"metavar": "KEY"},
    ),
    Flag(
        ("--plugin-version",),
        "plugin_version",
        {"emulate": f"the plugin version to emulate (default {DEFAULT_PLUGIN_VERSION})"},
        {"metavar": "VERSION"},
    ),
    Flag(
        ("--active",),
        "active",
        {"emulate": "vault path of the note open in 'Obsidian'"},
        {"metavar": "NOTE"},
    ),
    Flag(
        ("--extensions",),
        "extensions",
        {
            "emulate": "also serve the MCP Tools companion plugin's routes (/search/smart, "
            "templates)"
        },
        {"action": "store_true"},
    ),
    Flag(
        ("-v", "--verbose"),
        "verbose",
        _each(COMMANDS, "debug logging to stderr"),
        {"action": "store_true"},
    ),
)


def _add_flags(parser: argparse.ArgumentParser, command: str | None) -> None:
    """Every flag, on the top-level parser (``command`` None) and on each command's.

    Before the command a flag gets its real default, so every ``dest`` exists; after it the
    default is "not given" (SUPPRESS), so the command's parser never overwrites a value given
    before its name. A command's parser takes even the flags it refuses (hidden from its
    help), so that parse() refuses them with the same message in either place.
    """
    for flag in FLAGS:
        if command is None:
            shown = flag.overall_help()
            default: Any = False if flag.switch else None
        else:
            shown = flag.helps.get(command, argparse.SUPPRESS)
            default = argparse.SUPPRESS
        parser.add_argument(
            *flag.names, dest=flag.dest, help=shown, default=default, **flag.options
        )
    parser.add_argument("--version", action="version", version=f"vaultgate {__version__}")


# argparse's "argument --x: ..." about the command line's shape, not about a value given
_SHAPE = re.compile(r"argument [^:]+: (expected |not allowed |ignored explicit )")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """A bad value of a known option (``--port 70000``, ``--protocol ftp``) is one line,
        as a bad setting is; a command line of the wrong shape keeps argparse's usage."""
        if message.startswith("argument ") and not _SHAPE.match(message):
            self.exit(2, f"{self.prog}: error: {message}\n")
        super().error(message)


def _parser() -> argparse.ArgumentParser:
    return _parsers()[0]


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and each command's. Abbreviations are off: ``--ext`` would mean
    --extensions before ``emulate`` and nothing elsewhere, and a new flag could change what
    an abbreviation in someone's client config means."""
    parser = _Parser(
        prog="vaultgate",
        description="A context-frugal MCP server for Obsidian vaults.",
        epilog="Options may stand before or after the command. Without a command, vaultgate "
        "serves: `vaultgate --vault DIR` is `vaultgate serve --vault DIR`. A command refuses "
        "the options it has no use for. `vaultgate COMMAND --help` lists a command's own.",
        allow_abbrev=False,
    )
    _add_flags(parser, None)
    subparsers = parser.add_subparsers(dest="command", metavar="{" + ",".join(COMMANDS) + "}")
    commands: dict[str, argparse.ArgumentParser] = {}
    for command in COMMANDS:
        commands[command] = subparsers.add_parser(
            command,
            help=_SUMMARIES[command],
            description=_SUMMARIES[command],
            allow_abbrev=False,
        )
        _add_flags(commands[command], command)
    return parser, commands
