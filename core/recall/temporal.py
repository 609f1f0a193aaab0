"""The date-fit channel: when a question names a time ("last week", "in May", "after Alice's
birthday"), the candidate turns told in that period, or whose words state a date in it, rank as one
more channel of weight ``temporal_weight``.

The period is resolved against the latest turn the caller may see (core/recall/periods.py holds
the date rules); an event the question names is dated by the turn that best matches it. Every row
read here comes through core/recall/candidates.py, whose reads carry the access predicate in their SQL.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from functools import lru_cache

from veramem_desktop.core.recall import periods
from veramem_desktop.core.recall.lexical import Lexical
from veramem_desktop.core.recall.query import asked_time
from veramem_desktop.core.recall.recipes import SearchConfig
from veramem_desktop.core.storage.access import Caller, Sight


def date_fit(
    scores: dict[str, float],
    query: str,
    caller: Caller,
    moment: str,
    *,
    lexical: Lexical,
    config: SearchConfig,
) -> dict[str, float]:
    """The date-fit channel: when the query names a time, the candidate turns whose session was
    held in it (or in the week after, when it is told of), or whose words state a date in it, are
    ranked in their fused order as one more channel of weight ``temporal_weight``."""
    asked = asked_time(query)
    if asked is None:
        return scores
    candidates = lexical.candidates
    anchor = periods.as_day(candidates.latest_time(caller, moment))
    if anchor is None:
        return scores
    period = periods.resolve(asked, anchor, lambda what: event_day(lexical, what, caller, moment))
    if period is None:
        return scores
    ranked = sorted((d for d in scores if d.startswith("ep_")), key=lambda d: -scores[d])
    read_words = set(ranked[:_STATED_TOP])  # reading dates out of words costs about 1 ms a turn
    fits = {
        ep_id
        for ep_id, event_time, content in candidates.told_all(ranked, caller, moment)
        if _fits(period, event_time, content, stated=ep_id in read_words)
    }
    out = dict(scores)
    for r, d in enumerate((d for d in ranked if d in fits), start=1):
        out[d] += config.temporal_weight / (config.rrf_k + r)
    return out


def event_day(lexical: Lexical, what: str, caller: Caller, now: str) -> date | None:
    """The day of the event ``what`` names ("Alice's birthday"): the date the best-matching turn
    states, else the day it was told."""
    found = lexical.bm25("episode", what, Sight(caller, (), False, now), 1)
    if not found:
        return None
    row = lexical.candidates.told(found[0], caller, now)
    told = periods.as_day(row.event_time) if row else None
    if row is None or told is None:
        return None
    stated = periods.stated_days(str(row.content), datetime.fromisoformat(str(row.event_time)))
    return stated[0].start if stated else told


#: words without which a turn states no date (a cheap filter before the date rules run)
_MAY_STATE_DATE = re.compile(
    r"\b(?:\d{4}|yesterday|ago|(?:last|next|this|past|coming)\s+(?:week|weekend|month|year|\w+day)|"
    r"january|february|march|april|june|july|august|september|october|november|december|May)\b",
    re.I,
)


#: the best candidates whose words are read for stated dates (the rest fit by their session's date only)
_STATED_TOP = 100


def _fits(period: periods.Period, event_time: str, content: str, *, stated: bool = True) -> bool:
    """Whether a turn's session was held in the period (or just after it), or its words state a date in it."""
    told = periods.as_day(event_time)
    if told is None:
        return False
    if period.told_in(told):
        return True
    return (
        stated
        and bool(_MAY_STATE_DATE.search(content))
        and any(periods.overlaps(period, p) for p in _stated(content, event_time))
    )


@lru_cache(maxsize=4096)
def _stated(content: str, event_time: str) -> tuple[periods.Period, ...]:
    """The dates a turn states (episodes are immutable, so each is read once)."""
    return tuple(periods.stated_days(content, datetime.fromisoformat(event_time)))
