"""Comparing values the way a person reads them (pure functions).

NFKC alone lets a Cyrillic ``а`` pass for a Latin ``a``, so values are compared
by a skeleton in the spirit of Unicode TS #39: NFKC, removal of invisible
characters, casefold, then each character mapped to its confusable ASCII
prototype from the Unicode confusables table (shipped by ``confusable-homoglyphs``).
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from importlib import resources

_SPACES = re.compile(r"\s+")
_PUNCT_EDGES = re.compile(r"^[\W_]+|[\W_]+$")


def _invisible(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cf", "Cc", "Mn", "Me") or ch in "\u200b\u2060\ufeff\u00ad"


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    data = json.loads(
        resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    table: dict[str, str] = {}
    for char, glyphs in data.items():
        if len(char) != 1 or char.isascii():
            continue
        for glyph in glyphs:
            target = glyph.get("c", "")
            if len(target) == 1 and target.isascii() and target.isalnum():
                table[char] = target
                break
    return table


def _spaced(text: str) -> str:
    """Every kind of white space and line break (TAB, VT, FF, NEL, U+2028 …) read as one space, before
    invisible characters are removed: a TAB between two words still separates them."""
    return _SPACES.sub(" ", text)


def normalise(value: str) -> str:
    """NFKC, invisible characters removed, casefolded, spaces collapsed, edge punctuation trimmed."""
    text = _spaced(unicodedata.normalize("NFKC", value))
    text = "".join(ch for ch in text if not _invisible(ch))
    text = _SPACES.sub(" ", text.casefold()).strip()
    return _PUNCT_EDGES.sub("", text)


def skeleton(value: str) -> str:
    """The confusable skeleton of a value: look-alikes compare equal.

    Look-alikes are mapped before and after casefolding, because a capital Cyrillic
    ``В`` looks like ``B`` while its lower case ``в`` looks like nothing Latin.
    """
    text = _spaced(unicodedata.normalize("NFKC", value))
    # Decompose so accents (combining marks) fall away as invisible.
    text = "".join(ch for ch in unicodedata.normalize("NFD", text) if not _invisible(ch))
    table = _prototypes()
    text = "".join(table.get(ch, ch) for ch in text)
    text = normalise(text)
    text = "".join(table.get(ch, ch) for ch in text).casefold()
    return text.replace("0", "o").replace("1", "l").replace("|", "l")


_WORD = re.compile(r"[^\W_]+")


def phrase_words(text: str) -> list[str]:
    """The words of ``text`` as its confusable skeleton spells them: what a rejected value is matched by
    inside longer text ("I live in\tPοrlamo." holds the words "porlamo")."""
    return _WORD.findall(skeleton(text))
