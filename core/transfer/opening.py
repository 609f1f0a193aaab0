"""What an import may open: regular files, and in a folder only what lies inside it.

- The path a person names is checked with ``os.stat`` before anything opens it: a FIFO, a
  socket or a device (``/dev/zero``, a terminal) is refused with a one-line error, so an
  import never blocks on a pipe nor reads an endless device. A link the person names is
  theirs to name and is followed, to a regular file or folder only.
- Every file is opened with ``O_NONBLOCK`` (a FIFO swapped in after the check cannot block
  the open) and checked again on the open descriptor (``fstat``), which is what is read.
- A folder is walked without following links. A link inside it is resolved: a link to a
  regular file inside the folder is read under the link's name (unless its target is read
  anyway); a link that leads out of the folder, or to anything but a regular file, is not
  followed and is listed as a problem. A file is read only if it is still the file that
  was listed (same device and inode), so nothing swapped in between is read.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.transfer.records import Problem


def kind_of(mode: int) -> str:
    """What a file mode is, in words, for an error message."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def check_input(path: Path) -> os.stat_result:
    """The stat of the path a person asked to import: a regular file or a folder, or a clear error."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise InvalidInputError(f"{path} does not exist.") from None
    except OSError as exc:
        raise InvalidInputError(f"{path} cannot be read ({exc.strerror or type(exc).__name__}).") from None
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        raise InvalidInputError(f"{path} is {kind_of(st.st_mode)}; only regular files and folders are read.")
    return st


def open_regular(path: Path, *, expect: tuple[int, int] | None = None) -> BinaryIO:
    """``path`` opened for reading, refused unless the open descriptor is a regular file (and, with
    ``expect``, the same (device, inode) that was listed). Never blocks on a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InvalidInputError(f"{path} cannot be read ({exc.strerror or type(exc).__name__}).") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InvalidInputError(f"{path} is {kind_of(st.st_mode)}; only regular files are read.")
        if expect is not None and (st.st_dev, st.st_ino) != expect:
            raise InvalidInputError(f"{path} changed while it was being imported; run the import again.")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


@dataclass(frozen=True)
class Listed:
    """A file found in a folder: the name it is imported under, the path read, and its identity."""

    path: Path
    target: Path
    identity: tuple[int, int]


def folder_files(root: Path, suffixes: tuple[str, ...]) -> tuple[list[Listed], list[Problem]]:
    """The regular files under ``root`` whose names end in ``suffixes`` (not in hidden folders, not
    hidden themselves), in name order, and the problems of the links that were not followed."""
    base = root.resolve()
    found: list[Listed] = []
    links: list[tuple[Path, Path, os.stat_result]] = []
    problems: list[Problem] = []
    for folder, dirs, files in os.walk(base, followlinks=False):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:  # links to folders are listed in dirs and are not descended
            path = here / name
            if name.startswith(".") or not name.lower().endswith(suffixes):
                continue
            st = path.lstat()
            if stat.S_ISREG(st.st_mode):
                found.append(Listed(path, path, (st.st_dev, st.st_ino)))
            elif stat.S_ISLNK(st.st_mode):
                outcome = _follow(base, path)
                if isinstance(outcome, Problem):
                    problems.append(outcome)
                else:
                    links.append((path, *outcome))
            else:
                rel = path.relative_to(base).as_posix()
                problems.append(Problem(rel, f"is {kind_of(st.st_mode)}; only regular files are read"))
    seen = {item.identity for item in found}
    for path, target, st in links:
        if (st.st_dev, st.st_ino) not in seen:  # a target read anyway is not read twice
            seen.add((st.st_dev, st.st_ino))
            found.append(Listed(path, target, (st.st_dev, st.st_ino)))
    return sorted(found, key=lambda item: item.path), problems


def _follow(base: Path, link: Path) -> tuple[Path, os.stat_result] | Problem:
    """Where a link inside ``base`` leads, when that is a regular file inside ``base``; else why not."""
    rel = link.relative_to(base).as_posix()
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return Problem(rel, "is a broken or looping link; not followed")
    if not target.is_relative_to(base):
        return Problem(rel, "is a link that leads out of the folder; not followed")
    st = target.stat()
    if not stat.S_ISREG(st.st_mode):
        return Problem(rel, f"is a link to {kind_of(st.st_mode)}; only regular files are read")
    return target, st


def read_bounded(listed: Listed, limit: int) -> bytes:
    """The bytes of a listed file, refused when it holds more than ``limit`` (read no further)."""
    with open_regular(listed.target, expect=listed.identity) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise InvalidInputError(f"is larger than {limit // (1024 * 1024)} MB; split it into smaller files")
    return data
