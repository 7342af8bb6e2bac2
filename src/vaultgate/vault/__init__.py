"""What the tools do with the vault, independent of MCP: listing, reading, searching."""
