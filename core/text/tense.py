"""Which way a clause points in time, read from its auxiliaries and verb forms: past, future or present.

core/text/relative_dates.py asks it which way a month or weekday named without "last" or "next" points:
"we moved in August" is the August before the message, "we're moving in August" and "moving in
August" (a plan with its subject left out) the August after it, "I start in September" (a
present that names a time is a schedule) too. A habitual present ("I usually travel in August")
names no one date. The reading is small and general: the tense marker nearest before the date
expression in its clause decides, else the first one after it; a clause with none is present.
Pure functions, no model (core must not import one).
"""

from __future__ import annotations

import re
from typing import Literal

Tense = Literal["past", "future", "present"]

# Where a clause ends: a sentence mark, a semicolon or colon, a dash, or a coordinating "and/but/so"
# (with or without a comma before it), which usually starts a clause of its own tense ("so" only
# before a subject pronoun: it is more often "so excited" than a clause of its own, but "… so we
# move on Sept 1" is one).
_CLAUSE_BREAK = re.compile(
    r"[.!?;:\n]|\s[-–—]\s|,?\s+\b(?:and|but|because|though|although|while)\b\s+|,\s+"
    r"|,?\s+\bso\s+(?=(?:i|we|he|she|they|you)\b)",
    re.IGNORECASE,
)

_SUBJECT = r"(?:I|we|you|he|she|they|it|[A-Z][a-z]+|(?i:the|a|an|my|our|his|her|their|your)(?:\s+\w+){1,2})"
_ADVERB = r"(?:just|finally|already|recently|also|actually|still|even|never|then|\w+ly)"

_FUTURE = re.compile(
    r"\b(?:will|won't|shall|gonna|might|would)\b|'ll\b"
    r"|\b(?:going|about|due|set|scheduled|supposed) to\b|\bdue\b"
    r"|\b(?:plan|plans|planning|planned|hope|hopes|hoping|want|wants|wanting|intend|intends|intending"
    r"|expect|expects|expecting|aim|aims|aiming|need|needs|have|has|got) to\b"
    r"|\b(?:am|is|are|'m|'re|be)\s+(?:" + _ADVERB + r"\s+)?\w+ing\b"
    r"|\b(?:next|upcoming|soon|tomorrow)\b",
    re.IGNORECASE,
)
_IRREGULAR_PAST = (
    "went|got|had|was|were|saw|met|took|made|bought|ran|came|ate|gave|found|left|began|wrote|read|won|lost|"
    "flew|drove|fell|felt|forgot|heard|held|kept|knew|led|lent|meant|paid|put|rode|rang|rose|said|sold|sent|"
    "shook|shot|sang|sat|slept|spoke|spent|stood|stole|swam|taught|told|thought|threw|understood|woke|wore|"
    "broke|brought|built|caught|chose|did|drew|drank|fought|grew|hid|hit|hurt|quit|gone|been|done|seen|taken|"
    "given|moved|split|cut|shut|spread|cost|bet|burst|cast"
)
# Words ending in "-ed" that are not past verbs.
_NOT_PAST = frozenset(
    [
        "need",
        "feed",
        "seed",
        "bed",
        "red",
        "shed",
        "speed",
        "bleed",
        "breed",
        "proceed",
        "succeed",
        "exceed",
        "indeed",
    ]
)
_PAST = re.compile(
    r"\b(?:was|were|did|didn't|wasn't|weren't|had|hadn't|used to)\b|\bago\b|\byesterday\b"
    r"|\blast (?:night|week|weekend|month|year)\b"
    r"|(?:\b"
    + _SUBJECT
    + r"\s+|'ve\s+|'d\s+|\b(?:have|has|had)(?:n't| not)?\s+|^\s*)(?:"
    + _ADVERB
    + r"\s+)*"
    r"(?P<verb>(?i:[a-z]+ed|" + _IRREGULAR_PAST + r"))\b",
)
# A clause whose subject is left out and that begins with a verb in -ing is a plan: "moving in August".
_LEADING_ING = re.compile(
    r"^\s*(?:(?:oh|so|well|also|ok|okay|and|but)\b[\s,]*)*(?:" + _ADVERB + r"\s+)?\w+ing\b", re.I
)
_HABITUAL = re.compile(
    r"\b(?:usually|always|often|normally|generally|typically|sometimes|never|every|each|most years)\b", re.I
)


def clause_around(text: str, start: int, end: int) -> tuple[str, int]:
    """The clause of ``text`` holding the span ``start:end``, and where the span starts in it."""
    left = 0
    for brk in _CLAUSE_BREAK.finditer(text, 0, start):
        left = brk.end()
    right = len(text)
    if (nxt := _CLAUSE_BREAK.search(text, end)) is not None:
        right = nxt.start()
    return text[left:right], start - left


def _markers(clause: str) -> list[tuple[int, Tense]]:
    found: list[tuple[int, Tense]] = [(m.start(), "future") for m in _FUTURE.finditer(clause)]
    for m in _PAST.finditer(clause):
        verb = m.groupdict().get("verb")
        if verb is not None and verb.lower() in _NOT_PAST:
            continue
        found.append((m.start("verb") if verb else m.start(), "past"))
    if _LEADING_ING.match(clause):
        found.append((0, "future"))
    return sorted(found)


def tense_at(text: str, start: int, end: int) -> Tense:
    """The tense of the clause holding ``text[start:end]``: the marker nearest before the span decides,
    else the first after it; none is present."""
    clause, at = clause_around(text, start, end)
    markers = _markers(clause[:at] + " " * (end - start) + clause[at + end - start :])
    before = [t for pos, t in markers if pos < at]
    if before:
        return before[-1]
    after = [t for pos, t in markers if pos >= at]
    return after[0] if after else "present"


def habitual(text: str, start: int, end: int) -> bool:
    """Whether the clause holding the span says what happens as a rule ("I usually travel in August")."""
    clause, _ = clause_around(text, start, end)
    return _HABITUAL.search(clause) is not None
