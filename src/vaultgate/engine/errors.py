"""The engine's errors: what went wrong, in the vault's terms, never as an HTTP answer.

    EngineError                 the root; ``str()`` is a sentence for a log, not for a client
    ├── PathRefused             empty, '.' or '..' segments, a backslash, or out through a
    │                           symlink: the path could leave the vault            (path)
    ├── NotFound                no such file, or no such target in the note   (path, target)
    ├── NotAFile                a file operation on '', a path ending in '/', or a folder
    │                                                                              (path)
    ├── IsAFolder               a folder where only a file can go (a delete for good) (path)
    ├── DestinationExists       a move or copy onto a taken name, without overwrite  (path)
    ├── CannotReplace           overwrite asked, but the destination is a folder
    │                                                                   (path, operation)
    ├── InvalidFrontmatter      the frontmatter the operation needs does not parse  (path)
    ├── InvalidQuery            a search query that fails on a note          (reason, path)
    ├── DiskFailed              the disk refused (a file where a folder should be...)
    │                                                                     (path, reason)
    └── ChangedOnDisk           the note changed on disk between each read and write of a
                                change computed from it, every attempt   (path, attempts)

The PATCH engines keep their own trees (``patch_v2.PatchError``, ``vaultgate.patching``),
as do the query languages (``jsonlogic.JsonLogicError``, ``dql.DqlError``). Each face
translates once, at its boundary: the emulator into the plugin's status and ``errorCode``
(``emulator/apierrors.py``); a backend calling the engine directly into vaultgate's own
errors. These stay outside ``vaultgate.errors`` because their messages are not written
for the model: the face that translates them writes those.
"""

from __future__ import annotations


class EngineError(Exception):
    """Something the engine could not do; the subclass says what, the fields say where."""


class PathRefused(EngineError):
    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"Path {path!r} could leave the vault.")


class NotFound(EngineError):
    def __init__(self, path: str | None = None, target: str | None = None) -> None:
        self.path = path  # None: the text was given, not the note's path
        self.target = target  # None: the file itself is missing
        where = " in ".join(repr(part) for part in (target, path) if part is not None)
        super().__init__(f"Not found: {where or 'the file'}.")


class NotAFile(EngineError):
    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"{path!r} does not name a file.")


class IsAFolder(EngineError):
    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"{path!r} is a folder.")


class DestinationExists(EngineError):
    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(f"{path!r} already exists.")


class CannotReplace(EngineError):
    def __init__(self, path: str, operation: str) -> None:
        self.path = path
        self.operation = operation  # "move" or "copy"
        super().__init__(f"Cannot {operation} onto {path!r}: it is a folder.")


class InvalidFrontmatter(EngineError):
    def __init__(self, path: str | None = None) -> None:
        self.path = path
        super().__init__(f"The frontmatter of {path or 'the note'!r} does not parse.")


class InvalidQuery(EngineError):
    def __init__(self, reason: str, *, path: str | None = None) -> None:
        self.reason = reason
        self.path = path  # the note the query was evaluated on when it failed
        super().__init__(f"{reason} (while processing {path})" if path else reason)


class DiskFailed(EngineError):
    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"Disk operation on {path!r} failed: {reason}")


class ChangedOnDisk(EngineError):
    """An editor or a sync client kept writing the note between each read and the write of
    a change computed from it, so the change was never applied to a stale copy."""

    def __init__(self, path: str, attempts: int, *, set_aside: str | None = None) -> None:
        self.path = path
        self.attempts = attempts
        self.set_aside = set_aside  # a version that lost a race of three writers, kept here
        kept = f" Another program's version was kept as {set_aside!r}." if set_aside else ""
        super().__init__(
            f"{path!r} changed on disk while it was being updated, {attempts} times in a row;"
            f" nothing was written.{kept}"
        )
