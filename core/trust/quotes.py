"""Checking that a quote really stands in its episode (pure functions).

A candidate memory must cite words found in its message: exactly, or after
normalising case and spacing, or by a fuzzy match scoring at least 0.9
(rapidfuzz's partial alignment). The span found is kept with the evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz

THRESHOLD = 0.9
#: Above this many characters only exact and normalised matching is tried (fuzzy alignment is quadratic).
FUZZY_LIMIT = 200_000
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class QuoteMatch:
    start: int
    end: int
    score: float


def _squash(text: str) -> tuple[str, list[int]]:
    """Lower-case with runs of whitespace folded to one space, and a map back to original offsets."""
    out: list[str] = []
    where: list[int] = []
    prev_space = False
    for i, ch in enumerate(text):
        if ch.isspace():
            if prev_space:
                continue
            out.append(" ")
            prev_space = True
        else:
            out.append(ch.lower())
            prev_space = False
        where.append(i)
    return "".join(out), where


def locate(episode: str, quote: str, threshold: float = THRESHOLD) -> QuoteMatch | None:
    """Where ``quote`` stands in ``episode``, or None when it cannot be found well enough."""
    quote = quote.strip()
    if not quote or len(quote) > len(episode) + 8:
        return None
    at = episode.find(quote)
    if at >= 0:
        return QuoteMatch(at, at + len(quote), 1.0)
    hay, where = _squash(episode)
    needle, _ = _squash(quote)
    at = hay.find(needle)
    if at >= 0:
        return QuoteMatch(where[at], where[at + len(needle) - 1] + 1, 1.0)
    if len(hay) > FUZZY_LIMIT or len(needle) < 8:
        return None
    align = fuzz.partial_ratio_alignment(needle, hay)
    if align is None:
        return None
    score = align.score / 100.0
    if score < threshold or align.dest_end <= align.dest_start:
        return None
    return QuoteMatch(where[align.dest_start], where[align.dest_end - 1] + 1, round(score, 4))
