"""The time a question asks about, as a span of days, and whether a turn's date fits it.

The phrase comes from :func:`core.textproc.asked_time` ("in May 2023", "on October 13, 2023",
"two weeks before August 11, 2023", "last summer", "in June"); it is read here against an
anchor, the latest session date the caller can see, since a memory's "last year" is counted
from the conversation, not from the clock of whoever asks. Pure functions, no IO.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from dateutil.easter import easter
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.recall.query import AskedTime
from veramem_desktop.core.text.explicit_dates import MONTHS, normalise_explicit_dates
from veramem_desktop.core.text.relative_dates import resolve_relative_dates
from veramem_desktop.core.text.tense import tense_at
from veramem_desktop.core.text.time_values import parse_time

_MONTH_NUM = {name.lower(): i + 1 for i, name in enumerate(MONTHS)}
_MONTH_NUM.update({name.lower()[:3]: i + 1 for i, name in enumerate(MONTHS)})
_MONTH_NUM["sept"] = 9
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_UNIT_DAYS = {"day": 1, "week": 7, "weekend": 7, "fortnight": 14, "month": 30, "year": 365}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "few": 3,
    "a few": 3,
    "a couple of": 2,
    "couple of": 2,
    "the": 1,
}
#: a turn told this many days after the span still speaks about it ("last week I …")
TOLD_AFTER_DAYS = 7


@dataclass(frozen=True)
class Period:
    """Days from ``start`` up to ``end`` (exclusive)."""

    start: date
    end: date

    def holds(self, day: date) -> bool:
        return self.start <= day < self.end

    def told_in(self, day: date) -> bool:
        """A session held on ``day`` may tell of the period: during it, or in the days just after."""
        return self.start <= day < self.end + timedelta(days=TOLD_AFTER_DAYS)


def _month_span(year: int, month: int) -> Period:
    first = date(year, month, 1)
    return Period(first, date(year + month // 12, month % 12 + 1, 1))


def _day(text: str) -> date | None:
    try:
        return parse_time(text).date()
    except InvalidInputError:
        return None


def _named_day(asked: AskedTime, anchor: date) -> Period | None:
    """A written day ("on October 13, 2023"): that one day, None when it does not read as a date."""
    day = _day(asked.value)
    return Period(day, day + timedelta(days=1)) if day else None


def _named_month(asked: AskedTime, anchor: date) -> Period:
    """A month ("in May 2023", "in June"): without a year, the latest such month up to the anchor's."""
    month_word, _, year_word = asked.value.lower().partition(" ")
    month = _MONTH_NUM[month_word]
    if year_word:
        return _month_span(int(year_word), month)
    year = anchor.year if month <= anchor.month else anchor.year - 1  # the latest such month
    return _month_span(year, month)


def _named_year(asked: AskedTime, anchor: date) -> Period:
    """A year ("in 2023"): the whole calendar year."""
    year = int(asked.value.lower())
    return Period(date(year, 1, 1), date(year + 1, 1, 1))


#: the months a part of a year spans: its first third, its middle, its last third
_PARTS = {
    "early": (1, 5),
    "start": (1, 5),
    "beginning": (1, 5),
    "mid": (5, 9),
    "middle": (5, 9),
    "late": (9, 13),
    "end": (9, 13),
}


def _year_part(asked: AskedTime, anchor: date) -> Period:
    """A part of a year ("mid 2024", "early 2023", "the end of 2022"): four months of it."""
    part, _, year_word = asked.value.partition(" ")
    first, last = _PARTS[part]
    year = int(year_word)
    end = date(year + 1, 1, 1) if last == 13 else date(year, last, 1)
    return Period(date(year, first, 1), end)


def _season(asked: AskedTime, anchor: date) -> Period:
    """A season ("this summer", "last summer"): the latest such season begun by the anchor ("last" the one
    before it while it is still going on), 92 days from its first month; a season of a named year
    ("summer 2023") is that year's."""
    which, _, season = asked.value.lower().rpartition(" ")
    if season.isdigit():
        start = date(int(season), _SEASONS[which], 1)
        return Period(start, start + timedelta(days=92))
    month = _SEASONS[season]
    year = anchor.year if anchor.month >= month else anchor.year - 1  # the latest one begun
    if which == "last" and anchor < date(year, month, 1) + timedelta(days=92):
        year -= 1  # the one before the season still going on
    start = date(year, month, 1)
    return Period(start, start + timedelta(days=92))


#: the days fixed holidays fall on (month, day); Easter and Thanksgiving move
_HOLIDAYS = {
    "christmas": (12, 25),
    "xmas": (12, 25),
    "boxing day": (12, 26),
    "halloween": (10, 31),
    "bonfire night": (11, 5),
    "valentine's": (2, 14),
    "valentines": (2, 14),
}


def _holiday(asked: AskedTime, anchor: date) -> Period:
    """A holiday of a named year ("Christmas 2022", "Easter 2023"): the week around its day (Easter by
    dateutil's computus, Thanksgiving the fourth Thursday of November)."""
    name, _, year_word = asked.value.rpartition(" ")
    year = int(year_word)
    name = name.removesuffix(" day") if name.startswith("valentine") else name
    if name == "easter":
        day = easter(year)
    elif name.startswith("new year") and name.endswith("eve"):
        day = date(year, 12, 31)
    elif name.startswith("new year"):
        day = date(year, 1, 1)
    elif name == "thanksgiving":
        first = date(year, 11, 1)
        day = first + timedelta(days=(3 - first.weekday()) % 7 + 21)
    else:
        day = date(year, *_HOLIDAYS.get(name, (12, 25)))
    return Period(day - timedelta(days=3), day + timedelta(days=4))


