"""Host names as DNS allows them: checked for OBSIDIAN_HOST and for the hosts fetch reaches."""

from __future__ import annotations

MAX_LABEL_LENGTH = 63
MAX_HOST_LENGTH = 253


def host_name_problem(host: str) -> str:
    """What keeps ``host`` (ASCII, IDNA-encoded) from being a DNS name; '' when nothing does.

    Lengths and empty labels only: which characters a label may hold is the caller's rule.
    """
    if len(host) > MAX_HOST_LENGTH:
        return f"it is {len(host)} characters long; DNS allows at most {MAX_HOST_LENGTH}"
    labels = host.removesuffix(".").split(".")
    if any(not label for label in labels):
        return "it has an empty label (two dots in a row, or a leading dot)"
    longest = max(labels, key=len)
    if len(longest) > MAX_LABEL_LENGTH:
        return (
            f"a label is {len(longest)} characters long; DNS allows at most {MAX_LABEL_LENGTH} "
            "between two dots"
        )
    return ""
