"""The engine is the vault without HTTP: importing it loads no web framework."""

from __future__ import annotations

from tests.conftest import modules_loaded_by

_HTTP = ("starlette", "uvicorn", "httpx", "vaultgate.emulator")  # web framework, server, client
_IMPORT_THE_ENGINE = """
import pkgutil, sys
import vaultgate.engine
for module in pkgutil.iter_modules(vaultgate.engine.__path__):
    __import__(f"vaultgate.engine.{module.name}")
print("\\n".join(sys.modules))
"""


def test_importing_every_engine_module_loads_no_http_code() -> None:
    loaded = modules_loaded_by(_IMPORT_THE_ENGINE)

    assert "vaultgate.engine.vault" in loaded
    assert [name for name in loaded if name.startswith(_HTTP)] == []
