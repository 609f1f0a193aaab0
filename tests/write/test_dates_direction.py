"""Dates point the way their clause does: a month or weekday in a plan, a future or a scheduled present
counts forward from the message, one in a past clause counts back; a length of time is never a date."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st
from veramem_desktop.core.text.explicit_dates import MONTHS
from veramem_desktop.core.text.relative_dates import resolve_relative_dates
from veramem_desktop.core.text.tense import tense_at

JUNE = datetime(2025, 6, 10, 9, 30, tzinfo=UTC)  # a Tuesday
NOVEMBER = datetime(2024, 11, 20, 18, 0, tzinfo=UTC)  # a Wednesday


def resolve(text: str, anchor: datetime = JUNE) -> str:
    return resolve_relative_dates(text, anchor)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # plans and futures: the next such month
        ("We are relocating to Graz in August.", "We are relocating to Graz in August 2025."),
        ("relocating to Graz in August, finally", "relocating to Graz in August 2025, finally"),
        ("I'll sit the exam in March.", "I'll sit the exam in March 2026."),
        ("My sister plans to visit in October.", "My sister plans to visit in October 2025."),
        ("The new job begins in September.", "The new job begins in September 2025."),
        ("The boiler service is due in February.", "The boiler service is due in February 2026."),
        # past clauses: the last such month
        ("We relocated to Graz in August.", "We relocated to Graz in August 2024."),
        ("I sold the old bike in February.", "I sold the old bike in February 2025."),
        ("Adopted the kitten in January.", "Adopted the kitten in January 2025."),
        (
            "Priya and I split up in April.",
            "Priya and I split up in April 2025.",
        ),  # a past that looks present
        ("Swimming lessons every Monday since March.", "Swimming lessons every Monday since March 2025."),
    ],
)
def test_a_month_named_alone_counts_forward_in_a_plan_and_back_in_a_report(text: str, expected: str) -> None:
    assert resolve(text) == expected


def test_each_clause_of_a_sentence_keeps_its_own_direction() -> None:
    text = "I left the bakery in April and I will open my own shop in April."
    assert resolve(text, datetime(2025, 7, 1, tzinfo=UTC)) == (
        "I left the bakery in April 2025 and I will open my own shop in April 2026."
    )


def test_a_plan_said_late_in_the_year_lands_in_the_next_year() -> None:
    assert (
        resolve("We're heading to Oslo in February.", NOVEMBER) == "We're heading to Oslo in February 2025."
    )
    assert resolve("We went to Oslo in February.", NOVEMBER) == "We went to Oslo in February 2024."


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We fly out on Friday.", "We fly out on 2025-06-13."),
        ("The movers come on Monday.", "The movers come on 2025-06-16."),
        ("I'm seeing the surgeon on thursday.", "I'm seeing the surgeon on 2025-06-12."),
        ("The keys must be returned by Sunday.", "The keys must be returned by 2025-06-15."),
        ("We signed the lease on Friday.", "We signed the lease on 2025-06-06."),
        ("Got the results back on Monday.", "Got the results back on 2025-06-09."),
        ("I have felt better since Saturday.", "I have felt better since 2025-06-07."),
        # the message's own weekday is a week away, forward or back
        ("My new desk arrives on Tuesday.", "My new desk arrives on 2025-06-17."),
        ("My old desk broke on Tuesday.", "My old desk broke on 2025-06-03."),
    ],
)
def test_a_weekday_named_alone_is_the_coming_one_in_a_plan_and_the_last_one_in_a_report(
    text: str, expected: str
) -> None:
    assert resolve(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I have been vegetarian for three years.",
        "We're planning a two-week trip.",
        "She worked at the hospice for eleven months.",
        "I finished the whole course in three months.",  # how long it took
        "The hike took us four days.",
        "My brother hasn't called in two weeks.",  # a present perfect: how long, not when
        "It's been two weeks since the interview.",
        "I usually go skiing in February.",  # a habit names no one February
        "Choir practice is on Wednesdays.",  # every Wednesday
        "We always visit my parents on Sunday.",
    ],
)
def test_lengths_of_time_and_habits_are_not_dates(text: str) -> None:
    assert resolve(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'll hear back in three weeks' time.", "I'll hear back around 2025-07-01."),
        ("The clinic reopens in two months' time.", "The clinic reopens around August 2025."),
        ("The course starts in two weeks.", "The course starts around 2025-06-24."),
        ("I quit smoking three years ago.", "I quit smoking in 2022."),
    ],
)
def test_a_length_of_time_anchored_by_in_or_ago_is_a_date(text: str, expected: str) -> None:
    assert resolve(text) == expected


@pytest.mark.parametrize(
    ("text", "word", "tense"),
    [
        ("We'd booked the ferry for March", "March", "past"),
        ("hopefully moving to a bigger place in May", "May", "future"),
        ("they are getting married in May", "May", "future"),
        ("our landlord sold the building in May", "May", "past"),
        ("the nursery closes in May", "May", "present"),
    ],
)
def test_the_tense_of_a_clause_is_read_from_its_auxiliaries_and_verb_forms(
    text: str, word: str, tense: str
) -> None:
    at = text.index(word)
    assert tense_at(text, at, at + len(word)) == tense


@given(
    anchor=st.datetimes(
        min_value=datetime(1950, 1, 1), max_value=datetime(2090, 12, 31), timezones=st.just(UTC)
    ),
    month=st.integers(1, 12),
)
def test_a_planned_month_is_never_before_the_message_and_a_reported_one_never_after(
    anchor: datetime, month: int
) -> None:
    name = MONTHS[month - 1]
    first_of_anchor_month = date(anchor.year, anchor.month, 1)
    planned = resolve(f"We will travel to Rome in {name}.", anchor)
    reported = resolve(f"We travelled to Rome in {name}.", anchor)
    planned_year = int(planned.rsplit(" ", 1)[1].rstrip("."))
    reported_year = int(reported.rsplit(" ", 1)[1].rstrip("."))
    assert first_of_anchor_month <= date(planned_year, month, 1) < date(anchor.year + 1, anchor.month, 1)
    assert date(anchor.year - 1, anchor.month, 1) < date(reported_year, month, 1) <= first_of_anchor_month


def test_a_plan_said_in_june_is_stored_with_this_augusts_date(mem) -> None:  # type: ignore[no-untyped-def]
    said = "Relocating to Graz in August, and we fly out to see flats on Friday."
    result = mem.add([{"role": "user", "content": said, "time": "2025-06-10T09:30:00Z"}])
    texts = " ".join(d["text"] for d in result.added)
    assert "August 2025" in texts
    assert "2025-06-13" in texts
    assert "2024" not in texts


@pytest.mark.parametrize(
    ("text", "begins"),
    [
        # a day named by a month's short form and a bare number, in a clause of its own after "so we"
        ("Kofi got a contract in Bergen so we move there on sept 4, packing already.", "2025-09-04"),
        ("moving into the new place on 1 aug", "2025-08-01"),
        ("we move on Sept. 4th", "2025-09-04"),
        # past, a time of day, a bigger number: no day
        ("I was so glad we moved in on the 3rd of March", JUNE.isoformat()),
        ("the train's at jun 10:45 apparently", JUNE.isoformat()),
    ],
)
def test_a_day_of_a_month_said_short_in_a_plan_is_when_it_begins(text: str, begins: str) -> None:
    from veramem_desktop.core.recall import periods

    assert periods.begun(text, JUNE.isoformat()) == begins
