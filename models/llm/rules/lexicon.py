"""Word lists and patterns shared by the rule-based extraction modules."""

from __future__ import annotations

import re

# Adverbs that may sit between "I" and a verb ("I really love …").
ADVERBS = (
    r"(?:really|also|absolutely|totally|just|still|do|now|truly|definitely|actually|kind of|sort of|always)"
)

# A time expression: relative ("yesterday", "last week"), named ("next Friday") or a date.
TIME = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|last (?:night|week|weekend|month|year|\w+day)|"
    r"(?:this|next|last) (?:morning|afternoon|evening|week|weekend|month|year|\w+day|january|february|march|"
    r"april|may|june|july|august|september|october|november|december|thanksgiving|christmas|easter)|"
    r"on (?:mon|tues|wednes|thurs|fri|satur|sun)day|in (?:january|february|march|april|May|june|july|august|"
    r"september|october|november|december)|in \d{4}|\d{4}-\d{2}-\d{2}|"
    r"(?:jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}|\d{1,2}(?:st|nd|rd|th)? (?:of )?"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|earlier|recently|the other day)\b",
    re.IGNORECASE,
)

_IRREGULAR_PAST_TEXT = """
    went got had was were saw met took made bought ran came ate gave found left began wrote read won
    lost flew drove fell felt forgot heard held kept knew led lent meant paid put rode rang rose
    said sold sent set shook shot sang sat slept spoke spent stood stole swam taught told thought
    threw understood woke wore broke brought built caught chose did drew drank fought grew hid hit
    hurt
"""
IRREGULAR_PAST = frozenset(_IRREGULAR_PAST_TEXT.split())

# Words ending in "ed" that are not past tenses.
_NOT_PAST_TEXT = """
    need feed seed bed red shed indeed speed bleed breed proceed succeed exceed
"""
NOT_PAST = frozenset(_NOT_PAST_TEXT.split())
