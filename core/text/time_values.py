"""Reading times: the times users give, and the time bounds questions name.

:func:`parse_time` reads a user-given time (ISO 8601, LoCoMo's "1:56 pm on 8 May, 2023", a
written date, or any other absolute time through dateparser with relative parsing off); it
never completes a partial time from the clock. :func:`parse_bound` reads the start of the
period a question names ("last summer", "the last two weeks", "March 2024") against the
``now`` it is given. dateparser is imported on first use: it loads language data that
only these free-form paths need.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, tzinfo

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.text.explicit_dates import NUMBER_RE, parse_count, written_date

_CLOCK_ON_DATE = re.compile(
    r"^\s*(?P<h>\d{1,2})(?::(?P<mi>\d{2}))?\s*(?P<ampm>[ap])\.?\s*m\.?\s+on\s+(?P<date>.+?)\s*$",
    re.IGNORECASE,
)


def parse_time(value: str, default_tz: tzinfo = UTC) -> datetime:
    """Read a user-given time: ISO 8601, LoCoMo's "1:56 pm on 8 May, 2023", or a written date.

    A time without a zone gets ``default_tz``. A value missing its day, month or year is
    refused rather than completed from today's date, so the result never depends on the clock.
    """
    raw = value.strip()
    result: datetime | None = None
    try:
        result = datetime.fromisoformat(raw)
    except ValueError:
        m = _CLOCK_ON_DATE.match(raw)
        if m:
            day = written_date(m["date"])
            hour = int(m["h"])
            if day is not None and 1 <= hour <= 12:
                hour = hour % 12 + (12 if m["ampm"].lower() == "p" else 0)
                result = datetime(day.year, day.month, day.day, hour, int(m["mi"] or 0))
        elif (only_date := written_date(raw)) is not None:
            result = datetime(only_date.year, only_date.month, only_date.day)
        else:
            result = dateparser_absolute(raw)
    if result is None:
        raise InvalidInputError(
            f"Could not read the time {value!r}. Give an ISO 8601 time such as 2024-05-01T13:56:00+00:00, "
            "a date such as 2024-05-01, or a time like '1:56 pm on 8 May, 2023'."
        )
    return result if result.tzinfo is not None else result.replace(tzinfo=default_tz)


def dateparser_absolute(raw: str) -> datetime | None:
    """Free-form absolute times through dateparser, with relative parsing switched off."""
    import dateparser  # imported here: it loads language data, which only this path needs

    settings = {"REQUIRE_PARTS": ["day", "month", "year"], "PARSERS": ["custom-formats", "absolute-time"]}
    try:
        found: datetime | None = dateparser.parse(raw, languages=["en"], settings=settings)
        return found
    except (ValueError, OverflowError):
        return None


_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30, "year": 365}
_SEASON = re.compile(
    r"^(?:(?P<which>last|this|next)\s+)?(?P<season>spring|summer|autumn|fall|winter)"
    r"(?:\s+(?:of\s+)?(?P<year>\d{4}))?$",
    re.I,
)
_LAST_N = re.compile(
    r"^(?:the\s+)?(?:last|past)\s+(?:(?P<n>" + NUMBER_RE + r")\s+)?"
    r"(?P<unit>day|week|fortnight|month|year)s?$",
    re.I,
)


def parse_bound(phrase: str, now: datetime) -> datetime | None:
    """The moment a time bound in a question names, read against ``now``, or None when it cannot be read.

    "March 2024", "2024-03-01", "last summer" (the start of the most recent summer that has begun; a
    bound is the start of the period it names), "the last two weeks" (now less two weeks), "yesterday",
    "3 days ago"; anything else dateparser reads with ``now`` as its base, preferring the past."""
    raw = " ".join(phrase.strip().rstrip("?.!").split())
    if not raw:
        return None
    now = now if now.tzinfo is not None else now.replace(tzinfo=UTC)
    if m := _LAST_N.match(raw):
        count = parse_count(m["n"].lower()) if m["n"] else 1
        return now - timedelta(days=count * _UNIT_DAYS[m["unit"].lower()])
    if m := _SEASON.match(raw):
        month = _SEASON_START[m["season"].lower()]
        if m["year"]:
            return datetime(int(m["year"]), month, 1, tzinfo=UTC)
        year = now.year if (now.month, now.day) >= (month, 1) else now.year - 1  # the latest one begun
        ongoing = now < datetime(year, month, 1, tzinfo=UTC) + timedelta(days=92)
        which = (m["which"] or "").lower()
        year += {"last": -1 if ongoing else 0, "next": 1}.get(which, 0)
        return datetime(year, month, 1, tzinfo=UTC)
    try:
        return parse_time(raw)
    except InvalidInputError:
        pass
    import dateparser  # imported here: it loads language data, which only this path needs

    settings = {
        "RELATIVE_BASE": now.replace(tzinfo=None),
        "PREFER_DATES_FROM": "past",
        "PREFER_DAY_OF_MONTH": "first",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    try:
        found = dateparser.parse(raw, languages=["en"], settings=settings)
    except (ValueError, OverflowError):
        return None
    return found.replace(tzinfo=UTC) if found is not None else None
