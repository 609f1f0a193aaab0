"""A question naming a time is answered with the version that held then, even when relevance found only
what holds now: the answer path adds the messages that stated the memory's other versions (a replaced
memory is never a search hit; its message is)."""

from __future__ import annotations

from veramem_desktop.memory import Memory


def _said(mem: Memory, text: str, day: str) -> None:
    mem.add([{"role": "user", "content": text, "time": f"{day}T12:00:00+00:00"}])


def test_the_version_valid_then_answers_though_relevance_found_only_the_current_one(mem: Memory) -> None:
    _said(mem, "My dentist is Dr Okafor.", "2021-04-02")
    _said(mem, "My dentist is Dr Lindqvist now.", "2024-08-19")
    versions = mem.history(mem.search("dentist", k=1).results[0].id)
    assert len(versions) == 2  # the write path recorded the change
    said = mem.answer("Who was my dentist in May 2023?", k=1)
    assert not said.abstained and "versions" in said.ladder
    assert said.text.index("Okafor") < (
        said.text.index("Lindqvist") if "Lindqvist" in said.text else len(said.text)
    )
    assert mem.answer("Who is my dentist?", k=1).text.startswith("Your dentist is Dr Lindqvist")


def test_a_value_that_ended_answers_for_the_time_it_held(mem: Memory) -> None:
    """An ending retracts the value with the day it stopped; the versions rung finds it by the asked
    attribute's key, so the answer about a time it held names it though relevance found the newer job."""
    _said(mem, "I work at Harrowgate Foods as a buyer.", "2022-03-01")
    _said(mem, "I handed in my notice at Harrowgate Foods today.", "2023-06-10")
    _said(mem, "Week two at Cindermoss Labs, loving it.", "2023-09-20")
    said = mem.answer("Where did I work in January 2023?")
    assert not said.abstained and "Harrowgate" in said.text, said.text
    assert "Cindermoss" not in said.text or said.text.index("Harrowgate") < said.text.index("Cindermoss")


def test_a_plan_holds_from_the_day_it_names_not_the_day_it_was_said(mem: Memory) -> None:
    """A new job said in September with its first day in November: in October the old job still held."""
    _said(mem, "I work at Pellwood Bakery.", "2025-01-05")
    _said(mem, "Signed with Tarnmoor Studio, first day is the 3rd of November.", "2025-09-15")
    october = mem.answer("Where was I working in October 2025?")
    assert "Pellwood" in october.text, october.text
    assert "Tarnmoor" not in october.text or october.text.index("Pellwood") < october.text.index("Tarnmoor")
    assert "Tarnmoor" in mem.answer("Where was I working in December 2025?").text


def test_a_part_of_a_year_is_a_time_a_question_names() -> None:
    from datetime import date

    from veramem_desktop.core.recall import periods
    from veramem_desktop.core.recall.query import asked_time

    for question, span in (
        ("Who was my partner in mid 2024?", (date(2024, 5, 1), date(2024, 9, 1))),
        ("Where did I live in early-2023?", (date(2023, 1, 1), date(2023, 5, 1))),
        ("What car did I have at the end of 2022?", (date(2022, 9, 1), date(2023, 1, 1))),
    ):
        asked = asked_time(question)
        assert asked is not None, question
        period = periods.resolve(asked, date(2026, 1, 1))
        assert period is not None and (period.start, period.end) == span, question


def test_a_season_of_a_named_year_is_that_years_season_not_the_latest() -> None:
    from datetime import date

    from veramem_desktop.core.recall import periods
    from veramem_desktop.core.recall.query import asked_time

    for question, span in (
        ("Which town was I in during summer 2021?", (date(2021, 6, 1), date(2021, 9, 1))),
        ("Where did I swim in the autumn of 2020?", (date(2020, 9, 1), date(2020, 12, 2))),
        ("What bike did I ride in winter 2022?", (date(2022, 12, 1), date(2023, 3, 3))),
        ("Where did I work last summer?", (date(2025, 6, 1), date(2025, 9, 1))),
    ):
        asked = asked_time(question)
        assert asked is not None, question
        period = periods.resolve(asked, date(2026, 1, 1))
        assert period is not None and (period.start, period.end) == span, question


