"""Rule-based links between two memories, from shared words and negation."""

from __future__ import annotations

import re

from veramem_desktop.core.llm import LinkVerdict
from veramem_desktop.models.llm.rules.text import NEGATION, content_stems, is_negated

_VALUE = re.compile(r"\b(?:[A-Z][\w'-]+|\d[\d.,:/-]*)\b")


def _values(text: str) -> set[str]:
    """Names and numbers past the first word: the parts that differ when a value changes."""
    first = text.split(maxsplit=1)
    rest = first[1] if len(first) > 1 else ""
    return {v.casefold() for v in _VALUE.findall(rest)} - {"user", "i"}


def link(a: str, b: str) -> LinkVerdict:
    sa, sb = content_stems(NEGATION.sub(" ", a)), content_stems(NEGATION.sub(" ", b))
    if not sa or not sb:
        return LinkVerdict("none", "no content words to compare")
    shared = sa & sb
    jaccard = len(shared) / len(sa | sb)
    containment = len(shared) / min(len(sa), len(sb))
    if containment >= 0.5 and is_negated(a) != is_negated(b):
        return LinkVerdict("contrasts", "one says the other is no longer true")
    va, vb = _values(a), _values(b)
    if containment >= 0.5 and va and vb and va.isdisjoint(vb):
        return LinkVerdict("contrasts", "the same statement with different names or numbers")
    if jaccard >= 0.6:
        return LinkVerdict("supports", f"they share {len(shared)} of {len(sa | sb)} content words")
    if shared and (containment >= 0.3 or len(shared) >= 2):
        return LinkVerdict("related", f"they share {len(shared)} content words")
    return LinkVerdict("none", "few words in common")
