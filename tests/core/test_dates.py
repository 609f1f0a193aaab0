"""Relative dates resolve against the message's own time; explicit dates become ISO."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.text.explicit_dates import MONTHS, normalise_explicit_dates
from veramem_desktop.core.text.relative_dates import HOLIDAYS, resolve_relative_dates
from veramem_desktop.core.text.time_values import parse_time

WED = datetime(2024, 5, 8, 13, 56, tzinfo=UTC)  # a Wednesday
anchors = st.datetimes(
    min_value=datetime(1901, 1, 1), max_value=datetime(2099, 12, 31), timezones=st.just(UTC)
)


def resolve(text: str, anchor: datetime = WED) -> str:
    return resolve_relative_dates(text, anchor)


# --- relative expressions ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I went to a support group yesterday.", "I went to a support group on 2024-05-07."),
        ("We talked today", "We talked on 2024-05-08"),
        ("The party is tomorrow", "The party is on 2024-05-09"),
        ("the day before yesterday", "on 2024-05-06"),
        ("I moved here 3 days ago", "I moved here on 2024-05-05"),
        ("I moved here two weeks ago", "I moved here around 2024-04-24"),
        ("a fortnight ago", "around 2024-04-24"),
        ("I started 2 months ago", "I started around March 2024"),
        ("last week was hard", "in the week of 2024-04-29 was hard"),
        ("next week", "in the week of 2024-05-13"),
        ("last Monday I saw Bob", "on 2024-05-06 I saw Bob"),
        ("next Friday is the party", "on 2024-05-10 is the party"),
        ("last weekend", "on the weekend of 2024-05-04"),
        ("last night was fun", "on the night of 2024-05-07 was fun"),
        ("last month", "in April 2024"),
        ("last year I was in Rome", "in 2023 I was in Rome"),
        ("I had turkey last Thanksgiving", "I had turkey on 2023-11-23 (Thanksgiving)"),
        ("I quit last Christmas", "I quit on 2023-12-25 (Christmas)"),
        ("I will see you in two weeks", "I will see you around 2024-05-22"),
    ],
)
def test_relative_expressions_become_explicit_dates_counted_from_the_anchor(text: str, expected: str) -> None:
    assert resolve(text) == expected


def test_an_expression_starting_a_sentence_keeps_its_capital() -> None:
    assert resolve("Yesterday I ran 5k.") == "On 2024-05-07 I ran 5k."


def test_a_preposition_before_the_expression_is_kept() -> None:
    assert resolve("since last week") == "since the week of 2024-04-29"
    assert resolve("until tomorrow") == "until 2024-05-09"


@pytest.mark.parametrize(
    "text",
    [
        "I'll collect the van on Saturday 11 May",
        "dinner on Friday the 17th",
        "we fly on Sunday, June 2",
        "see you next Saturday 18 May",
    ],
)
def test_a_weekday_named_with_its_date_is_left_as_written(text: str) -> None:
    # the date says which day it is; resolving the weekday would put a second, wrong date beside it
    assert resolve(text) == text


def test_last_weekday_on_that_same_weekday_means_a_week_earlier() -> None:
    monday = datetime(2024, 5, 6, tzinfo=UTC)
    assert resolve("last Monday", monday) == "on 2024-04-29"


def test_last_thanksgiving_is_this_years_only_once_it_has_passed() -> None:
    assert resolve("last Thanksgiving", datetime(2024, 11, 20, tzinfo=UTC)) == "on 2023-11-23 (Thanksgiving)"
    assert resolve("last Thanksgiving", datetime(2024, 11, 30, tzinfo=UTC)) == "on 2024-11-28 (Thanksgiving)"


def test_a_month_name_takes_its_year_from_the_tense_of_the_sentence() -> None:
    assert resolve("I moved here in December") == "I moved here in December 2023"
    assert resolve("I'm going to Spain in December") == "I'm going to Spain in December 2024"
    assert resolve("I went there in May") == "I went there in May 2024"


def test_the_day_is_the_anchors_own_calendar_day_in_its_own_zone() -> None:
    tokyo_early = datetime(2024, 5, 8, 1, 0, tzinfo=timezone(timedelta(hours=9)))  # 2024-05-07 in UTC
    assert resolve("yesterday", tokyo_early) == "on 2024-05-07"


@pytest.mark.parametrize(
    "text",
    [
        "the last week of the trip",  # a span, not a date
        "over the past year",
        "in May 2023",  # already explicit
        "I got a gift from May",  # a person
        "you may go",  # a verb
        "I read it in two weeks",  # a duration, not a plan
        "Nothing relative here.",
    ],
)
def test_words_that_are_not_relative_dates_are_left_alone(text: str) -> None:
    assert resolve(text) == text


# --- properties: the anchor decides, never the wall clock --------------------------------------


@given(anchors)
def test_yesterday_is_always_the_day_before_the_anchor(anchor: datetime) -> None:
    assert resolve("yesterday", anchor) == f"on {(anchor.date() - timedelta(days=1)).isoformat()}"


_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
_WEEK_BOUND = "yesterday, last Monday, next Friday, 3 days ago, last week, two weeks ago and last weekend"


@given(anchors, st.integers(min_value=-2000, max_value=2000))
def test_moving_the_anchor_by_whole_weeks_moves_every_resolved_day_by_the_same_amount(
    anchor: datetime, weeks: int
) -> None:
    # Were the wall clock consulted anywhere, the two results would not line up.
    shift = timedelta(weeks=weeks)
    moved = anchor + shift
    if not datetime(1901, 1, 1, tzinfo=UTC) <= moved <= datetime(2099, 12, 31, tzinfo=UTC):
        return
    expected = _ISO.sub(
        lambda m: (date.fromisoformat(m.group(0)) + shift).isoformat(), resolve(_WEEK_BOUND, anchor)
    )
    assert resolve(_WEEK_BOUND, moved) == expected


@given(anchors)
def test_every_resolved_day_lies_close_to_the_anchor(anchor: datetime) -> None:
    text = "yesterday, last Thanksgiving, next Christmas, last Easter, 3 days ago and last weekend"
    for found in _ISO.findall(resolve(text, anchor)):
        # a year at most, plus five weeks because Easter moves between 22 March and 25 April
        assert abs((date.fromisoformat(found) - anchor.date()).days) <= 366 + 35


@given(anchors)
def test_resolving_twice_changes_nothing(anchor: datetime) -> None:
    text = "Yesterday and last week, two weeks ago, last Thanksgiving, in May, next month and last year."
    once = resolve(text, anchor)
    assert resolve(once, anchor) == once


@given(st.integers(min_value=1901, max_value=2099))
def test_thanksgiving_is_the_fourth_thursday_of_november(year: int) -> None:
    day = HOLIDAYS["thanksgiving"](year)
    assert (day.month, day.weekday()) == (11, 3)
    assert 22 <= day.day <= 28


@given(anchors)
def test_last_thanksgiving_is_the_latest_one_strictly_before_the_anchor(anchor: datetime) -> None:
    found = date.fromisoformat(_ISO.findall(resolve("last Thanksgiving", anchor))[0])
    assert found < anchor.date()
    assert HOLIDAYS["thanksgiving"](found.year + 1) >= anchor.date()


# --- explicit dates ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We met on May 8th, 2023.", "We met on 2023-05-08."),
        ("8 May 2023", "2023-05-08"),
        ("the 8th of May, 2023", "2023-05-08"),
        ("Sept. 3, 2021", "2021-09-03"),
        ("13/05/2023", "2023-05-13"),
        ("05/13/2023", "2023-05-13"),
        ("2023/5/8", "2023-05-08"),
    ],
)
def test_unambiguous_written_dates_become_iso(text: str, expected: str) -> None:
    assert normalise_explicit_dates(text) == expected


@pytest.mark.parametrize("text", ["05/08/2023", "Feb 30, 2023", "May 2023"])
def test_ambiguous_or_impossible_dates_stay_as_written(text: str) -> None:
    assert normalise_explicit_dates(text) == text


@given(st.dates(min_value=date(1000, 1, 1), max_value=date(9999, 12, 31)))
def test_any_real_date_written_either_way_round_becomes_its_iso_form(day: date) -> None:
    month = MONTHS[day.month - 1]
    assert normalise_explicit_dates(f"{month} {day.day}, {day.year}") == day.isoformat()
    assert normalise_explicit_dates(f"{day.day} {month} {day.year}") == day.isoformat()


# --- user-given times -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("12:05 am on 1 January, 2024", datetime(2024, 1, 1, 0, 5, tzinfo=UTC)),
        ("10:37 am on 27 June, 2023", datetime(2023, 6, 27, 10, 37, tzinfo=UTC)),
        ("2024-05-01", datetime(2024, 5, 1, tzinfo=UTC)),
        ("2024-05-01T10:00:00Z", datetime(2024, 5, 1, 10, tzinfo=UTC)),
        ("May 8, 2023", datetime(2023, 5, 8, tzinfo=UTC)),
        ("Tuesday 3 June 2025 10:00", datetime(2025, 6, 3, 10, tzinfo=UTC)),
    ],
)
def test_user_given_times_are_read_in_the_usual_formats(value: str, expected: datetime) -> None:
    assert parse_time(value) == expected


def test_a_time_without_a_zone_gets_the_default_zone() -> None:
    paris = timezone(timedelta(hours=2))
    assert parse_time("2024-05-01 09:00", default_tz=paris) == datetime(2024, 5, 1, 9, tzinfo=paris)


@pytest.mark.parametrize("value", ["8 May", "yesterday", "soon", ""])
def test_a_time_missing_its_year_or_not_a_time_is_refused_with_the_formats_to_use(value: str) -> None:
    with pytest.raises(InvalidInputError, match="ISO 8601"):
        parse_time(value)


@given(
    st.datetimes(
        timezones=st.sampled_from([UTC, timezone(timedelta(hours=-5)), timezone(timedelta(hours=9))])
    )
)
def test_an_iso_time_reads_back_as_the_same_instant(when: datetime) -> None:
    assert parse_time(when.isoformat()) == when
