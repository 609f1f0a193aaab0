"""Dates in memory text: relative expressions resolved against a message's own time.

"Yesterday" in a message written on 2024-05-08 means 2024-05-07 whenever the memory is
read, so every relative expression is rewritten to an explicit date computed from the
anchor the caller passes in (the message time), never from the wall clock. All functions
are pure. Dates written out in full are normalised in core/text/explicit_dates.py; times
given by users and bounds named in questions are read in core/text/time_values.py.

A month or weekday named alone ("in August", "on Friday") points the way its clause does
(core/text/tense.py): forward from the message in a plan, a future or a scheduled present, back in a
past clause, and nowhere in a habit ("I usually travel in August" stays as written). A length of time
("for three years", "a two-week trip", "finished it in three months") is not a date; it becomes one
only when anchored ("three years ago", "in three months' time", "in two weeks" in a plan).

Granularity follows the expression: a day becomes ``2024-05-07``, a week
``the week of 2024-04-29`` (its Monday), a month ``April 2024``, a year ``2023``;
expressions that are only approximate ("two weeks ago") are prefixed with ``around``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta

from veramem_desktop.core.text.explicit_dates import MONTH_NUM, MONTH_RE, MONTHS, NUMBER_RE, parse_count
from veramem_desktop.core.text.tense import habitual, tense_at

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY_RE = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"

# Prepositions that stay in front of a resolved date ("since last week" -> "since the week of …").
# Others ("on", "in", "at", "during") are replaced by the connective that fits the granularity.
_KEPT_PREPS = (
    "since", "until", "till", "by", "before", "after", "from", "through", "as of", "around", "about",
    "to", "for", "of", "than", "between",
)  # fmt: skip
_PREP_RE = (
    r"(?:\b(?P<prep>since|until|till|by|before|after|from|through|as of|around|about|to|for|of|than|between"
    r"|on|in|at|during)\s+)?"
)
# "the last week of the trip" or "over the past year" name a span, not a date: not rewritten.
_NOT_AFTER_ARTICLE = r"(?<!the )(?<!that )(?<!this )(?<!its )(?<!his )(?<!her )(?<!our )(?<!their )(?<!my )"


# --- calendar helpers -------------------------------------------------------------------------


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The ``n``-th ``weekday`` (0 = Monday) of a month; ``n = -1`` means the last one."""
    if n > 0:
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    last = nxt - timedelta(days=1)
    return last - timedelta(days=(last.weekday() - weekday) % 7)


