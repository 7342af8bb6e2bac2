"""Settings: one frozen value, built once from the environment and command-line flags.

Importing this module reads nothing; ``Settings.from_env`` does, and a bad value raises a
ConfigError whose one line the CLI prints before exiting.
"""

from __future__ import annotations

import difflib
import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from vaultgate.errors import ConfigError, InvalidPath, quoted
from vaultgate.hostnames import host_name_problem
from vaultgate.locations import FOLLOW_LINKS_CHOICES, FollowLinks
from vaultgate.paths import normalize_directory
from vaultgate.private_files import data_folder

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 27124
DEFAULT_PROTOCOL: Literal["https"] = "https"
CERTIFICATE_PATH = "/obsidian-local-rest-api.crt"  # where the plugin serves its certificate
DEFAULT_TIMEOUT = 10.0
DEFAULT_SEARCH_TIMEOUT = 60.0
DEFAULT_TOOL_PROFILE = "compact"  # measured: see README "Tool profiles"
LogLevel = Literal["debug", "info", "warning", "error"]
LOG_LEVELS: tuple[LogLevel, ...] = ("debug", "info", "warning", "error")
DEFAULT_LOG_LEVEL: LogLevel = "warning"
KNOWN_SETTINGS = (
    "OBSIDIAN_API_KEY",
    "OBSIDIAN_HOST",
    "OBSIDIAN_PORT",
    "OBSIDIAN_PROTOCOL",
    "OBSIDIAN_CERT",
    "OBSIDIAN_VERIFY_SSL",
    "OBSIDIAN_TIMEOUT",
    "OBSIDIAN_SEARCH_TIMEOUT",
    "VAULTGATE_TOOLS",
    "VAULTGATE_READ_ONLY",
    "VAULTGATE_ALLOW",
    "VAULTGATE_DENY",
    "VAULTGATE_FETCH_ALLOW_PRIVATE",
    "VAULTGATE_HTTP_TOKEN",
    "VAULTGATE_MEMORY_DB",
    "VAULTGATE_SDD_FOLDER",
    "VAULTGATE_PROMPTS_FOLDER",
    "VAULTGATE_LOG_LEVEL",
    "VAULTGATE_VAULT",
    "VAULTGATE_BACKEND",
    "VAULTGATE_FOLLOW_LINKS",
    "VAULTGATE_OBSIDIAN_CONFIG",
)
DEFAULT_SDD_FOLDER = "sdd/"
DEFAULT_PROMPTS_FOLDER = "Prompts/"
MIN_HTTP_TOKEN_LENGTH = 16

# A host name's label holds letters, digits, '-' and '_' (after IDNA encoding).
_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9_-]+(?<!-)")
_QUOTES = ('"', "'")
# What a word processor, a notes app or a chat turns quotes into: never part of a key (which is
# printable ASCII), so any of them at either end is dropped.
_TYPOGRAPHIC_QUOTES = "\u201c\u201d\u201e\u2018\u2019\u201a\u00ab\u00bb\u2039\u203a"

# What an MCP Bundle host (Claude Desktop, through @anthropic-ai/mcpb) passes on unchanged for a
# user_config setting that the user left blank and the manifest gives no default.
_UNFILLED_PLACEHOLDER = re.compile(r"\$\{user_config\.[A-Za-z0-9_.-]+\}")

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class Secret:
    """A string that never shows itself in repr, str, logs or tracebacks."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


@dataclass(frozen=True, slots=True)
class ObsidianSettings:
    """How to reach the Local REST API."""

    api_key: Secret | None = None
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    protocol: Literal["http", "https"] = DEFAULT_PROTOCOL
    cert: Path | None = None
    verify_ssl: bool = True
    timeout: float = DEFAULT_TIMEOUT
    search_timeout: float = DEFAULT_SEARCH_TIMEOUT

    @property
    def base_url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.protocol}://{host}:{self.port}"

    @property
    def certificate_url(self) -> str:
        """Where this plugin serves its certificate: what OBSIDIAN_CERT should hold."""
        return f"{self.base_url}{CERTIFICATE_PATH}"

    @property
    def is_loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


@dataclass(frozen=True, slots=True)
class SafetySettings:
    """What the tools may touch: VAULTGATE_READ_ONLY, VAULTGATE_ALLOW, VAULTGATE_DENY."""

    read_only: bool = False
    allow: tuple[str, ...] = ()  # globs on vault paths; empty = everything
    deny: tuple[str, ...] = ()

    @property
    def restricts_paths(self) -> bool:
        return bool(self.allow or self.deny)


@dataclass(frozen=True, slots=True)
class FetchSettings:
    """The fetch tool: VAULTGATE_FETCH_ALLOW_PRIVATE lets it reach loopback and private hosts."""

    allow_private: bool = False


@dataclass(frozen=True, slots=True)
class HTTPSettings:
    """``serve --http``: VAULTGATE_HTTP_TOKEN, the bearer token clients must send."""

    token: Secret | None = None


def default_memory_db() -> str:
    """``memory.db`` in the platform's user data folder (computed only; nothing is created)."""
    return str(data_folder() / "memory.db")


