"""A statement naming a plan beside what holds until its day ("moving to X in March, still renting in Y")
is two versions once the day has come (models/llm/rules/plans.py): the answer says the plan's value as
current and the other as past, and a question about a time before the day, or before the change, is
answered with the value that held then. Every sentence is written for these tests."""

from __future__ import annotations

from datetime import date

from veramem_desktop.core.llm import ContextItem
from veramem_desktop.models.llm.rules import plans

from veramem_desktop.bench.truth_natural_section import as_of_answer, stale_as_current
from veramem_desktop.memory import Memory


def _item(text: str, time: str = "2023-12-05T12:00:00+00:00") -> ContextItem:
    return ContextItem("mem_1", text, "fact", "authorized", time, subject="lives_in")


def test_a_plan_beside_what_holds_until_then_is_two_versions_once_its_day_has_come() -> None:
    found = plans.split(
        [_item("I'm moving to Kilkenny in March 2024, still renting in Waterford for now.")], date(2025, 1, 1)
    )
    assert [(i.text, i.state) for i in found] == [
        ("I'm moving to Kilkenny in March 2024.", "current"),
        ("Renting in Waterford for now.", "probably_superseded"),
    ]
    assert found[0].time == "2024-03-01" and found[1].superseded_by == "mem_1"
    assert found[0].group == found[1].group


def test_a_plan_whose_day_has_not_come_and_a_plain_statement_stay_whole() -> None:
    plan = _item("I'm moving to Kilkenny in March 2024, still renting in Waterford for now.")
    assert plans.split([plan], date(2024, 1, 10)) == [plan]
    plain = _item("I live in Waterford, near the quay.")
    assert plans.split([plain], date(2025, 1, 1)) == [plain]
    assistant = ContextItem("mem_2", plan.text, "fact", "attested", plan.time)
    assert plans.split([assistant], date(2025, 1, 1)) == [assistant]


def test_the_answer_says_the_plans_value_now_and_the_old_one_for_a_time_before_its_day(rmem: Memory) -> None:
    rmem.add(
        [
            {
                "role": "user",
                "content": "I'm moving to Kilkenny in March 2024, still renting in Waterford for now.",
                "time": "2023-12-05T12:00:00+00:00",
            }
        ]
    )
    now = rmem.answer("Where do I live now?")
    assert not now.abstained and "Kilkenny" in now.text
    assert not stale_as_current(now.text, ["Waterford"]), now.text
    for question in ("Where was I living in January 2024?", "Where did I live before the move to Kilkenny?"):
        then = rmem.answer(question)
        assert as_of_answer(then.text, then.abstained, ["Waterford"], ["Kilkenny"]), (question, then.text)


def test_a_value_is_dated_from_the_day_a_sibling_sentence_of_its_message_gives() -> None:
    told = "2024-04-10T12:00:00+00:00"
    value = _item("Going with Halloran Foods.", told)
    day = ContextItem("mem_2", "User starts on the 2nd of June.", "fact", "authorized", told)
    other = _item("Our kitchen is tiny.", "2024-04-11T12:00:00+00:00")
    found = plans.dated_by_siblings([value, day, other])
    assert found[0].time == "2024-06-02" and found[1] == day and found[2] == other
    # a claim of the assistant's, or a sibling naming something, dates nothing
    claim = ContextItem("mem_3", "User starts on the 2nd of June.", "fact", "attested", told)
    assert plans.dated_by_siblings([value, claim]) == [value, claim]


def test_a_new_job_whose_first_day_a_sibling_sentence_gives_leaves_the_old_one_until_then(
    rmem: Memory,
) -> None:
    rmem.add([{"role": "user", "content": "I work at Brennock Dairy.", "time": "2022-03-01T12:00:00+00:00"}])
    rmem.add(
        [
            {
                "role": "user",
                "content": "Going with Halloran Foods. I start on the 2nd of June.",
                "time": "2024-04-10T12:00:00+00:00",
            }
        ]
    )
    then = rmem.answer("Where was I working in May 2024?")
    assert as_of_answer(then.text, then.abstained, ["Brennock"], ["Halloran"]), then.text
