"""Plaintext files the person asks for (memory and training exports), readable by their owner only."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

from veramem_desktop.core.errors import InvalidInputError


def open_private(path: Path, *, overwrite: bool) -> TextIO:
    """A plaintext file the person asked for, created readable by its owner only (mode 0600, also
    when an existing file is overwritten); an existing file is kept unless ``overwrite``."""
    if path.is_dir():
        raise InvalidInputError(f"{path} is a folder; give a file name.")
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if overwrite else os.O_EXCL)
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError:
        raise InvalidInputError(f"{path} exists; choose another name, or overwrite it (--force).") from None
    except OSError as exc:
        raise InvalidInputError(f"Could not write {path}: {exc.strerror}.") from None
    os.fchmod(fd, 0o600)  # an existing file keeps its old mode through O_CREAT
    return os.fdopen(fd, "w", encoding="utf-8")
