"""The date-fit channel: a question naming a time ranks the turns whose session or stated date fits it."""

from __future__ import annotations

from datetime import date

import pytest
from support.internals import embedder_of, engine_of, store_of
from veramem_desktop.core.recall import SearchConfig, SearchEngine
from veramem_desktop.core.recall.periods import Period, resolve, stated_days
from veramem_desktop.core.recall.query import AskedTime, asked_time

from veramem_desktop.memory import Memory

ANCHOR = date(2023, 10, 20)


def _say(mem: Memory, session: str, when: str, text: str, user: str = "me", who: str = "Ana") -> str:
    result = mem.add([{"content": text, "name": who, "time": when}], user_id=user, session_id=session)
    return result.episodes[0].id


def _rank(mem: Memory, query: str, channels: tuple[str, ...], user: str = "me") -> list[str]:
    _, scores, _ = engine_of(mem).rank(query, mem.caller(user), route="raw", channels=channels)
    return sorted(scores, key=lambda d: -scores[d])


@pytest.mark.parametrize(
    ("question", "asked", "period"),
    [
        (
            "What did Ana paint in May 2023?",
            AskedTime("month", "may 2023"),
            Period(date(2023, 5, 1), date(2023, 6, 1)),
        ),
        (
            "When did Ana go camping in June?",
            AskedTime("month", "june"),
            Period(date(2023, 6, 1), date(2023, 7, 1)),
        ),
        (
            "What did she show on October 13, 2023?",
            AskedTime("day", "October 13, 2023"),
            Period(date(2023, 10, 13), date(2023, 10, 14)),
        ),
        (
            "How often did he go to the beach in 2022?",
            AskedTime("year", "2022"),
            Period(date(2022, 1, 1), date(2023, 1, 1)),
        ),
        (
            "What did they enjoy last summer?",
            AskedTime("season", "last summer"),
            Period(date(2023, 6, 1), date(2023, 9, 1)),
        ),
        (
            "Where did John travel last year?",
            AskedTime("last", "year"),
            Period(date(2022, 1, 1), date(2023, 1, 1)),
        ),
        (
            "What did John do the week before August 3, 2023 with his kids?",
            AskedTime("before", "the|week|August 3, 2023"),
            Period(date(2023, 7, 24), date(2023, 8, 4)),
        ),
        # a holiday of a named year: the week around its day (Easter moves, by the computus)
        (
            "Where were we living at Easter 2022?",
            AskedTime("holiday", "easter 2022"),
            Period(date(2022, 4, 14), date(2022, 4, 21)),
        ),
        (
            "Who was looking after Dad at Christmas 2021?",
            AskedTime("holiday", "christmas 2021"),
            Period(date(2021, 12, 22), date(2021, 12, 29)),
        ),
        (
            "which flat was i in on new year's eve 2022",
            AskedTime("holiday", "new year's eve 2022"),
            Period(date(2022, 12, 28), date(2023, 1, 4)),
        ),
        (
            "What puppy did she get two weeks before August 11, 2023?",
            AskedTime("before", "two|week|August 11, 2023"),
            Period(date(2023, 7, 25), date(2023, 8, 12)),
        ),
    ],
)
def test_the_time_a_question_asks_about_is_read_against_the_latest_session(
    question: str, asked: AskedTime, period: Period
) -> None:
    assert asked_time(question) == asked
    assert resolve(asked, ANCHOR) == period


def test_questions_without_a_time_and_may_the_verb_name_no_time() -> None:
    assert asked_time("What did Ana paint?") is None
    assert asked_time("Where may I park the car?") is None
    assert asked_time("When did Ana move to Berlin?") is None


def test_a_span_counted_from_an_event_is_dated_by_that_event() -> None:
    asked = asked_time("What did I buy the week before Alice's birthday?")
    assert asked == AskedTime("before", "the|week|Alice's birthday")
    assert resolve(asked, ANCHOR) is None, "without a way to date the event, no period"
    assert resolve(
        asked, ANCHOR, lambda what: date(2023, 3, 20) if what == "Alice's birthday" else None
    ) == Period(date(2023, 3, 10), date(2023, 3, 21))


