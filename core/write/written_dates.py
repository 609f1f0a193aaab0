"""Dates as people write them: the words for months and counts, and dates written out in full.

The vocabulary the date modules share (month names and their abbreviations, counts such as
"a couple of" or "a few") and dates written with a day, a month and a year ("May 8th, 2023",
"8 May 2023", "2023/05/08", "13/05/2023"). :func:`normalise_explicit_dates` rewrites the
unambiguous ones in memory text as ISO 8601; :func:`written_date` reads one for
core/write/times.py. A numeric date that reads both ways (05/08/2023) is left as written.
Relative expressions ("last Friday") are resolved in core/write/dates.py. All functions are pure.
"""

from __future__ import annotations

import re
from datetime import date

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
MONTH_NUM = {name.lower(): i + 1 for i, name in enumerate(MONTHS)}
MONTH_NUM.update({name.lower()[:3]: i + 1 for i, name in enumerate(MONTHS)})
MONTH_NUM["sept"] = 9
MONTH_RE = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)

_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3,
}  # fmt: skip
NUMBER_RE = r"(?:\d{1,3}|a couple of|a couple|couple of|a few|few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"


def parse_count(raw: str) -> int:
    """The number a count word or numeral stands for ("a couple of" is 2, "a few" 3)."""
    raw = raw.lower()
    return int(raw) if raw.isdigit() else _NUMBER_WORDS[raw]


# --- explicit dates ---------------------------------------------------------------------------

_ORD = r"(?:st|nd|rd|th)?"
_MDY = re.compile(
    r"\b(?P<month>" + MONTH_RE + r")\.?\s+(?P<day>\d{1,2})" + _ORD + r",?\s+(?P<year>\d{4})\b", re.IGNORECASE
)
_DMY = re.compile(
    r"\b(?:the\s+)?(?P<day>\d{1,2})"
    + _ORD
    + r"(?:\s+of)?\s+(?P<month>"
    + MONTH_RE
    + r")\.?,?\s+(?P<year>\d{4})\b",
    re.IGNORECASE,
)
_YMD_NUM = re.compile(r"\b(?P<year>\d{4})[/.](?P<month>\d{1,2})[/.](?P<day>\d{1,2})\b")
_XYZ_NUM = re.compile(r"\b(?P<a>\d{1,2})[/.](?P<b>\d{1,2})[/.](?P<year>\d{4})\b")


def _iso(year: int, month: int, day: int) -> str | None:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def _named(m: re.Match[str]) -> str:
    iso = _iso(int(m["year"]), MONTH_NUM[m["month"].lower()], int(m["day"]))
    return iso or m.group(0)


def _numeric_dmy_or_mdy(m: re.Match[str]) -> str:
    a, b, year = int(m["a"]), int(m["b"]), int(m["year"])
    if a > 12 >= b:
        iso = _iso(year, b, a)  # 13/05/2023 can only be day/month
    elif b > 12 >= a:
        iso = _iso(year, a, b)  # 05/13/2023 can only be month/day
    elif a == b:
        iso = _iso(year, a, b)
    else:
        iso = None  # 05/08/2023: May 8 or 5 August, so it stays as written
    return iso or m.group(0)


def normalise_explicit_dates(text: str) -> str:
    """Turn unambiguous written dates ("May 8th, 2023", "8 May 2023", "13/05/2023") into ISO."""
    text = _MDY.sub(_named, text)
    text = _DMY.sub(_named, text)
    text = _YMD_NUM.sub(lambda m: _iso(int(m["year"]), int(m["month"]), int(m["day"])) or m.group(0), text)
    return _XYZ_NUM.sub(_numeric_dmy_or_mdy, text)


def written_date(value: str) -> date | None:
    """The day ``value`` names when it is a whole written date ("8 May 2023", "May 8th, 2023"), else None."""
    for pattern in (_DMY, _MDY):
        m = pattern.fullmatch(value.strip().rstrip("."))
        if m:
            iso = _iso(int(m["year"]), MONTH_NUM[m["month"].lower()], int(m["day"]))
            return date.fromisoformat(iso) if iso else None
    return None