@dataclass(frozen=True, slots=True)
class MemorySettings:
    """The memory store: VAULTGATE_MEMORY_DB, its SQLite file (``:memory:`` keeps it in RAM)."""

    db: str = field(default_factory=default_memory_db)


@dataclass(frozen=True, slots=True)
class SddSettings:
    """SDD artifacts: VAULTGATE_SDD_FOLDER, the vault folder holding ``<project>/changes/``."""

    folder: str = DEFAULT_SDD_FOLDER  # normalized: 'sdd/', or '' for the vault root


@dataclass(frozen=True, slots=True)
class PromptSettings:
    """MCP prompts from notes: VAULTGATE_PROMPTS_FOLDER, the vault folder whose notes tagged
    ``mcp-tools-prompt`` are offered as prompts (``vaultgate.vault.prompts``)."""

    folder: str = DEFAULT_PROMPTS_FOLDER  # normalized: 'Prompts/', or '' for the vault root


BackendChoice = Literal["auto", "obsidian", "folder"]
BACKEND_CHOICES: tuple[BackendChoice, ...] = ("auto", "obsidian", "folder")


@dataclass(frozen=True, slots=True)
class VaultSettings:
    """Where the vault is read: VAULTGATE_VAULT (a folder) and VAULTGATE_BACKEND.

    ``backend`` is resolved: ``auto`` without a folder is ``obsidian`` (the plugin for
    everything) until the folder is found in Obsidian's vault list (``discover``, see
    ``vaultgate.discovery``); ``auto`` with one serves the folder and asks Obsidian only for
    what needs it.
    """

    folder: Path | None = None
    backend: BackendChoice = "obsidian"
    # VAULTGATE_FOLLOW_LINKS: whether files and folders linked from outside the vault are
    # served ("all") or not ("inside"); see vaultgate.locations
    follow_links: FollowLinks = "inside"
    # ``auto`` asked for (or left as the default) without a folder: look for the folder behind
    # the plugin in Obsidian's vault list
    discover: bool = False
    # VAULTGATE_OBSIDIAN_CONFIG: where Obsidian's vault list (obsidian.json) is, when not in
    # Obsidian's own configuration folder
    obsidian_config: Path | None = None

    @property
    def served_folder(self) -> Path | None:
        """The folder vaultgate serves the vault from; None when Obsidian serves it all."""
        return None if self.backend == "obsidian" else self.folder


