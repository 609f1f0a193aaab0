"""Text hygiene shared by every path (pure functions)."""

from __future__ import annotations

import re

#: Largest single message accepted (characters).
MAX_MESSAGE_CHARS = 20_000_000

_SURROGATES = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def storable(text: str) -> tuple[str, int]:
    """Make ``text`` encodable as UTF-8: lone surrogates become U+FFFD.

    Returns the text and how many characters were replaced, so callers can say so.
    """
    fixed, count = _SURROGATES.subn("\ufffd", text)
    return fixed, count


def for_index(text: str) -> str:
    """Text as given to FTS and the embedder: control characters (NUL…) become spaces."""
    return _CONTROL.sub(" ", text)
