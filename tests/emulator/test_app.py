"""Authentication, GET /, error shape and routing quirks of the emulated plugin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from vaultgate.emulator.tls import make_self_signed_certificate

from .conftest import API_KEY, Api

pytestmark = pytest.mark.anyio

SHARED = Path(__file__).resolve().parents[3] / "shared" / "obsidian-local-rest-api"


@pytest.mark.parametrize(
    ("method", "url"),
    [
        pytest.param("GET", "/vault/", id="listing"),
        pytest.param("GET", "/vault/Welcome.md", id="file"),
        pytest.param("GET", "/active/", id="active"),
        pytest.param("POST", "/search/simple/?query=plan", id="simple-search"),
        pytest.param("GET", "/tags/", id="tags"),
        pytest.param("GET", "/no/such/route", id="unknown-route"),
    ],
)
async def test_every_route_but_the_exempt_ones_requires_the_key(
    api: Api, method: str, url: str
) -> None:
    async with api(auth=False) as http:
        response = await http.request(method, url)
    assert response.status_code == 401
    assert response.json() == {
        "message": "Authorization required.  Find your API Key in the 'Local REST API with MCP' "
        "section of your Obsidian settings.",
        "errorCode": 40101,
    }


@pytest.mark.parametrize(
    "authorization",
    [
        pytest.param(f"bearer {API_KEY}", id="lower-case-scheme"),
        pytest.param(f"Bearer {API_KEY} ", id="trailing-space"),
        pytest.param(API_KEY, id="no-scheme"),
        pytest.param("Bearer wrong", id="wrong-key"),
    ],
)
async def test_the_key_comparison_is_exact(api: Api, authorization: str) -> None:
    async with api(auth=False) as http:
        response = await http.get("/vault/", headers={"Authorization": authorization})
    assert response.status_code == 401


@pytest.mark.parametrize(
    ("version", "name"),
    [
        pytest.param("3.6.2", "Local REST API", id="3.6.2"),
        pytest.param("4.1.0", "Local REST API & MCP Server", id="4.1.0"),
        pytest.param("4.1.1", "Local REST API with MCP", id="4.1.1"),
    ],
)
async def test_the_auth_message_names_the_plugin_as_that_version_called_it(
    api: Api, version: str, name: str
) -> None:
    async with api(version, auth=False) as http:
        response = await http.get("/vault/")
        manifest = (await http.get("/")).json()["manifest"]
    assert f"'{name}' section" in response.json()["message"]
    assert manifest["name"] == name


@pytest.mark.parametrize(
    ("version", "description", "author_url", "min_app"),
    [
        pytest.param(
            "3.6.2",
            "Get, change or otherwise interact with your notes in Obsidian via a REST API.",
            "https://coddingtonbear.net/",
            "0.12.0",
            id="3.6.2",
        ),
        pytest.param(
            "4.1.7",
            "A secure REST API and Model Context Protocol (MCP) server for your vault.",
            "https://adamcoddington.net/",
            "1.4.0",
            id="4.1.7",
        ),
        pytest.param(
            "5.1.0",
            "A secure REST API and Model Context Protocol (MCP) server for your vault.",
            "https://adamcoddington.net/",
            "1.13.1",
            id="5.1.0",
        ),
    ],
)
async def test_the_manifest_is_the_one_shipped_with_that_version(
    api: Api, version: str, description: str, author_url: str, min_app: str
) -> None:
    async with api(version) as http:
        manifest = (await http.get("/")).json()["manifest"]
    assert manifest["description"] == description
    assert manifest["authorUrl"] == author_url
    assert manifest["minAppVersion"] == min_app


async def test_root_is_open_and_reports_versions_without_private_fields(api: Api) -> None:
    async with api("4.1.7", auth=False, obsidian_version="1.9.0") as http:
        response = await http.get("/")
    body = response.json()
    assert response.status_code == 200
    assert body["status"] == "OK"
    assert body["service"] == "Obsidian Local REST API"
    assert body["authenticated"] is False
    assert body["versions"] == {"obsidian": "1.9.0", "self": "4.1.7"}
    assert body["manifest"]["id"] == "obsidian-local-rest-api"
    assert body["manifest"]["version"] == "4.1.7"
    assert "certificateInfo" not in body
    assert "apiExtensions" not in body


async def test_root_with_the_key_adds_certificate_info_and_extensions(api: Api) -> None:
    cert_pem, _ = make_self_signed_certificate()
    async with api(certificate_pem=cert_pem, extensions=True) as http:
        body = (await http.get("/")).json()
    assert body["authenticated"] is True
    assert 364 < body["certificateInfo"]["validityDays"] <= 365
    assert body["certificateInfo"]["regenerateRecommended"] is False
    (extension,) = body["apiExtensions"]
    assert extension["id"] == "mcp-tools"
    assert {"path": "/search/smart", "authenticated": True} in extension["routes"]


async def test_json_is_pretty_printed_with_two_spaces(api: Api) -> None:
    async with api() as http:
        response = await http.get("/vault/Projects/")
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    assert response.text == json.dumps(response.json(), indent=2, ensure_ascii=False)
    assert response.text.startswith('{\n  "files": [\n    "')


@pytest.mark.parametrize(
    ("method", "url"),
    [
        pytest.param("GET", "/vault", id="vault-without-slash"),
        pytest.param("GET", "/search/simple", id="search-without-slash"),
        pytest.param("GET", "/search/", id="wrong-method"),
        pytest.param("GET", "/mcp/", id="not-emulated"),
        pytest.param("POST", "/search/smart", id="extension-not-loaded"),
    ],
)
async def test_unmatched_routes_are_the_plugins_plain_404(api: Api, method: str, url: str) -> None:
    async with api() as http:
        response = await http.request(method, url)
    assert response.status_code == 404
    assert response.json() == {"message": "Not Found", "errorCode": 40400}


@pytest.mark.parametrize("version", ["3.6.2", "4.1.7", "5.1.0"])
async def test_the_certificate_is_served_without_auth(api: Api, version: str) -> None:
    cert_pem, _ = make_self_signed_certificate()
    async with api(version, auth=False, certificate_pem=cert_pem) as http:
        response = await http.get("/obsidian-local-rest-api.crt")
    assert response.status_code == 200
    assert response.text == cert_pem
    # Express's res.send(string) re-formats the type the plugin set, with the charset added
    assert response.headers["content-type"] == (
        "application/octet-stream; charset=utf-8; filename=obsidian-local-rest-api.crt"
    )


@pytest.mark.parametrize(
    ("version", "status"),
    [
        pytest.param("3.1.0", 404, id="3.1.0"),
        pytest.param("3.2.0", 200, id="3.2.0"),
        pytest.param("3.6.2", 200, id="3.6.2"),
        pytest.param("4.1.7", 200, id="4.1.7"),
        pytest.param("5.1.0", 200, id="5.1.0"),
    ],
)
async def test_the_openapi_document_is_served_without_auth_from_3_2(
    api: Api, version: str, status: int
) -> None:
    async with api(version, auth=False) as http:
        response = await http.get("/openapi.yaml")
    assert response.status_code == status
    if status == 200:
        assert response.headers["content-type"] == "application/yaml; charset=utf-8"
        spec = yaml.safe_load(response.text)
        assert spec["info"]["version"] == version
        assert set(spec) >= {"openapi", "info", "paths"}


@pytest.mark.parametrize("version", ["3.6.2", "4.1.7", "5.1.0"])
def test_each_versions_spec_lists_the_openapi_document(version: str) -> None:
    spec_file = SHARED / {"5.1.0": "openapi.yaml"}.get(version, f"openapi-{version}.yaml")
    if not spec_file.exists():
        pytest.skip("the plugin's OpenAPI files are not in this checkout")
    spec = yaml.safe_load(spec_file.read_text(encoding="utf-8"))
    assert "200" in spec["paths"]["/openapi.yaml"]["get"]["responses"]


async def test_no_certificate_is_a_404(api: Api) -> None:
    async with api(auth=False) as http:
        response = await http.get("/obsidian-local-rest-api.crt")
    assert response.status_code == 404


async def test_cors_is_open_and_preflight_needs_no_key(api: Api) -> None:
    async with api(auth=False) as http:
        preflight = await http.options(
            "/vault/x.md",
            headers={
                "Origin": "https://a.example",
                "Access-Control-Request-Headers": "authorization",
            },
        )
        denied = await http.get("/vault/")
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-methods"] == (
        "GET,HEAD,PUT,PATCH,POST,DELETE,MOVE,COPY"
    )
    assert preflight.headers["access-control-allow-headers"] == "authorization"
    assert denied.headers["access-control-allow-origin"] == "*"
    assert denied.headers["x-response-time"].endswith("ms")


async def test_commands_list_and_unknown_command(api: Api) -> None:
    async with api() as http:
        listed = (await http.get("/commands/")).json()["commands"]
        unknown = await http.post("/commands/no:such-command/")
        known = await http.post(f"/commands/{listed[0]['id']}/")
    assert all(set(command) == {"id", "name"} for command in listed)
    assert unknown.status_code == 404
    assert known.status_code == 204


@pytest.mark.parametrize(
    ("version", "methods"),
    [
        pytest.param("4.0.3", "GET,HEAD,PUT,PATCH,POST,DELETE", id="cors-default"),
        pytest.param("4.1.7", "GET,HEAD,PUT,PATCH,POST,DELETE,MOVE", id="with-move"),
    ],
)
async def test_the_preflight_lists_the_methods_of_that_version(
    api: Api, version: str, methods: str
) -> None:
    async with api(version, auth=False) as http:
        preflight = await http.options("/vault/x.md", headers={"Origin": "https://a.example"})
    assert preflight.headers["access-control-allow-methods"] == methods