@dataclass(frozen=True, slots=True)
class Settings:
    obsidian: ObsidianSettings = field(default_factory=ObsidianSettings)
    safety: SafetySettings = field(default_factory=SafetySettings)
    fetch: FetchSettings = field(default_factory=FetchSettings)
    http: HTTPSettings = field(default_factory=HTTPSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    sdd: SddSettings = field(default_factory=SddSettings)
    prompts: PromptSettings = field(default_factory=PromptSettings)
    vault: VaultSettings = field(default_factory=VaultSettings)
    # VAULTGATE_TOOLS: "compact", "full", or comma-separated tool names (checked by server.py,
    # which knows the names).
    tools: str = DEFAULT_TOOL_PROFILE
    # VAULTGATE_LOG_LEVEL: what goes to stderr (-v means debug whatever this says).
    log_level: LogLevel = DEFAULT_LOG_LEVEL
    # One line each for the user (stderr at start): values that were accepted after a repair,
    # and variables that look like settings but are not.
    notices: tuple[str, ...] = ()

    @classmethod
    def from_env(
        cls, env: Mapping[str, str], overrides: Mapping[str, Any] | None = None
    ) -> Settings:
        """Build settings from ``env``; ``overrides`` (from flags) win over the environment.

        Override keys are the ObsidianSettings field names, and ``vault``; None values are
        ignored. An empty variable is unset, and so is one an extension host left as an
        unexpanded ``${user_config.NAME}`` (with a notice).
        """
        flags = {k: v for k, v in (overrides or {}).items() if v is not None}
        notices = _unknown_settings(env)
        env = _without_unfilled_placeholders(env, notices)

        def raw(name: str, key: str) -> str | None:
            if key in flags:
                return str(flags[key])
            value = env.get(name)
            return value if value not in (None, "") else None

        api_key = _parse_secret("OBSIDIAN_API_KEY", raw("OBSIDIAN_API_KEY", "api_key"), notices)
        protocol = (raw("OBSIDIAN_PROTOCOL", "protocol") or DEFAULT_PROTOCOL).lower()
        if protocol not in ("http", "https"):
            raise ConfigError(f"OBSIDIAN_PROTOCOL must be 'http' or 'https', not {protocol!r}.")
        cert_text = raw("OBSIDIAN_CERT", "cert")
        cert = user_path(cert_text, "OBSIDIAN_CERT") if cert_text else None
        obsidian = ObsidianSettings(
            api_key=api_key,
            host=_parse_host(raw("OBSIDIAN_HOST", "host") or DEFAULT_HOST),
            port=_parse_port(raw("OBSIDIAN_PORT", "port")),
            protocol="http" if protocol == "http" else "https",
            cert=cert,
            verify_ssl=_parse_bool("OBSIDIAN_VERIFY_SSL", raw("OBSIDIAN_VERIFY_SSL", "verify_ssl")),
            timeout=_parse_seconds(
                "OBSIDIAN_TIMEOUT", raw("OBSIDIAN_TIMEOUT", "timeout"), DEFAULT_TIMEOUT
            ),
            search_timeout=_parse_seconds(
                "OBSIDIAN_SEARCH_TIMEOUT",
                raw("OBSIDIAN_SEARCH_TIMEOUT", "search_timeout"),
                DEFAULT_SEARCH_TIMEOUT,
            ),
        )
        if cert is not None and not cert.is_file():
            raise ConfigError(
                f"OBSIDIAN_CERT points at {str(cert)!r}, which is not a file. Download the "
                f"certificate from {obsidian.certificate_url}."
            )
        safety = SafetySettings(
            read_only=_parse_bool("VAULTGATE_READ_ONLY", env.get("VAULTGATE_READ_ONLY"), False),
            allow=_parse_globs("VAULTGATE_ALLOW", env.get("VAULTGATE_ALLOW")),
            deny=_parse_globs("VAULTGATE_DENY", env.get("VAULTGATE_DENY")),
        )
        fetch = FetchSettings(
            allow_private=_parse_bool(
                "VAULTGATE_FETCH_ALLOW_PRIVATE", env.get("VAULTGATE_FETCH_ALLOW_PRIVATE"), False
            )
        )
        http = HTTPSettings(token=_parse_token(env.get("VAULTGATE_HTTP_TOKEN"), notices))
        memory = MemorySettings(db=_parse_memory_db(env.get("VAULTGATE_MEMORY_DB")))
        sdd = SddSettings(folder=_parse_sdd_folder(env.get("VAULTGATE_SDD_FOLDER")))
        prompts = PromptSettings(folder=_parse_prompts_folder(env.get("VAULTGATE_PROMPTS_FOLDER")))
        vault = _parse_vault(
            raw("VAULTGATE_VAULT", "vault"),
            env.get("VAULTGATE_BACKEND"),
            env.get("VAULTGATE_FOLLOW_LINKS"),
            raw("VAULTGATE_OBSIDIAN_CONFIG", "obsidian_config"),
        )
        tools = (env.get("VAULTGATE_TOOLS") or DEFAULT_TOOL_PROFILE).strip() or DEFAULT_TOOL_PROFILE
        return cls(
            obsidian=obsidian,
            safety=safety,
            fetch=fetch,
            http=http,
            memory=memory,
            sdd=sdd,
            prompts=prompts,
            vault=vault,
            tools=tools,
            log_level=_parse_log_level(env.get("VAULTGATE_LOG_LEVEL")),
            notices=tuple(notices),
        )

    def summary(self, version: str) -> str:
        """One line for stderr at start: what this server will use, never the key."""
        key = "key set" if self.obsidian.api_key is not None else "no OBSIDIAN_API_KEY"
        access = "read-only" if self.safety.read_only else "read-write"
        obsidian = f"Obsidian at {self.obsidian.base_url} ({key})"
        if self.vault.backend == "folder":
            where = f"vault folder {self.vault.folder} (Obsidian never asked)"
        elif self.vault.backend == "auto":
            where = f"vault folder {self.vault.folder}, {obsidian} for what needs Obsidian"
        elif self.vault.discover and self.obsidian.is_loopback:
            where = f"{obsidian}; its vault folder looked up in Obsidian's vault list"
        else:
            where = obsidian
        return (
            f"vaultgate {version}: {where}; tools {self.tools}; vault {access}; "
            f"memory {self.memory.db}"
        )


def _unknown_settings(env: Mapping[str, str]) -> list[str]:
    """A notice for each OBSIDIAN_*/VAULTGATE_* variable that is no setting, with the closest
    one: a mistyped name (OBSIDIAN_APIKEY) would otherwise be silently ignored."""
    notices = []
    for name in sorted(env):
        if not name.startswith(("OBSIDIAN_", "VAULTGATE_")) or name in KNOWN_SETTINGS:
            continue
        prefix, _, rest = name.partition("_")
        # compare what follows the prefix: every setting shares OBSIDIAN_ or VAULTGATE_
        same_prefix = {k.partition("_")[2]: k for k in KNOWN_SETTINGS if k.startswith(prefix)}
        close = difflib.get_close_matches(rest, same_prefix, n=1, cutoff=0.6)
        hint = (
            f"did you mean {same_prefix[close[0]]}?"
            if close
            else "docs/configuration.md lists the settings."
        )
        notices.append(f"{name} is not a vaultgate setting and is ignored; {hint}")
    return notices


def _without_unfilled_placeholders(env: Mapping[str, str], notices: list[str]) -> Mapping[str, str]:
    """``env`` without the settings an extension host left as ``${user_config.NAME}``: a
    setting left blank is unset, so the server starts as it would without it.

    The notice never shows the value (it may sit where a key belongs).
    """
    unfilled = sorted(
        name
        for name in KNOWN_SETTINGS
        if name in env and _UNFILLED_PLACEHOLDER.fullmatch(env[name].strip())
    )
    if not unfilled:
        return env
    notices.extend(
        f"{name} holds an unexpanded ${{user_config.…}} placeholder (an extension setting left "
        "blank); it is treated as unset."
        for name in unfilled
    )
    return {name: value for name, value in env.items() if name not in unfilled}


def _parse_log_level(value: str | None) -> LogLevel:
    level = (value or DEFAULT_LOG_LEVEL).strip().lower()
    if level not in LOG_LEVELS:
        raise ConfigError(
            f"VAULTGATE_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {quoted(level)}."
        )
    return level


def _parse_host(value: str) -> str:
    host = value.strip()
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        ipaddress.ip_address(bare)
    except ValueError:
        pass
    else:
        return bare
    if not _is_host_name(bare):
        raise ConfigError(
            f"OBSIDIAN_HOST must be a host name or IP address such as 127.0.0.1 (no scheme, "
            f"port or path: the port goes in OBSIDIAN_PORT), not {quoted(value)}."
        )
    return bare


def _is_host_name(host: str) -> bool:
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        return False
    labels = ascii_host.removesuffix(".").split(".")
    return not host_name_problem(ascii_host) and all(
        _HOST_LABEL.fullmatch(label) for label in labels
    )


def _parse_secret(name: str, value: str | None, notices: list[str]) -> Secret | None:
    """A key or token as pasted: outer whitespace, typographic quotes (“…”, ‘…’, „…“, «…»)
    and one pair of outer straight quotes are dropped (with a notice), and what remains must be
    printable ASCII, as an HTTP header needs.

    Messages never show the value: a position and a length say enough to find the fault.
    """
    if value is None:
        return None
    secret = value.strip()
    typographic = secret.strip(_TYPOGRAPHIC_QUOTES).strip()
    curly = typographic != secret
    secret = typographic
    if len(secret) >= 2 and secret[0] == secret[-1] and secret[0] in _QUOTES:
        secret = secret[1:-1].strip()
    if curly:
        notices.append(
            f"{name} was pasted in typographic quotes (“…” or ‘…’); they were removed "
            f"({len(secret)} characters kept)."
        )
    elif secret != value:
        notices.append(
            f"{name} had spaces, line breaks or quotes around it; they were removed "
            f"({len(secret)} characters kept)."
        )
    if not secret:
        raise ConfigError(f"{name} is empty once spaces and quotes are removed; set the value.")
    for position, char in enumerate(secret, start=1):
        if not " " <= char <= "~":
            raise ConfigError(
                f"{name} holds a character that is not printable ASCII (character {position} "
                f"of {len(secret)}); an HTTP header cannot carry it. Copy the value again, "
                "without extra characters."
            )
    return Secret(secret)


def _parse_port(value: str | None) -> int:
    if value is None:
        return DEFAULT_PORT
    try:
        port = int(value)
    except ValueError:
        raise ConfigError(f"OBSIDIAN_PORT must be a number such as 27124, not {value!r}.") from None
    if not 1 <= port <= 65535:
        raise ConfigError(f"OBSIDIAN_PORT must be between 1 and 65535, not {port}.")
    return port


def _parse_bool(name: str, value: str | None, default: bool = True) -> bool:
    if value is None or value == "":  # empty is unset, as for every other setting
        return default
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ConfigError(f"{name} must be true or false, not {value!r}.")


def _parse_token(value: str | None, notices: list[str]) -> Secret | None:
    if not value:
        return None
    token = _parse_secret("VAULTGATE_HTTP_TOKEN", value, notices)
    assert token is not None
    # A short token can be guessed by anything that can reach the port; never echo it.
    if len(token.reveal()) < MIN_HTTP_TOKEN_LENGTH:
        raise ConfigError(
            f"VAULTGATE_HTTP_TOKEN is too short ({len(token.reveal())} characters); use at least "
            f"{MIN_HTTP_TOKEN_LENGTH} random characters, e.g. the output of "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'."
        )
    return token


def _parse_globs(name: str, value: str | None) -> tuple[str, ...]:
    if value is None:
        return ()
    globs = tuple(part.strip() for part in value.split(",") if part.strip())
    for pattern in globs:
        if pattern.startswith("/") or "\\" in pattern:
            raise ConfigError(
                f"{name} holds {pattern!r}; use vault-relative globs with forward slashes, "
                "e.g. 'Private/**,Journal/*.md'."
            )
    return globs


def _parse_seconds(name: str, value: str | None, default: float) -> float:
    if value is None:
        return default
    try:
        seconds = float(value)
    except ValueError:
        raise ConfigError(
            f"{name} must be a number of seconds such as {default:g}, not {value!r}."
        ) from None
    if not 0 < seconds <= 3600:
        raise ConfigError(f"{name} must be more than 0 and at most 3600 seconds, not {value}.")
    return seconds


def _parse_memory_db(value: str | None) -> str:
    if value is None or not value.strip():
        return default_memory_db()
    if value.strip() == ":memory:":
        return ":memory:"
    if "\0" in value:
        raise ConfigError("VAULTGATE_MEMORY_DB holds a NUL character; give a file path.")
    try:
        path = user_path(value.strip(), "VAULTGATE_MEMORY_DB").absolute()
        _check_memory_path(path)
    except OSError as exc:
        raise ConfigError(
            f"VAULTGATE_MEMORY_DB {quoted(value)} is not a usable path ({exc.__class__.__name__}"
            f"{': ' + exc.strerror if isinstance(exc, OSError) and exc.strerror else ''}). "
            "Give a file path such as ~/.local/share/vaultgate/memory.db, or :memory:."
        ) from None
    return str(path)


def _check_memory_path(path: Path) -> None:
    if path.is_dir():
        raise ConfigError(
            f"VAULTGATE_MEMORY_DB points at the folder {str(path)!r}; give a file path such as "
            f"{str(path / 'memory.db')!r}."
        )
    # The folder is made on the first memory call; a file where a folder must be never works.
    # (Permissions are left to that call: they may change, and only the memory tools need it.)
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ConfigError(
                    f"VAULTGATE_MEMORY_DB is {str(path)!r}, but {str(parent)!r} is a file, not a "
                    "folder. Give a path in a folder, such as ~/.local/share/vaultgate/memory.db."
                )
            return


def _parse_follow_links(value: str | None) -> FollowLinks:
    wanted = (value or "inside").strip().lower() or "inside"
    for choice in FOLLOW_LINKS_CHOICES:
        if choice == wanted:
            return choice
    raise ConfigError(
        f"VAULTGATE_FOLLOW_LINKS must be one of {', '.join(FOLLOW_LINKS_CHOICES)}, not "
        f"{quoted(value or '')}: 'inside' serves only links whose target is in the vault, "
        "'all' also files and folders linked from outside it."
    )


def _parse_vault(
    folder_text: str | None,
    backend_text: str | None,
    follow_text: str | None = None,
    config_text: str | None = None,
) -> VaultSettings:
    follow = _parse_follow_links(follow_text)
    if config_text is not None and "\0" in config_text:
        raise ConfigError("VAULTGATE_OBSIDIAN_CONFIG holds a NUL character; give a file path.")
    # a missing or unreadable file is no error: discovery says why in one line and carries on
    config = user_path(config_text, "VAULTGATE_OBSIDIAN_CONFIG") if config_text else None
    wanted = (backend_text or "auto").strip().lower() or "auto"
    choice = next((c for c in BACKEND_CHOICES if c == wanted), None)
    if choice is None:
        raise ConfigError(
            f"VAULTGATE_BACKEND must be one of {', '.join(BACKEND_CHOICES)}, not "
            f"{quoted(backend_text or '')}."
        )
    if folder_text is None:
        if choice == "folder":
            raise ConfigError(
                "VAULTGATE_BACKEND=folder needs the vault folder: set VAULTGATE_VAULT (or pass "
                "--vault) to the folder that holds the vault's notes."
            )
        return VaultSettings(
            None, "obsidian", follow, discover=choice == "auto", obsidian_config=config
        )
    folder = vault_folder(folder_text)
    return VaultSettings(folder, choice, follow)


def user_path(text: str, setting: str) -> Path:
    """``text`` with a leading ``~`` or ``~user`` expanded; a ConfigError naming ``setting``
    when that home folder cannot be found (``Path.expanduser`` raises RuntimeError)."""
    try:
        return Path(text).expanduser()
    except RuntimeError:
        user = text[1:].split("/", 1)[0].split(os.sep, 1)[0]
        whose = f"the user {user!r}" if user else "this user (HOME is not set)"
        raise ConfigError(
            f"{setting} {quoted(text)} starts with '~', but {whose} has no home folder here; "
            "give the full path."
        ) from None


def vault_folder(text: str, setting: str = "VAULTGATE_VAULT") -> Path:
    """The vault folder, resolved; a ConfigError naming ``setting`` unless it is an existing,
    readable folder."""
    if "\0" in text:
        raise ConfigError(f"{setting} holds a NUL character; give the vault's folder.")
    path = user_path(text, setting)
    try:
        path = path.resolve()
        if not path.exists():
            raise ConfigError(
                f"{setting} {quoted(str(path))} does not exist; give the "
                "folder that holds the vault's notes (the one with .obsidian/ in it)."
            )
        if not path.is_dir():
            raise ConfigError(
                f"{setting} {quoted(str(path))} is a file; give the folder that holds it."
            )
        with os.scandir(path) as entries:  # readable: a folder we cannot list is no vault
            next(entries, None)
    except OSError as exc:
        raise ConfigError(
            f"{setting} {quoted(str(path))} cannot be read ({exc.strerror or exc}); check "
            "its permissions."
        ) from None
    return path


def _parse_sdd_folder(value: str | None) -> str:
    if value is None or not value.strip():
        return DEFAULT_SDD_FOLDER
    try:
        return normalize_directory(value)
    except InvalidPath as exc:
        raise ConfigError(
            f"VAULTGATE_SDD_FOLDER must be a vault-relative folder such as 'sdd/' or "
            f"'Projects/sdd/', not {value!r} ({exc.reason})."
        ) from None


def _parse_prompts_folder(value: str | None) -> str:
    if value is None or not value.strip():
        return DEFAULT_PROMPTS_FOLDER
    try:
        return normalize_directory(value)
    except InvalidPath as exc:
        raise ConfigError(
            f"VAULTGATE_PROMPTS_FOLDER must be a vault-relative folder such as 'Prompts/' or "
            f"'Assistant/Prompts/', not {quoted(value)} ({exc.reason})."
        ) from None