def _last_unit(asked: AskedTime, anchor: date) -> Period:
    """Last week, month or year: the calendar unit before the anchor's (weeks start on Monday)."""
    unit = asked.value.lower()
    if unit == "year":
        return Period(date(anchor.year - 1, 1, 1), date(anchor.year, 1, 1))
    if unit == "month":
        first = anchor.replace(day=1)
        previous = (first - timedelta(days=1)).replace(day=1)
        return Period(previous, first)
    monday = anchor - timedelta(days=anchor.weekday())
    return Period(monday - timedelta(days=7), monday)


def _counted_from(asked: AskedTime, find_event: Callable[[str], date | None] | None) -> Period | None:
    """A span counted from a day ("two weeks before August 11, 2023", or after): up to that many days
    on that side of it, the day read as a date or else dated by ``find_event``; None when neither can."""
    count_word, unit, what = asked.value.split("|")
    day = _day(what) or (find_event(what) if find_event else None)
    if day is None:
        return None
    days = (int(count_word) if count_word.isdigit() else _NUMBERS.get(count_word, 1)) * _UNIT_DAYS[unit]
    if asked.kind == "before":
        return Period(day - timedelta(days=days + 3), day + timedelta(days=1))
    return Period(day, day + timedelta(days=days + 4))


#: how each kind of asked time is read against the anchor ("before" and "after" need ``find_event``)
_READ_AGAINST_ANCHOR: dict[str, Callable[[AskedTime, date], Period | None]] = {
    "day": _named_day,
    "month": _named_month,
    "year": _named_year,
    "part": _year_part,
    "season": _season,
    "holiday": _holiday,
    "last": _last_unit,
}


def resolve(
    asked: AskedTime, anchor: date, find_event: Callable[[str], date | None] | None = None
) -> Period | None:
    """The span of days ``asked`` names, counted from ``anchor`` where it is relative; None when unread.
    ``find_event`` dates an event a span is counted from ("the week before Alice's birthday")."""
    if asked.kind in ("before", "after"):
        return _counted_from(asked, find_event)
    read = _READ_AGAINST_ANCHOR.get(asked.kind)
    return read(asked, anchor) if read else None


_MONTH_YEAR = re.compile(r"\b(" + "|".join(MONTHS) + r") (\d{4})\b")
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


#: a day of a month named without its year ("the 2nd of March", "March 2nd", "4 August")
#: a month by its name or its short form ("Sept", "aug"), for a day named without a year
_A_MONTH = "|".join(sorted(_MONTH_NUM, key=len, reverse=True))
#: "the 3rd of March", "1 sept"; "March 3rd", "sept 1" (a number after the month is a day, never a time
#: of day, a year or the start of a bigger number)
_DAY_OF_MONTH = re.compile(
    r"\b(?:the\s+)?(?P<dom>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>" + _A_MONTH + r")\b"
    r"|\b(?P<month2>" + _A_MONTH + r")\.?\s+(?P<dom2>\d{1,2})(?:st|nd|rd|th)?\b(?![:.,]?\d)",
    re.IGNORECASE,
)


def stated_days(text: str, told: datetime) -> list[Period]:
    """The dates a turn states, its relative ones ("last Saturday") read against the time it was told, and
    a day of a month named without a year, outside a past clause, as the next such day (only read here: the
    turn's text is left as written, since "her birthday is the 28th of December" names no one year)."""
    resolved = normalise_explicit_dates(resolve_relative_dates(text, told))
    found: list[Period] = []
    for m in _DAY_OF_MONTH.finditer(resolved):
        if tense_at(resolved, m.start(), m.end()) == "past":
            continue  # "I moved in on the 3rd of March": a day gone by, of a year not said
        month = _MONTH_NUM[(m["month"] or m["month2"]).lower()]
        for year in (told.year, told.year + 1):
            try:
                day = date(year, month, int(m["dom"] or m["dom2"]))
            except ValueError:
                break
            if day >= told.date():
                found.append(Period(day, day + timedelta(days=1)))
                break
    for m in _ISO_DAY.finditer(resolved):
        try:
            day = date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            continue
        found.append(Period(day, day + timedelta(days=1)))
    for m in _MONTH_YEAR.finditer(resolved):
        found.append(_month_span(int(m[2]), _MONTH_NUM[m[1].lower()]))
    return found


def overlaps(a: Period, b: Period) -> bool:
    return a.start < b.end and b.start < a.end


def as_day(value: str | None) -> date | None:
    """A stored ISO time as its UTC calendar day."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC).date()


def begun(text: str, told: str | None) -> str:
    """When a statement told at ``told`` (an ISO time) says its value began to hold: the first day its own
    words put after the day it was said ("I start in September", "moving over from January 2025"), else
    ``told`` itself ("" when unknown)."""
    try:
        moment = datetime.fromisoformat(told or "")
    except ValueError:
        return told or ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    day = moment.date()
    later = [p.start for p in stated_days(text, moment) if p.start > day]
    return min(later).isoformat() if later else told or ""
