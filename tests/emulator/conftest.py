"""A small vault built in tmp_path, and apps/clients for any emulated plugin version."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from vaultgate.emulator.app import EmulatorConfig, create_app

API_KEY = "0123456789abcdef" * 4
NOTE_JSON = "application/vnd.olrapi.note+json"
DOCUMENT_MAP = "application/vnd.olrapi.document-map+json"

PLAN = """\
---
tags: [project, work/tasks]
status: active
priority: 42
---
# Plan

Intro with #inline and a link to [[Welcome]], one to [[Nowhere]] and [[space name]].

## Goals

Ship the alpha. ^goal1

### Details

More details here.

## Log

First entry.
"""

WELCOME = """\
# Welcome

Hello #project world. See [[plan]] and ![[pic.png]].
"""

FILES: dict[str, str | bytes] = {
    "Welcome.md": WELCOME,
    "Projects/plan.md": PLAN,
    "Projects/Archive/old.md": (
        "---\nstatus: done\npriority: 3\n---\nOld plan, #project/archived.\n"
    ),
    "Notes/space name.md": "Spaces in the name.\n",
    "Notes/café ☕.md": "Unicode and emoji names. Plan ahead.\n",
    "Notes/50% & more #1.md": "Percent, ampersand and hash.\n",
    "Daily/2024-01-01.md": "---\ntags:\n  - journal/daily\n---\nA day. #journal\n",
    "Images/pic.png": b"\x89PNG\r\n\x1a\nnot really an image",
    "Boards/board.canvas": '{"nodes": []}',
    ".obsidian/app.json": "{}",
    ".trash/deleted.md": "Deleted plan.\n",
}


def build_vault(root: Path, files: dict[str, str | bytes] = FILES) -> Path:
    for relative, content in files.items():
        path = root.joinpath(*relative.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    (root / "empty").mkdir()
    (root / "onlyempty" / "sub").mkdir(parents=True)
    return root


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return build_vault(tmp_path / "vault")


MakeApp = Callable[..., Starlette]
Api = Callable[..., httpx.AsyncClient]


@pytest.fixture
def make_app(vault: Path) -> MakeApp:
    def make(version: str = "5.1.0", **overrides: Any) -> Starlette:
        settings: dict[str, Any] = {"vault": vault, "api_key": API_KEY, "plugin_version": version}
        settings["metadata_cache_timeout"] = 0.0  # the wait is recorded; tests time nothing
        settings.update(overrides)
        return create_app(EmulatorConfig(**settings))

    return make


def client(app: Starlette, *, auth: bool = True) -> httpx.AsyncClient:
    headers = {"Authorization": f"Bearer {API_KEY}"} if auth else {}
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://emulator", headers=headers
    )


@pytest.fixture
def api(make_app: MakeApp) -> Api:
    """``async with api("4.1.7") as http:`` — an authenticated client for that version."""

    def make(version: str = "5.1.0", *, auth: bool = True, **overrides: Any) -> httpx.AsyncClient:
        return client(make_app(version, **overrides), auth=auth)

    return make
