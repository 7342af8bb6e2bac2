"""Settings: defaults, each variable, flags over env, one-line errors, the key kept hidden."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from vaultgate.config import (
    DEFAULT_SEARCH_TIMEOUT,
    DEFAULT_TIMEOUT,
    KNOWN_SETTINGS,
    ObsidianSettings,
    Secret,
    Settings,
)
from vaultgate.errors import ConfigError

KEY = "9c1e" * 16


def test_defaults_reach_the_plugin_on_loopback_https() -> None:
    obsidian = Settings.from_env({}).obsidian

    assert obsidian == ObsidianSettings()
    assert obsidian.api_key is None
    assert obsidian.base_url == "https://127.0.0.1:27124"
    assert obsidian.cert is None
    assert obsidian.verify_ssl is True
    assert obsidian.timeout == DEFAULT_TIMEOUT == 10.0
    assert obsidian.search_timeout == DEFAULT_SEARCH_TIMEOUT == 60.0
    assert obsidian.is_loopback


def test_from_env_reads_only_the_mapping_it_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OBSIDIAN_PORT", "1")
    monkeypatch.setenv("OBSIDIAN_API_KEY", KEY)

    assert Settings.from_env({}).obsidian == ObsidianSettings()


@pytest.mark.parametrize(
    ("name", "value", "field", "expected"),
    [
        pytest.param("OBSIDIAN_API_KEY", KEY, "api_key", Secret(KEY), id="api-key"),
        pytest.param("OBSIDIAN_HOST", "192.168.1.5", "host", "192.168.1.5", id="host-ip"),
        pytest.param("OBSIDIAN_HOST", " obsidian.lan ", "host", "obsidian.lan", id="host-trimmed"),
        pytest.param("OBSIDIAN_HOST", "[::1]", "host", "::1", id="host-ipv6-brackets"),
        pytest.param("OBSIDIAN_PORT", "27123", "port", 27123, id="port"),
        pytest.param("OBSIDIAN_PORT", "1", "port", 1, id="port-lowest"),
        pytest.param("OBSIDIAN_PORT", "65535", "port", 65535, id="port-highest"),
        pytest.param("OBSIDIAN_PROTOCOL", "http", "protocol", "http", id="protocol-http"),
        pytest.param("OBSIDIAN_PROTOCOL", "HTTPS", "protocol", "https", id="protocol-upper"),
        pytest.param("OBSIDIAN_VERIFY_SSL", "false", "verify_ssl", False, id="verify-false"),
        pytest.param("OBSIDIAN_VERIFY_SSL", "0", "verify_ssl", False, id="verify-0"),
        pytest.param("OBSIDIAN_VERIFY_SSL", "No", "verify_ssl", False, id="verify-no"),
        pytest.param("OBSIDIAN_VERIFY_SSL", " off ", "verify_ssl", False, id="verify-off"),
        pytest.param("OBSIDIAN_VERIFY_SSL", "TRUE", "verify_ssl", True, id="verify-true"),
        pytest.param("OBSIDIAN_VERIFY_SSL", "yes", "verify_ssl", True, id="verify-yes"),
        pytest.param("OBSIDIAN_TIMEOUT", "2.5", "timeout", 2.5, id="timeout"),
        pytest.param("OBSIDIAN_TIMEOUT", "3600", "timeout", 3600.0, id="timeout-max"),
        pytest.param("OBSIDIAN_SEARCH_TIMEOUT", "120", "search_timeout", 120.0, id="search"),
        pytest.param("OBSIDIAN_PORT", "", "port", 27124, id="empty-means-unset"),
    ],
)
def test_each_environment_variable(name: str, value: str, field: str, expected: Any) -> None:
    obsidian = Settings.from_env({name: value}).obsidian

    assert getattr(obsidian, field) == expected


def test_obsidian_cert_is_a_path_with_home_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "plugin.crt").write_text("pem", encoding="utf-8")

    obsidian = Settings.from_env({"OBSIDIAN_CERT": "~/plugin.crt"}).obsidian

    assert obsidian.cert == tmp_path / "plugin.crt"


def test_ipv6_host_is_bracketed_in_the_base_url() -> None:
    obsidian = Settings.from_env({"OBSIDIAN_HOST": "::1", "OBSIDIAN_PORT": "27123"}).obsidian

    assert obsidian.base_url == "https://[::1]:27123"


def test_flags_override_the_environment(tmp_path: Path) -> None:
    cert = tmp_path / "plugin.crt"
    cert.write_text("pem", encoding="utf-8")
    env = {
        "OBSIDIAN_API_KEY": "from-env",
        "OBSIDIAN_HOST": "10.0.0.1",
        "OBSIDIAN_PORT": "27123",
        "OBSIDIAN_PROTOCOL": "http",
        "OBSIDIAN_VERIFY_SSL": "true",
        "OBSIDIAN_TIMEOUT": "5",
        "OBSIDIAN_SEARCH_TIMEOUT": "90",
    }
    flags: dict[str, Any] = {
        "api_key": KEY,
        "host": "127.0.0.1",
        "port": 27124,
        "protocol": "https",
        "cert": str(cert),
        "verify_ssl": False,
        "timeout": 1.5,
        "search_timeout": 30,
    }

    obsidian = Settings.from_env(env, flags).obsidian

    assert obsidian == ObsidianSettings(
        api_key=Secret(KEY),
        host="127.0.0.1",
        port=27124,
        protocol="https",
        cert=cert,
        verify_ssl=False,
        timeout=1.5,
        search_timeout=30.0,
    )


def test_flags_left_unset_leave_the_environment_alone() -> None:
    env = {"OBSIDIAN_PORT": "27123", "OBSIDIAN_TIMEOUT": "5"}

    obsidian = Settings.from_env(env, {"port": None, "timeout": None}).obsidian

    assert (obsidian.port, obsidian.timeout) == (27123, 5.0)


@pytest.mark.parametrize(
    ("env", "names"),
    [
        pytest.param({"OBSIDIAN_PROTOCOL": "ftp"}, "OBSIDIAN_PROTOCOL", id="protocol"),
        pytest.param({"OBSIDIAN_PORT": "abc"}, "OBSIDIAN_PORT", id="port-not-a-number"),
        pytest.param({"OBSIDIAN_PORT": "0"}, "OBSIDIAN_PORT", id="port-zero"),
        pytest.param({"OBSIDIAN_PORT": "65536"}, "OBSIDIAN_PORT", id="port-too-high"),
        pytest.param({"OBSIDIAN_PORT": "271.24"}, "OBSIDIAN_PORT", id="port-fraction"),
        pytest.param({"OBSIDIAN_HOST": "https://127.0.0.1"}, "OBSIDIAN_HOST", id="host-url"),
        pytest.param({"OBSIDIAN_HOST": "my host"}, "OBSIDIAN_HOST", id="host-space"),
        pytest.param({"OBSIDIAN_HOST": "   "}, "OBSIDIAN_HOST", id="host-blank"),
        pytest.param({"OBSIDIAN_CERT": "/nonexistent/plugin.crt"}, "OBSIDIAN_CERT", id="cert"),
        pytest.param({"OBSIDIAN_VERIFY_SSL": "maybe"}, "OBSIDIAN_VERIFY_SSL", id="verify"),
        pytest.param({"OBSIDIAN_TIMEOUT": "fast"}, "OBSIDIAN_TIMEOUT", id="timeout-text"),
        pytest.param({"OBSIDIAN_TIMEOUT": "0"}, "OBSIDIAN_TIMEOUT", id="timeout-zero"),
        pytest.param({"OBSIDIAN_TIMEOUT": "-3"}, "OBSIDIAN_TIMEOUT", id="timeout-negative"),
        pytest.param({"OBSIDIAN_TIMEOUT": "3601"}, "OBSIDIAN_TIMEOUT", id="timeout-too-long"),
        pytest.param({"OBSIDIAN_TIMEOUT": "nan"}, "OBSIDIAN_TIMEOUT", id="timeout-nan"),
        pytest.param({"OBSIDIAN_TIMEOUT": "inf"}, "OBSIDIAN_TIMEOUT", id="timeout-inf"),
        pytest.param({"OBSIDIAN_SEARCH_TIMEOUT": "x"}, "OBSIDIAN_SEARCH_TIMEOUT", id="search"),
    ],
)
def test_each_bad_value_is_one_clear_line(env: dict[str, str], names: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(env)

    message = str(caught.value)
    assert names in message
    assert "\n" not in message
    bad_value = next(iter(env.values())).strip()
    assert bad_value in message


def test_a_folder_is_not_a_certificate(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a file"):
        Settings.from_env({"OBSIDIAN_CERT": str(tmp_path)})


def test_a_missing_certificate_names_where_the_configured_plugin_serves_one() -> None:
    env = {
        "OBSIDIAN_CERT": "/nonexistent/plugin.crt",
        "OBSIDIAN_HOST": "192.168.1.20",
        "OBSIDIAN_PORT": "27200",
    }
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(env)

    assert "https://192.168.1.20:27200/obsidian-local-rest-api.crt" in str(caught.value)
    assert "27124" not in str(caught.value)


def test_a_bad_flag_is_reported_like_a_bad_variable() -> None:
    with pytest.raises(ConfigError, match="OBSIDIAN_PORT must be a number"):
        Settings.from_env({}, {"port": "eighty"})


def test_the_key_is_optional_and_kept_as_a_secret() -> None:
    assert Settings.from_env({}).obsidian.api_key is None
    assert Settings.from_env({"OBSIDIAN_API_KEY": KEY}).obsidian.api_key == Secret(KEY)


def test_the_key_never_shows_in_repr_or_str() -> None:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": KEY})

    shown = [repr(settings), str(settings), repr(settings.obsidian), f"{settings.obsidian}"]
    shown += [repr(settings.obsidian.api_key), str(settings.obsidian.api_key)]
    assert [text for text in shown if KEY in text] == []
    assert "Secret('***')" in repr(settings)
    assert settings.obsidian.api_key == Secret(KEY)


def test_secrets_compare_by_value() -> None:
    assert Secret(KEY) == Secret(KEY)
    assert Secret(KEY) != Secret("other")
    assert Secret(KEY) != KEY
    assert hash(Secret(KEY)) == hash(Secret(KEY))


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("192.168.1.20", False),
        ("obsidian.lan", False),
        ("localhost.example.com", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert ObsidianSettings(host=host).is_loopback is loopback


@pytest.mark.parametrize(
    "pasted",
    [
        pytest.param(f" {KEY}\n", id="spaces-and-newline"),
        pytest.param(f"\t{KEY}\r\n", id="tab-and-crlf"),
        pytest.param(f'"{KEY}"', id="double-quotes"),
        pytest.param(f" '{KEY}' ", id="single-quotes-and-spaces"),
        pytest.param(f"\u201c{KEY}\u201d", id="curly-double-quotes"),
        pytest.param(f"\u2018{KEY}\u2019", id="curly-single-quotes"),
        pytest.param(f"\u201e{KEY}\u201c\n", id="german-quotes-and-newline"),
        pytest.param(f"\u00ab {KEY} \u00bb", id="guillemets-and-spaces"),
        pytest.param(f"\u201d{KEY}\u201d", id="two-closing-quotes"),
    ],
)
def test_the_key_is_trimmed_of_spaces_and_quotes_with_a_notice(pasted: str) -> None:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": pasted})

    assert settings.obsidian.api_key == Secret(KEY)
    assert len(settings.notices) == 1
    assert "OBSIDIAN_API_KEY" in settings.notices[0]
    assert KEY not in settings.notices[0]


def test_a_clean_key_gives_no_notice() -> None:
    assert Settings.from_env({"OBSIDIAN_API_KEY": KEY}).notices == ()


@pytest.mark.parametrize(
    "key",
    [
        pytest.param("clé-0123456789", id="accent"),
        pytest.param("key\u200b0123456789", id="zero-width-space"),
        pytest.param("key\x00123456789", id="nul"),
        pytest.param("key\t123456789", id="inner-tab"),
        pytest.param("key\n123456789", id="inner-newline"),
        pytest.param("key\udcff123456789", id="undecodable-byte"),
        pytest.param("🔑0123456789", id="emoji"),
        pytest.param("  ''  ", id="only-quotes"),
    ],
)
def test_a_key_an_http_header_cannot_carry_is_one_line_without_the_key(key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({"OBSIDIAN_API_KEY": key})

    message = str(caught.value)
    assert "OBSIDIAN_API_KEY" in message
    assert "\n" not in message
    assert key.strip() == "''" or key not in message


def test_the_http_token_is_trimmed_and_must_be_printable_ascii() -> None:
    token = "t" * 20
    settings = Settings.from_env({"VAULTGATE_HTTP_TOKEN": f'"{token}"\n'})
    assert settings.http.token == Secret(token)
    assert len(settings.notices) == 1

    with pytest.raises(ConfigError, match="VAULTGATE_HTTP_TOKEN holds a character") as caught:
        Settings.from_env({"VAULTGATE_HTTP_TOKEN": "é" * 20})
    assert "é" not in str(caught.value)


@pytest.mark.parametrize(
    "host",
    [
        pytest.param("127.0.0.1:27124", id="with-port"),
        pytest.param("a" * 64 + ".example", id="label-too-long"),
        pytest.param("a..b", id="empty-label"),
        pytest.param("-x.example", id="leading-hyphen"),
        pytest.param("host?x", id="query"),
        pytest.param("user@host", id="userinfo"),
        pytest.param("[::1", id="half-bracket"),
        pytest.param("host\x00name", id="nul"),
        pytest.param("x" * 300, id="too-long"),
    ],
)
def test_a_host_that_is_no_host_name_or_address_is_one_line(host: str) -> None:
    with pytest.raises(ConfigError, match="OBSIDIAN_HOST must be a host name") as caught:
        Settings.from_env({"OBSIDIAN_HOST": host})

    assert "\n" not in str(caught.value)
    assert len(str(caught.value)) < 400


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        pytest.param("obsidian.lan.", "obsidian.lan.", id="trailing-dot"),
        pytest.param("bücher.example", "bücher.example", id="idna"),
        pytest.param("my_host", "my_host", id="underscore"),
        pytest.param("fe80::1%eth0", "fe80::1%eth0", id="ipv6-zone"),
    ],
)
def test_unusual_but_valid_hosts_are_kept(host: str, expected: str) -> None:
    assert Settings.from_env({"OBSIDIAN_HOST": host}).obsidian.host == expected


def test_a_memory_db_inside_a_file_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")

    with pytest.raises(ConfigError, match="is a file, not a folder"):
        Settings.from_env({"VAULTGATE_MEMORY_DB": str(blocker / "sub" / "memory.db")})


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("/tmp/" + "a" * 300 + "/memory.db", id="name-too-long"),
        pytest.param("~no-such-user-vaultgate/memory.db", id="unknown-user"),
        pytest.param("/tmp/a\x00b.db", id="nul"),
    ],
)
def test_an_unusable_memory_db_path_is_one_line(value: str) -> None:
    with pytest.raises(ConfigError, match="VAULTGATE_MEMORY_DB") as caught:
        Settings.from_env({"VAULTGATE_MEMORY_DB": value})

    assert "\n" not in str(caught.value)
    assert len(str(caught.value)) < 400


def test_a_memory_db_in_a_folder_yet_to_be_made_is_accepted(tmp_path: Path) -> None:
    wanted = tmp_path / "new" / "deeper" / "memory.db"

    assert Settings.from_env({"VAULTGATE_MEMORY_DB": str(wanted)}).memory.db == str(wanted)
    assert not (tmp_path / "new").exists()


# --- settings that are not settings, the log level, the summary at start ---------------------


@pytest.mark.parametrize(
    ("name", "closest"),
    [
        pytest.param("OBSIDIAN_APIKEY", "OBSIDIAN_API_KEY", id="apikey"),
        pytest.param("VAULTGATE_READONLY", "VAULTGATE_READ_ONLY", id="readonly"),
        pytest.param("OBSIDIAN_PROTOCAL", "OBSIDIAN_PROTOCOL", id="protocal"),
    ],
)
def test_a_mistyped_setting_is_a_notice_naming_the_closest_one(name: str, closest: str) -> None:
    settings = Settings.from_env({"OBSIDIAN_API_KEY": "k" * 16, name: "x"})

    [notice] = settings.notices
    assert notice.startswith(f"{name} is not a vaultgate setting")
    assert f"did you mean {closest}?" in notice


def test_a_variable_unlike_any_setting_points_at_the_list() -> None:
    settings = Settings.from_env({"VAULTGATE_ZZZ_QQQ_WWW": "1"})

    assert settings.notices == (
        "VAULTGATE_ZZZ_QQQ_WWW is not a vaultgate setting and is ignored; "
        "docs/configuration.md lists the settings.",
    )


def test_known_settings_and_other_variables_give_no_notice() -> None:
    env = {"OBSIDIAN_API_KEY": "k" * 16, "VAULTGATE_TOOLS": "full", "HOME": "/h", "PATH": "/b"}

    assert Settings.from_env(env).notices == ()


@pytest.mark.parametrize(
    ("name", "placeholder"),
    [
        pytest.param("OBSIDIAN_API_KEY", "${user_config.api_key}", id="key"),
        pytest.param("OBSIDIAN_HOST", "${user_config.host}", id="host"),
        pytest.param("OBSIDIAN_PORT", " ${user_config.port}\n", id="port-with-spaces"),
        pytest.param("VAULTGATE_VAULT", "${user_config.vault}", id="vault"),
        pytest.param("VAULTGATE_TOOLS", "${user_config.tools}", id="tools"),
        pytest.param("VAULTGATE_READ_ONLY", "${user_config.read-only}", id="read-only"),
    ],
)
def test_an_extension_setting_left_blank_is_unset_with_a_notice(
    name: str, placeholder: str
) -> None:
    """Claude Desktop passes ${user_config.NAME} on as it is for a blank setting without a
    default: the server starts as if the variable were not there."""
    settings = Settings.from_env({name: placeholder})

    assert replace(settings, notices=()) == Settings.from_env({})
    [notice] = settings.notices
    assert notice.startswith(f"{name} holds an unexpanded ${{user_config.…}} placeholder")
    assert notice.endswith("it is treated as unset.")
    assert placeholder.strip() not in notice


def test_only_a_whole_placeholder_is_taken_for_a_blank_setting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"VAULTGATE_VAULT .* does not exist"):
        Settings.from_env({"VAULTGATE_VAULT": str(tmp_path / "${user_config.vault}")})
    key = "${user_config.api_key}" + KEY
    assert Settings.from_env({"OBSIDIAN_API_KEY": key}).obsidian.api_key == Secret(key)


def test_a_placeholder_in_a_variable_that_is_no_setting_is_only_named_as_such() -> None:
    [notice] = Settings.from_env({"VAULTGATE_VALT": "${user_config.vault}"}).notices

    assert notice.startswith("VAULTGATE_VALT is not a vaultgate setting")


@pytest.mark.parametrize("name", KNOWN_SETTINGS)
def test_an_empty_setting_is_an_unset_one(name: str) -> None:
    assert Settings.from_env({name: ""}) == Settings.from_env({})


@pytest.mark.parametrize("value", ["debug", "INFO", " warning ", "error"])
def test_the_log_level_is_one_of_four(value: str) -> None:
    assert Settings.from_env({"VAULTGATE_LOG_LEVEL": value}).log_level == value.strip().lower()


def test_an_unknown_log_level_is_a_configuration_error() -> None:
    with pytest.raises(ConfigError, match="VAULTGATE_LOG_LEVEL must be one of debug, info"):
        Settings.from_env({"VAULTGATE_LOG_LEVEL": "verbose"})


def test_the_summary_says_what_the_server_will_use_and_never_the_key() -> None:
    key = "5f2b" * 16
    settings = Settings.from_env(
        {"OBSIDIAN_API_KEY": key, "VAULTGATE_READ_ONLY": "true", "VAULTGATE_MEMORY_DB": ":memory:"}
    )

    summary = settings.summary("9.9.9")

    assert key not in summary
    assert "\n" not in summary
    for part in ("vaultgate 9.9.9", "https://127.0.0.1:27124", "key set", "compact", "read-only"):
        assert part in summary
    assert ":memory:" in summary
    assert "no OBSIDIAN_API_KEY" in Settings.from_env({}).summary("9.9.9")
