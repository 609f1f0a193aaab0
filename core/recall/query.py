"""Query analysis for search (pure functions, no IO).

FTS5 match expressions, granularity routing, temporal intent, the names a question mentions and the
time it asks about. The words and entities of a text are core/text/terms.py's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from veramem_desktop.core.text.terms import entities


def fts_match(terms: list[str], op: str = "OR") -> str | None:
    """An FTS5 MATCH expression of ``terms`` joined by ``op`` ("OR" or "AND"), each quoted (no
    syntax injection); None for no terms."""
    if op not in ("OR", "AND"):
        raise ValueError(f"unknown operator {op!r}")
    if not terms:
        return None
    return f" {op} ".join('"' + t.replace('"', '""') + '"' for t in terms)


Route = str  # "facts" | "raw" | "summaries" | "dual"

_RAW = re.compile(
    r"\b(exact(ly)?|verbatim|word for word|quote|what did (i|you|he|she|they) (say|write|tell)|"
    r"said|mentioned|told)\b",
    re.I,
)
_SUMMARY = re.compile(r"\b(summar(y|ise|ize)|overall|overview|in general|recap|gist|big picture)\b", re.I)
_JOIN = re.compile(r"\b(and|both|compare|between|versus|vs\.?|together|also)\b", re.I)


def route_for(query: str) -> Route:
    """Rule-based granularity routing: no model call."""
    if _SUMMARY.search(query):
        return "summaries"
    if _RAW.search(query):
        return "raw"
    names = {e for e in entities(query) if not e[0].isdigit()}
    if len(names) >= 2 or _JOIN.search(query):
        return "dual"
    return "facts"


@dataclass(frozen=True)
class TemporalIntent:
    kind: str | None  # None | "latest" | "when" | "since" | "before"
    phrase: str | None = None  # the time expression after since/before/after


#: words saying "at present": when a question asks, never what it asks about ("who's my dentist these days?")
NOW = re.compile(
    r"\b(?:right now|for now|now|nowadays|these days|at the moment|at the minute|at present|presently|"
    r"currently|current)\b",
    re.I,
)
_LATEST = re.compile(r"\b(latest|most recent(ly)?|newest|last time)\b", re.I)
_WHEN = re.compile(r"\b(when|what (date|day|year|month|time)|how long ago|what year)\b", re.I)
_SINCE = re.compile(r"\b(since|after)\s+(.+?)(\?|$|,)", re.I)
_BEFORE = re.compile(r"\b(before|until|prior to)\s+(.+?)(\?|$|,)", re.I)
#: "in the last two weeks", "over the past month": a bound counted back from now
_WITHIN = re.compile(r"\b(?:in|during|over|within) the (last|past)\s+(.+?)(\?|$|,)", re.I)


#: "when" asked in the present ("when is my rent due?", "what day does Maya have swimming?"): the date of
#: what holds now, not when something happened
_WHEN_NOW = re.compile(
    r"\b(?:when|what (?:date|day|year|month|time))(?:['’]s|\s+(?:is|are|am|do|does)\b)", re.I
)


def temporal_intent(query: str, *, since: bool = True) -> TemporalIntent:
    """What a question asks of time. ``since`` False: "since", "after" and "in the last" bound nothing (their
    words named no time: "who looks after Maya now?")."""
    if since and (m := _WITHIN.search(query)):
        return TemporalIntent("since", f"the last {m.group(2).strip()}")
    if since and (m := _SINCE.search(query)):
        return TemporalIntent("since", m.group(2).strip())
    if m := _BEFORE.search(query):
        return TemporalIntent("before", m.group(2).strip())
    if _LATEST.search(query) or NOW.search(query):
        return TemporalIntent("latest")
    if _WHEN.search(query) and not _WHEN_NOW.search(query):
        return TemporalIntent("when")
    return TemporalIntent(None)


def names_in(text: str, names: Iterable[str]) -> list[str]:
    """The known names (e.g. speakers) that ``text`` mentions as whole words, case-insensitive,
    possessive allowed ("Caroline's"); each once, in the order of ``names``."""
    found: list[str] = []
    for name in names:
        if (
            name
            and name not in found
            and re.search(r"(?<!\w)" + re.escape(name) + r"(?:['\u2019]s)?(?!\w)", text, re.IGNORECASE)
        ):
            found.append(name)
    return found


@dataclass(frozen=True)
class AskedTime:
    """The time a question asks about, as written: ``kind`` is "day", "month" ("may 2023" or "june"),
    "year", "season" ("last summer", "summer 2023"), "holiday" ("christmas 2022", "easter 2023"), "last"
    ("week", "month", "year"), or "before"/"after" with
    ``value`` "count|unit|what" (a written date, or an event such as "Alice's birthday")."""

    kind: str
    value: str


_MONTH_WORD = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
_WRITTEN_DAY = (
    r"(?:" + _MONTH_WORD + r"\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}"
    r"|\d{1,2}(?:st|nd|rd|th)?(?:\s+of)?\s+" + _MONTH_WORD + r"\.?,?\s+\d{4}|\d{4}-\d{2}-\d{2})"
)
_COUNT = r"(?:\d{1,2}|an?|one|two|three|four|five|six|a few|few|a couple of|couple of|the)"
_SPAN_FROM = re.compile(
    r"\b(?:(?P<n>" + _COUNT + r")\s+|last\s+)?(?P<unit>day|week|weekend|fortnight|month)s?\s+"
    r"(?P<rel>before|after)\s+(?P<what>" + _WRITTEN_DAY + r"\b|[^?.,;]+?(?=\s*(?:[?.,;]|$)))",
    re.I,
)
_ASKED_DAY = re.compile(r"\b(" + _WRITTEN_DAY + r")\b", re.I)
_ASKED_MONTH = re.compile(
    r"\b(?:(?:in|during|of|since|until)\s+)?(?:early\s+|mid[- ]|late\s+)?("
    + _MONTH_WORD
    + r")\.?,?\s+(\d{4})\b",
    re.I,
)
_ASKED_BARE_MONTH = re.compile(
    r"\b(?:in|during)\s+(?:early\s+|mid[- ]|late\s+)?(" + _MONTH_WORD + r")\b(?!\s*\d)", re.I
)
_ASKED_SEASON = re.compile(r"\b(last|this|in|during)\s+(?:the\s+)?(spring|summer|autumn|fall|winter)\b", re.I)
#: a season of a named year ("summer 2023", "the autumn of 2022")
_ASKED_SEASON_YEAR = re.compile(r"\b(spring|summer|autumn|fall|winter)\s+(?:of\s+)?((?:19|20)\d{2})\b", re.I)
_ASKED_PART_YEAR = re.compile(
    r"\b(early|mid|middle of|late|the start of|the beginning of|the end of)[\s-]+((?:19|20)\d{2})\b", re.I
)
_ASKED_YEAR = re.compile(r"\b(?:in|during|of)\s+((?:19|20)\d{2})\b", re.I)
_ASKED_LAST = re.compile(r"\blast\s+(week|month|year)\b", re.I)
_MONTH_KEY = {
    m[:3]: m
    for m in (
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    )
}


#: a question without any of these names no time (a cheap test before the patterns below)
_MAY_NAME_TIME = re.compile(
    r"\d|last|before|after|spring|summer|autumn|fall|winter|jan|feb|mar|apr|may|jun|jul|aug"
    r"|sep|oct|nov|dec",
    re.I,
)


def _asked_season(query: str) -> AskedTime | None:
    """A season a question names: of a named year ("summer 2023"), else "last summer", "in the winter"."""
    if m := _ASKED_SEASON_YEAR.search(query):
        return AskedTime("season", f"{m[1].lower()} {m[2]}")
    if m := _ASKED_SEASON.search(query):
        which = m[1].lower()
        return AskedTime("season", f"{'last ' if which == 'last' else ''}{m[2].lower()}")
    return None


#: a holiday of a named year ("at Christmas 2022", "Easter of 2023"): the days around it
_ASKED_HOLIDAY = re.compile(
    r"\b(christmas|xmas|easter|new year(?:'s)? eve|new year(?:'s)?(?: day)?|halloween|bonfire night|"
    r"boxing day|valentine'?s(?: day)?|thanksgiving)(?:\s+of)?,?\s+(\d{4})\b",
    re.I,
)


def _asked_holiday(query: str) -> AskedTime | None:
    m = _ASKED_HOLIDAY.search(query.replace("\u2019", "'"))
    return AskedTime("holiday", f"{m[1].lower()} {m[2]}") if m else None


def asked_time(query: str) -> AskedTime | None:
    """The time ``query`` asks about ("in May 2023", "the week before Alice's birthday", "last summer"),
    unresolved; None when it names none. "May" alone is read as the month only with a capital."""
    if not _MAY_NAME_TIME.search(query):
        return None
    if m := _SPAN_FROM.search(query):
        return AskedTime(
            m["rel"].lower(), f"{(m['n'] or 'the').lower()}|{m['unit'].lower()}|{m['what'].strip()}"
        )
    if m := _ASKED_DAY.search(query):
        return AskedTime("day", m[1])
    if m := _ASKED_MONTH.search(query):
        return AskedTime("month", f"{_MONTH_KEY[m[1][:3].lower()]} {m[2]}")
    if (m := _ASKED_BARE_MONTH.search(query)) and (m[1].lower() != "may" or m[1] == "May"):
        return AskedTime("month", _MONTH_KEY[m[1][:3].lower()])
    if named := _asked_holiday(query) or _asked_season(query):
        return named
    if m := _ASKED_PART_YEAR.search(query):
        return AskedTime("part", f"{m[1].lower().split()[-2] if ' ' in m[1] else m[1].lower()} {m[2]}")
    if m := _ASKED_YEAR.search(query):
        return AskedTime("year", m[1])
    if m := _ASKED_LAST.search(query):
        return AskedTime("last", m[1].lower())
    return None