def test_a_season_of_a_named_year_answers_with_the_version_of_that_year(mem: Memory) -> None:
    _said(mem, "I live in Carrickmore, above the chemist.", "2021-02-10")
    _said(mem, "We moved to Dunlavin last weekend!", "2022-04-03")
    _said(mem, "Our Dunlavin flat finally has curtains.", "2024-01-10")  # the latest summer is 2023's
    said = mem.answer("Where was I living in summer 2021?")
    assert not said.abstained and "Carrickmore" in said.text, said.text
    assert "Dunlavin" not in said.text or said.text.index("Carrickmore") < said.text.index("Dunlavin")


def test_a_day_of_a_month_without_its_year_is_read_forward_outside_a_past_clause() -> None:
    from datetime import UTC, date, datetime

    from veramem_desktop.core.recall import periods

    told = datetime(2026, 1, 12, tzinfo=UTC)
    days = [p.start for p in periods.stated_days("My first day there is the 2nd of March.", told)]
    assert days == [date(2026, 3, 2)]
    assert [p.start for p in periods.stated_days("We fly out December 3rd.", told)] == [date(2026, 12, 3)]
    assert periods.stated_days("I moved in on the 3rd of March.", told) == []


def test_before_a_change_named_by_a_noun_answers_with_the_version_before_it(mem: Memory) -> None:
    _said(mem, "I live in Pollokshaws, two minutes from the park.", "2021-06-02")
    _said(mem, "We moved to Kelvinside!", "2023-05-14")
    said = mem.answer("Where did I live before the move to Kelvinside?")
    assert not said.abstained and "Pollokshaws" in said.text, said.text
    assert "Kelvinside" not in said.text or said.text.index("Pollokshaws") < said.text.index("Kelvinside")


def test_before_a_change_in_a_named_season_answers_with_the_version_before_that_change(mem: Memory) -> None:
    _said(mem, "I bank with Fallowmere Savings.", "2022-03-01")
    _said(mem, "Moved all my accounts over to Ostrander Bank.", "2023-10-10")
    said = mem.answer("Who did I bank with before the switch in autumn 2023?")
    assert not said.abstained and "Fallowmere" in said.text, said.text
    assert "Ostrander" not in said.text or said.text.index("Fallowmere") < said.text.index("Ostrander")


def test_what_a_before_phrase_names() -> None:
    from datetime import date

    from veramem_desktop.models.llm.rules.answer_time import asked_when

    today = date(2025, 12, 1)
    assert asked_when("Where did I live before the move to Kelvinside?", [], today).before_change
    assert asked_when("Where did I work before I changed jobs?", [], today).before_change
    switch = asked_when("Who did I bank with before the switch in autumn 2023?", [], today)
    assert switch is not None and switch.before_change and switch.end == "2023-12-02"
    assert asked_when("Where did I live before Christmas?", [], today) is None  # a day, no change


def test_a_person_asked_by_name_is_also_the_relative_the_history_calls_them(rmem: Memory) -> None:
    """ "my sister Ines" makes Ines the sister: a later line calling her only "my sister" speaks of Ines, so
    it is what holds now for her, and the older line what held before (the real embedder)."""
    mem = rmem
    _said(mem, "my sister Ines works at Marrow Bank, she hates the commute", "2022-02-01")
    _said(mem, "can you write a card for my sister, she landed a job at Quillfeather Games", "2023-06-10")
    then = mem.answer("where was Ines working in March 2022?")
    assert not then.abstained and "Marrow Bank" in then.text, then.text
    now = mem.answer("where does Ines work now?")
    assert not now.abstained and "Quillfeather" in now.text, now.text
    assert "Marrow" not in now.text or now.text.index("Quillfeather") < now.text.index("Marrow")


def test_before_the_first_change_a_state_said_earlier_with_no_start_answers(rmem: Memory) -> None:
    """The first keyed version is a switch made after the asked time; a line said between the asked time
    and the switch names the provider by its noun, with no start of its own: it had held before it was
    said, so it answers for the asked time, said as what the person said then."""
    _said(
        rmem,
        "my bills as of 1 Feb:\nrent 700\nlarkspur broadband 38\ngym 30\n\nwhere can I save?",
        "2023-02-03",
    )
    _said(rmem, "switched to Tallow Broadband, 25 a month for 900mb, way faster", "2023-04-10")
    said = rmem.answer("who was my broadband provider in January 2023?")
    assert not said.abstained and "larkspur" in said.text.lower(), said.text
    assert "Tallow" not in said.text, said.text
