"""Where a vault path really is: the one answer every rule is asked on.

A disk has more names for a file than the path the model typed: a symbolic link to a note or
a folder (inside the vault or out of it), a chain of them, a loop. A rule checked on the
typed path alone is walked around through another name, so every operation resolves the real
location of each path it touches (:func:`locate`, on the disk, now) and asks its rules of both
names; a walk of the folder (``engine/walk.py``) follows the same :class:`LinkRules`.

What vaultgate serves (:func:`served_links`), whatever the access policy says:

- a link whose real location is inside the vault, unless that location is hidden (a link
  to ``.obsidian/…`` or ``.trash/`` serves nothing);
- a link that leaves the vault only with ``VAULTGATE_FOLLOW_LINKS=all``, and never when a
  folder on its real path is hidden (``~/.ssh``);
- never a loop of links.

Obsidian itself (:data:`OBSIDIAN_LINKS`, what the emulator walks as the plugin does) follows
folders linked from outside the vault and lists a linked file under its own name whatever its
target; it ignores a folder link whose target lies inside the vault (its files are there
already under their own names) or contains it (a loop). Walks follow that last rule too, so
each real folder is walked once.

For answers that name many files (listings, search hits), resolving each path on the disk
would cost a few system calls per file; :class:`LinkMap` holds the links a walk met, so the
real location of any walked path is a few dictionary lookups away.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from vaultgate.paths import is_hidden

FollowLinks = Literal["inside", "all"]
FOLLOW_LINKS_CHOICES: tuple[FollowLinks, ...] = ("inside", "all")


@dataclass(frozen=True, slots=True)
class LinkRules:
    """Which symbolic links a walk follows and a path may lead through."""

    follow_outside: bool  # folders and files linked from outside the vault
    hidden_targets: bool  # a link whose real location is hidden (a dot-folder, a dot-file)


OBSIDIAN_LINKS = LinkRules(follow_outside=True, hidden_targets=True)
"""What the plugin answers for (and so the emulator): Obsidian lists what a link from outside
holds, and the plugin's own check of a path (its 400 ``40021``) is made on the path's text,
so its reads and writes go wherever a link leads."""


def served_links(follow: FollowLinks) -> LinkRules:
    """What vaultgate serves from the vault folder with ``VAULTGATE_FOLLOW_LINKS=follow``."""
    return LinkRules(follow_outside=follow == "all", hidden_targets=False)


@dataclass(frozen=True, slots=True)
class Location:
    """Where a vault path leads on disk: inside the vault (``inside``, a vault path, '' for
    the vault folder itself), outside it (``outside``, an absolute path), or round a loop of
    links (neither)."""

    path: str
    inside: str | None
    outside: str | None = None

    @property
    def loop(self) -> bool:
        return self.inside is None and self.outside is None

    @property
    def linked(self) -> bool:
        """Does the path lead somewhere other than itself?"""
        return self.inside != self.path


def real_root(folder: str | os.PathLike[str]) -> str:
    """The vault folder's own real location, the base every real path is compared with."""
    return os.path.realpath(folder)


def locate(root: str, path: str) -> Location:
    """Where the vault path ``path`` leads now, following every link on its way (a path that
    does not exist yet leads where its existing folders lead). ``root``: :func:`real_root`."""
    joined = os.path.join(root, *path.split("/")) if path else root
    try:
        real = os.path.realpath(joined)
    except (OSError, ValueError):
        return Location(path, None)
    if _ends_in_loop(real):
        return Location(path, None)
    if real == joined:  # no link on the way: the common case, no string work
        return Location(path, path)
    return _placed(root, path, real)


def _placed(root: str, path: str, real: str) -> Location:
    if real == root:
        return Location(path, "")
    if real.startswith(root + os.sep):
        return Location(path, real[len(root) + 1 :].replace(os.sep, "/"))
    return Location(path, None, real)


def _ends_in_loop(real: str) -> bool:
    """``os.path.realpath`` stops resolving at a loop: the path it gives then is, or runs
    through, a link the system cannot follow."""
    try:
        return stat.S_ISLNK(os.lstat(real).st_mode)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    except ValueError:
        return False


def hidden_outside(real: str) -> bool:
    """Is any folder or file on an absolute real path hidden (``~/.ssh/id``)?"""
    _drive, rest = os.path.splitdrive(real)
    return any(part.startswith(".") for part in rest.split(os.sep) if part)


def passes(location: Location, rules: LinkRules) -> bool:
    """May a path that leads to ``location`` be listed, read or written under ``rules``? The
    access policy is asked separately, of both names."""
    if location.inside is not None:
        return rules.hidden_targets or not is_hidden(location.inside)
    if location.outside is not None:
        return rules.follow_outside and (
            rules.hidden_targets or not hidden_outside(location.outside)
        )
    return False


@dataclass(frozen=True, slots=True)
class LinkMap:
    """The symbolic links a walk met: each link's vault path → its real location (absolute).

    :meth:`locate` answers from them alone, for paths the walk listed: a path with no link on
    its way (most, in most vaults: then the map is empty) leads to itself.
    """

    root: str
    links: Mapping[str, str]
    _tops: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # the first segment of every link: a path outside them all needs no more lookups
        tops = frozenset(link.split("/", 1)[0] for link in self.links)
        object.__setattr__(self, "_tops", tops)

    def may_lead_elsewhere(self, path: str) -> bool:
        """Could a link be on ``path``'s way? False for most paths, at the cost of a lookup."""
        if not self.links:
            return False
        slash = path.find("/")
        return (path if slash < 0 else path[:slash]) in self._tops

    def locate(self, path: str) -> Location:
        links = self.links
        if not self.may_lead_elsewhere(path):
            return Location(path, path)
        # the longest linked folder (or the file itself) on the path decides
        cut = len(path)
        while cut > 0:
            real = links.get(path[:cut])
            if real is not None:
                rest = path[cut + 1 :]
                full = os.path.join(real, *rest.split("/")) if rest else real
                return _placed(self.root, path, full)
            cut = path.rfind("/", 0, cut)
        return Location(path, path)