def _easter(year: int) -> date:
    """Western Easter Sunday (the anonymous Gregorian computus)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = b // 4, b % 4
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    ell = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * ell) // 451
    month = (h + ell - 7 * m + 114) // 31
    day = (h + ell - 7 * m + 114) % 31 + 1
    return date(year, month, day)


HOLIDAYS: dict[str, Callable[[int], date]] = {
    "thanksgiving": lambda y: _nth_weekday(y, 11, 3, 4),
    "christmas eve": lambda y: date(y, 12, 24),
    "christmas": lambda y: date(y, 12, 25),
    "new year's eve": lambda y: date(y, 12, 31),
    "new year's day": lambda y: date(y, 1, 1),
    "halloween": lambda y: date(y, 10, 31),
    "valentine's day": lambda y: date(y, 2, 14),
    "easter": _easter,
    "independence day": lambda y: date(y, 7, 4),
    "mother's day": lambda y: _nth_weekday(y, 5, 6, 2),
    "father's day": lambda y: _nth_weekday(y, 6, 6, 3),
    "labor day": lambda y: _nth_weekday(y, 9, 0, 1),
    "memorial day": lambda y: _nth_weekday(y, 5, 0, -1),
}
_HOLIDAY_NAMES = {
    "thanksgiving": "Thanksgiving", "christmas eve": "Christmas Eve", "christmas": "Christmas",
    "new year's eve": "New Year's Eve", "new year's day": "New Year's Day", "halloween": "Halloween",
    "valentine's day": "Valentine's Day", "easter": "Easter", "independence day": "Independence Day",
    "mother's day": "Mother's Day", "father's day": "Father's Day", "labor day": "Labor Day",
    "memorial day": "Memorial Day",
}  # fmt: skip
_HOLIDAY_RE = (
    r"(?:thanksgiving|christmas eve|christmas|new year['’]?s eve|new year['’]?s day|new year['’]?s|halloween"
    r"|valentine['’]?s day|easter|independence day|mother['’]?s day|father['’]?s day|labou?r day|memorial day)"
)


def _holiday_key(raw: str) -> str:
    key = raw.lower().replace("’", "'").replace("labour", "labor")
    key = re.sub(r"(new year|valentine|mother|father)s\b", r"\1's", key)
    return "new year's day" if key == "new year's" else key


def _add_months(day: date, months: int) -> date:
    """Same day-of-month ``months`` later (clamped to the month's end)."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    return date(year, month, min(day.day, (nxt - timedelta(days=1)).day))


def _month_label(year: int, month: int) -> str:
    return f"{MONTHS[month - 1]} {year}"


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


# --- relative expressions ---------------------------------------------------------------------

Resolved = tuple[str, str]  # (connective such as "on"/"in"/"around", the explicit date text)
# A handler resolves one match against the anchor day, given the whole text the match is in (the
# clause around it says which way it points); None leaves the words as they are.
_Handler = Callable[[re.Match[str], date, str], "Resolved | None"]


def _forward(m: re.Match[str], text: str) -> bool | None:
    """Which way a date named without "last" or "next" points from the message: forward in a plan, a
    future or a present that names a time ("we fly out on Friday"), back in a past clause; None in a
    habitual present ("I usually travel in August"), which names no one date."""
    tense = tense_at(text, m.start(), m.end())
    if tense == "past":
        return False
    if tense == "present" and habitual(text, m.start(), m.end()):
        return None
    return True


def _is_approx(raw: str) -> bool:
    return raw.lower() in ("a few", "few")


def _ago(m: re.Match[str], day: date, _text: str) -> Resolved | None:
    return _shift(m, day, 1)


def _in_future(m: re.Match[str], day: date, text: str) -> Resolved | None:
    # "in two weeks" is a date in a plan or a schedule ("the course starts in two weeks"); after a past
    # verb it is how long something took ("I read it in two weeks"), a duration, left as written.
    return _shift(m, day, -1) if _forward(m, text) else None


def _in_time(m: re.Match[str], day: date, _text: str) -> Resolved | None:
    # "in three months' time" always counts forward from the message
    return _shift(m, day, -1)


def _shift(m: re.Match[str], day: date, sign: int) -> Resolved:
    n, unit = parse_count(m["n"]), m["unit"].lower()
    if unit.startswith("fortnight"):
        n, unit = 2 * n, "week"
    approx = "around " if _is_approx(m["n"]) else ""
    if unit.startswith("day"):
        return ("around" if approx else "on"), (day - sign * timedelta(days=n)).isoformat()
    if unit.startswith("week"):
        return "around", (day - sign * timedelta(weeks=n)).isoformat()
    if unit.startswith("month"):
        target = _add_months(day, -sign * n)
        return "around", _month_label(target.year, target.month)
    return ("around" if approx else "in"), str(day.year - sign * n)


def _named_day(m: re.Match[str], day: date, _text: str) -> Resolved | None:
    word = re.sub(r"\s+", " ", m["word"].lower())
    offsets = {
        "the day before yesterday": -2, "the day after tomorrow": 2, "yesterday": -1,
        "today": 0, "tomorrow": 1, "tonight": 0, "last night": -1,
        "this morning": 0, "this afternoon": 0, "this evening": 0,
    }  # fmt: skip
    target = (day + timedelta(days=offsets[word])).isoformat()
    if word in ("tonight", "last night"):
        return "on", f"the night of {target}"
    if word.startswith("this "):
        return "on", f"the {word[5:]} of {target}"
    return "on", target


_STEP = {"last": -1, "this past": -1, "past": -1, "this": 0, "next": 1, "coming": 1, "this coming": 1}


def _relative_unit(m: re.Match[str], day: date, _text: str) -> Resolved:
    which, unit = m["which"].lower(), m["unit"].lower()
    step = _STEP[which]
    if unit == "week":
        return "in", f"the week of {(_monday(day) + timedelta(weeks=step)).isoformat()}"
    if unit == "weekend":
        saturday = _monday(day) + timedelta(days=5)
        if step < 0 and day.weekday() < 5:
            saturday -= timedelta(weeks=1)  # before Saturday, "last weekend" is the one just gone
        elif step > 0 and day.weekday() >= 5:
            saturday += timedelta(weeks=1)
        return "on", f"the weekend of {saturday.isoformat()}"
    if unit == "month":
        target = _add_months(day.replace(day=1), step)
        return "in", _month_label(target.year, target.month)
    return "in", str(day.year + step)


def _weekday(m: re.Match[str], day: date, _text: str) -> Resolved:
    which, wanted = m["which"].lower(), _WEEKDAYS.index(m["weekday"].lower())
    if which in ("last", "this past", "past"):
        back = (day.weekday() - wanted) % 7 or 7
        return "on", (day - timedelta(days=back)).isoformat()
    if which in ("next", "coming", "this coming"):
        ahead = (wanted - day.weekday()) % 7 or 7
        return "on", (day + timedelta(days=ahead)).isoformat()
    return "on", (_monday(day) + timedelta(days=wanted)).isoformat()


def _bare_weekday(m: re.Match[str], day: date, text: str) -> Resolved | None:
    """ "on Friday": the coming Friday in a plan or a schedule, the last one in a past clause (or after
    "since"); the same weekday as the message's is a week away either way."""
    wanted = _WEEKDAYS.index(m["weekday"].lower())
    forward = False if (m["prep"] or "").lower() == "since" else _forward(m, text)
    if forward is None:
        return None
    if forward:
        return "on", (day + timedelta(days=(wanted - day.weekday()) % 7 or 7)).isoformat()
    return "on", (day - timedelta(days=(day.weekday() - wanted) % 7 or 7)).isoformat()


def _holiday(m: re.Match[str], day: date, _text: str) -> Resolved:
    which, key = m["which"].lower(), _holiday_key(m["holiday"])
    rule = HOLIDAYS[key]
    if which in ("last", "this past", "past"):
        target = rule(day.year)
        if target >= day:
            target = rule(day.year - 1)
    elif which in ("next", "coming", "this coming"):
        target = rule(day.year)
        if target <= day:
            target = rule(day.year + 1)
    else:
        target = rule(day.year)
    return "on", f"{target.isoformat()} ({_HOLIDAY_NAMES[key]})"


def _month_name(m: re.Match[str], day: date, text: str) -> Resolved | None:
    which = (m["which"] or "").lower()
    month = MONTH_NUM[m["month"].lower().rstrip(".")]
    part = f"{m['part'].lower()} " if m["part"] else ""
    if which in ("last", "this past", "past"):
        year = day.year if month < day.month else day.year - 1
    elif which in ("next", "coming", "this coming"):
        year = day.year if month > day.month else day.year + 1
    elif which == "this" or month == day.month:
        year = day.year
    else:
        forward = False if (m["prep"] or "").lower() == "since" else _forward(m, text)
        if forward is None:
            return None
        if forward:
            year = day.year if month > day.month else day.year + 1  # a plan: the next such month
        else:
            year = day.year if month < day.month else day.year - 1  # a report: the last such month
    return "in", f"{part}{_month_label(year, month)}"


_WHICH = _NOT_AFTER_ARTICLE + r"(?P<which>this past|this coming|last|this|next|past|coming)"
#: a weekday named with its date ("Saturday 11 March", "Friday the 8th", "Sunday, May 4"): the date says
#: which day it is, and the weekday is left as written
_WITH_ITS_DATE = r"(?!,?\s+(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\b|" + MONTH_RE + r"\b))"
_UNITS = r"(?P<unit>days?|weeks?|fortnights?|months?|years?)"
_RULES: list[tuple[re.Pattern[str], _Handler]] = [
    (
        re.compile(
            _PREP_RE
            + _NOT_AFTER_ARTICLE
            + r"(?P<word>the day before yesterday|the day after tomorrow|yesterday"
            r"|today|tomorrow|tonight|last\s+night|this\s+(?:morning|afternoon|evening))\b(?!['’])",
            re.IGNORECASE,
        ),
        _named_day,
    ),
    (re.compile(_PREP_RE + r"\b(?P<n>" + NUMBER_RE + r")\s+" + _UNITS + r"\s+ago\b", re.IGNORECASE), _ago),
    (
        re.compile(r"\bin\s+(?P<n>" + NUMBER_RE + r")\s+" + _UNITS + r"['’]?\s+time\b", re.IGNORECASE),
        _in_time,
    ),
    (re.compile(r"\bin\s+(?P<n>" + NUMBER_RE + r")\s+" + _UNITS + r"\b(?!['’])", re.IGNORECASE), _in_future),
    (
        re.compile(
            _PREP_RE + _WHICH + r"\s+(?P<weekday>" + _WEEKDAY_RE + r")\b(?!['’])" + _WITH_ITS_DATE,
            re.IGNORECASE,
        ),
        _weekday,
    ),
    (
        re.compile(
            r"\b(?P<prep>on|by|until|till|since|before|after|from)\s+(?P<weekday>"
            + _WEEKDAY_RE
            + r")\b(?!['’s])"
            + _WITH_ITS_DATE,
            re.IGNORECASE,
        ),
        _bare_weekday,
    ),
    (
        re.compile(_PREP_RE + _WHICH + r"\s+(?P<holiday>" + _HOLIDAY_RE + r")(?![\w'’])", re.IGNORECASE),
        _holiday,
    ),
    (
        re.compile(_PREP_RE + _WHICH + r"\s+(?P<unit>week|weekend|month|year)\b(?!['’])", re.IGNORECASE),
        _relative_unit,
    ),
    (
        re.compile(
            r"(?:\b(?P<prep>since|until|till|by|before|after|from|through|in|during)\s+|" + _WHICH + r"\s+)"
            r"(?P<part>early|mid|late)?-?\s*(?P<month>" + MONTH_RE + r")\b(?!['’])(?!\.?\s*,?\s*\d)",
            re.IGNORECASE,
        ),
        _month_name,
    ),
]
# "May" is also a name and a verb: it is read as the month only in these positions.
_MAY_PREPS = ("in", "during", "since", "until", "till", "")


def resolve_relative_dates(text: str, anchor: datetime | date) -> str:
    """Rewrite relative date expressions in ``text`` as explicit dates counted from ``anchor``.

    ``anchor`` is the time of the message the text comes from (its own calendar day is
    used, in its own time zone). Expressions it does not recognise are left as they are.
    """
    day = anchor.date() if isinstance(anchor, datetime) else anchor
    for pattern, handler in _RULES:
        text = _substitute(pattern, handler, day, text)
    return text


def _substitute(pattern: re.Pattern[str], handler: _Handler, day: date, text: str) -> str:
    def render(m: re.Match[str]) -> str:
        groups = m.groupdict()
        prep = (groups.get("prep") or "").lower()
        month = groups.get("month")
        if month is not None and month.lower() == "may" and (month != "May" or prep not in _MAY_PREPS):
            return m.group(0)  # "may" the verb, or "from May" the person
        resolved = handler(m, day, text)
        if resolved is None:
            return m.group(0)
        connective, value = resolved
        if prep in _KEPT_PREPS:
            approx = "around " if connective == "around" and prep not in ("around", "about") else ""
            out = f"{m['prep']} {approx}{value}"
        else:
            out = f"{connective} {value}" if connective else value
        if m.group(0)[:1].isupper() and out[:1].islower():
            out = out[0].upper() + out[1:]
        return out

    return pattern.sub(render, text)
