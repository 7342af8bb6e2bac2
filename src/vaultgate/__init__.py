"""vaultgate: a context-frugal MCP server for Obsidian vaults."""

from importlib.metadata import PackageNotFoundError, version

# The version is written once, in pyproject.toml; the installed metadata carries it here.
try:
    __version__ = version("vaultgate")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
