"""Renames that never clobber: without replacing, and exchanging two names at once.

``os.replace`` removes whatever holds the destination at the instant of the rename, so a
file an editor or a sync client put there a moment earlier is gone without a trace. Linux's
``renameat2`` can instead refuse a taken name (``RENAME_NOREPLACE``) or swap two names
(``RENAME_EXCHANGE``), leaving the file that was displaced under the other name, where it can
be checked and put back. Python has no binding for it, so it is called through the C
library. Where it does not exist (another system, an old C library) or the file system
refuses it (some network and FUSE file systems), :func:`exchange` says so and
:func:`rename_noreplace` falls back to a check followed by a rename: a window of
microseconds (docs/design.md, "Changes made elsewhere").
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2
# what renameat2 answers when this system or file system cannot do what was asked
_UNSUPPORTED = {errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP}

_Renameat2 = Callable[[int, bytes, int, bytes, int], int]


@cache
def _renameat2() -> _Renameat2 | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # a C library older than glibc 2.28, or none
        return None
    function.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    function.restype = ctypes.c_int
    call: _Renameat2 = function
    return call


def _rename(source: Path, destination: Path, flags: int) -> bool:
    """``renameat2``; False when unsupported here, OSError for any other refusal."""
    function = _renameat2()
    if function is None:
        return False
    if function(_AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(destination), flags) == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return False
    raise OSError(code, os.strerror(code), str(source), None, str(destination))


def exchange(first: Path, second: Path) -> bool:
    """Swap the two names at once (both must exist); False, with nothing done, where the
    system or the file system cannot."""
    return _rename(first, second, _RENAME_EXCHANGE)


def rename_noreplace(source: Path, destination: Path) -> None:
    """Rename ``source`` to ``destination``; FileExistsError, with nothing done, when the
    destination is taken, even by a file that appeared an instant before."""
    if _rename(source, destination, _RENAME_NOREPLACE):
        return
    if os.path.lexists(destination):  # the fallback's window: docs/design.md
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(destination))
    os.rename(source, destination)
