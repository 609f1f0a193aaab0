"""Dates as people write them: the words for months and counts, and dates written out in full.

The vocabulary the date modules share (month names and their abbreviations, counts such as
"a couple of" or "a few") and dates written with a day, a month and a year ("May 8th, 2023",
"8 May 2023", "2023/05/08", "13/05/2023"). :func:`normalise_explicit_dates` rewrites the
unambiguous ones in memory text as ISO 8601; :func:`written_date` reads one for
core/text/time_values.py. A numeric date that reads both ways (05/08/2023) is left as written.
Relative expressions ("last Friday") are resolved in core/text/relative_dates.py. All functions are pure.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

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


# --- a document's own date --------------------------------------------------------------------

#: how many of a document's first non-empty lines are read as its head (title, byline, date line)
HEAD_LINES = 6
#: a title longer than this is a sentence, and a year in it is not the document's date
TITLE_CHARS = 60
#: a labelled date line may sit this far down ("Last updated: …" under a title and a summary)
LABELLED_LINES = 15
_FRONT_MATTER = re.compile(r"\A---\s*\n(?P<body>.*?)\n---\s*(?:\n|\Z)", re.DOTALL)
_DATE_LABEL = re.compile(
    r"\b(?:date[d]?|written|created|updated|last updated|modified|last modified|as of|version of)\b", re.I
)
_ISO_DAY = re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})\b")
_MONTH_YEAR = re.compile(r"\b(?P<month>" + MONTH_RE + r")\.?,?\s+(?P<year>(?:19|20)\d{2})\b", re.I)
_YEAR = re.compile(r"(?<![\d/.-])(?P<year>(?:19|20)\d{2})(?![\d/.-])")

#: a document date: the first day it names, and the last day of the period it names (the same day
#: for a whole date, a month's last day for "December 2024", a year's for "Goals 2025")
Period = tuple[date, date]


def _month_end(year: int, month: int) -> date:
    return date(year + (month == 12), month % 12 + 1, 1) - timedelta(days=1)


def _period_in(line: str, *, bare_year: bool) -> Period | None:
    """The date a head line names: a whole date, else a month and year, else (``bare_year``) a year."""
    m = _ISO_DAY.search(normalise_explicit_dates(line))
    if m and (iso := _iso(int(m["year"]), int(m["month"]), int(m["day"]))) is not None:
        day = date.fromisoformat(iso)
        return day, day
    if m := _MONTH_YEAR.search(line):
        year, month = int(m["year"]), MONTH_NUM[m["month"].lower()]
        return date(year, month, 1), _month_end(year, month)
    if bare_year and (m := _YEAR.search(line)):
        year = int(m["year"])
        return date(year, 1, 1), date(year, 12, 31)
    return None


def _title(index: int, line: str) -> bool:
    """A heading, or a document's first line when it reads as a title ("Goals 2025"): short, and not a
    sentence ("Moved to Berlin in 2019." is one)."""
    if line.startswith("#"):
        return len(line) <= TITLE_CHARS
    return index == 0 and len(line) <= TITLE_CHARS and not line.endswith((".", "!", "?"))


def document_period(text: str) -> Period | None:
    """The date a document gives itself, or None: a ``date:`` (``created:``, ``updated:`` …) in its front
    matter, a labelled date line near its top ("Written 2 Jan 2025", "Last updated: March 2024"), or a
    date in its head (its first lines: "Goals 2025", "# Profile (December 2024)"). A whole date wins over
    a month, a month over a bare year; dates in its body (plans, history) are not the document's own."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    fm = _FRONT_MATTER.match(text.lstrip("\ufeff"))
    labelled = [
        ln for ln in (fm["body"].splitlines() if fm else []) if _DATE_LABEL.search(ln.split(":", 1)[0])
    ]
    labelled += [ln for ln in lines[:LABELLED_LINES] if _DATE_LABEL.search(ln)]
    found = [p for ln in labelled if (p := _period_in(ln, bare_year=False)) is not None]
    found += [p for i, ln in enumerate(lines[:HEAD_LINES]) if (p := _period_in(ln, bare_year=_title(i, ln)))]
    if not found:
        return None
    return min(found, key=lambda p: (p[1] - p[0]).days)  # the most precise


#: a file saved this long before the period its text names still counts as written for it
#: (a "Goals 2025" note saved in late December 2024)
EARLY_DAYS = 31


def document_time(text: str, saved: datetime | None) -> datetime | None:
    """When a document was written: ``saved`` (its file's time) when it falls in the period its text
    names, or shortly before; else the start of that period; else ``saved``. A copied or downloaded
    file's time is often the day it was imported, which the document's own words correct."""
    period = document_period(text)
    if period is None:
        return saved
    first, last = period
    if saved is not None and first - timedelta(days=EARLY_DAYS) <= saved.astimezone(UTC).date() <= last:
        return saved
    return datetime(first.year, first.month, first.day, tzinfo=UTC)
