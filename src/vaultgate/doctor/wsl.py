"""WSL: 127.0.0.1 inside WSL is WSL's own loopback, while Obsidian runs on the Windows side."""

from __future__ import annotations

from pathlib import Path

from vaultgate.config import ObsidianSettings

PROC_VERSION = Path("/proc/version")


def read_proc_version(path: Path = PROC_VERSION) -> str:
    """The kernel's description ('' where there is none: macOS, Windows)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def is_wsl(proc_version: str) -> bool:
    """WSL 1 and 2 kernels say 'Microsoft' or 'microsoft' in /proc/version."""
    return "microsoft" in proc_version.lower()


def wsl_hint(proc_version: str, settings: ObsidianSettings) -> str:
    """What to do when a loopback address refuses under WSL; '' when that is not the case."""
    if not is_wsl(proc_version) or not settings.is_loopback:
        return ""
    return (
        "vaultgate runs in WSL, where 127.0.0.1 is WSL's own loopback and Obsidian runs on the "
        "Windows side. Either turn on WSL's mirrored networking (networkingMode=mirrored in "
        "%UserProfile%\\.wslconfig, then `wsl --shutdown`), which lets 127.0.0.1 reach Windows; "
        "or set OBSIDIAN_HOST to the Windows side's address (the gateway that "
        "`ip route show default` prints), have the plugin listen on it and add that address to "
        "the plugin's subject alternative names (Obsidian → Settings → Local REST API)."
    )