def test_a_turn_states_dates_relative_to_when_it_was_told() -> None:
    from datetime import UTC, datetime

    told = datetime(2023, 7, 20, tzinfo=UTC)
    assert Period(date(2023, 6, 1), date(2023, 7, 1)) in stated_days("In June I went to Lisbon.", told)
    assert Period(date(2023, 7, 19), date(2023, 7, 20)) in stated_days("Yesterday we baked bread.", told)
    assert stated_days("We baked bread.", told) == []


def test_a_question_naming_a_month_ranks_that_months_turns_first(rmem: Memory) -> None:
    may = _say(
        rmem, "s1", "2023-05-10T10:00:00+00:00", "I cooked soup, cooked soup again, cooked soup all day."
    )
    june = _say(rmem, "s2", "2023-06-14T10:00:00+00:00", "I cooked soup for the neighbours on the terrace.")
    question = "What soup did Ana cook in June 2023?"
    assert _rank(rmem, question, ("bm25",))[0] == may, "without the channel the May turn leads"
    assert _rank(rmem, question, ("bm25", "temporal"))[0] == june


def test_a_turn_stating_the_asked_date_fits_though_told_later(rmem: Memory) -> None:
    plain = _say(rmem, "s1", "2023-07-20T10:00:00+00:00", "Lisbon trip, Lisbon food, Lisbon is lovely.")
    stated = _say(
        rmem, "s2", "2023-07-21T10:00:00+00:00", "In June I went on a trip to Lisbon with my sister."
    )
    question = "Where did Ana go on a trip in June 2023? Lisbon?"
    assert _rank(rmem, question, ("bm25",))[0] == plain
    assert _rank(rmem, question, ("bm25", "temporal"))[0] == stated


def test_the_week_before_an_event_is_dated_by_the_turn_that_tells_of_the_event(rmem: Memory) -> None:
    _say(rmem, "s0", "2023-03-01T10:00:00+00:00", "Alice's birthday party is on 20 March 2023.")
    early = _say(rmem, "s1", "2023-01-10T10:00:00+00:00", "I found a scarf, a red scarf, the best scarf.")
    fits = _say(rmem, "s2", "2023-03-15T10:00:00+00:00", "I found a scarf at the market.")
    question = "Which scarf did I find the week before Alice's birthday?"
    order = _rank(rmem, question, ("bm25",))
    assert order.index(early) < order.index(fits)
    order = _rank(rmem, question, ("bm25", "temporal"))
    assert order.index(fits) < order.index(early)


def test_the_channel_is_off_at_weight_zero_and_counts_from_the_callers_own_sessions(rmem: Memory) -> None:
    older = _say(rmem, "s1", "2022-05-10T10:00:00+00:00", "I cooked soup for the neighbours on the terrace.")
    newer = _say(
        rmem, "s2", "2023-06-14T10:00:00+00:00", "I cooked soup, cooked soup again, cooked soup all day."
    )
    # Another person's later sessions move neither the anchor of "last year" nor the ranking.
    _say(rmem, "o1", "2025-03-01T10:00:00+00:00", "I cooked soup in 2024 too.", user="other")
    question = "What soup did Ana cook last year?"  # the latest session of "me" is in 2023: last year is 2022
    assert _rank(rmem, question, ("bm25",))[0] == newer
    assert _rank(rmem, question, ("bm25", "temporal"))[0] == older
    off = SearchEngine(store_of(rmem), embedder_of(rmem), SearchConfig(temporal_weight=0.0))
    _, with_off, _ = off.rank(question, rmem.caller("me"), route="raw", channels=("bm25", "temporal"))
    _, plain, _ = off.rank(question, rmem.caller("me"), route="raw", channels=("bm25",))
    assert with_off == plain
    assert all(not d.startswith("ep_") or d in with_off for d in plain)
    other_ids = {e.id for e in rmem.episodes(user_id="other", limit=10)}
    assert not other_ids & set(_rank(rmem, question, ("bm25", "temporal")))
