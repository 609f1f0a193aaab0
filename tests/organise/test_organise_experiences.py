"""Experiences are reinforced rather than copied, and an abstraction whose slots do not replace
whole values is refused and reported, whoever wrote it (issue 18, part 6 a and b)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from consolidation_support import entries, one, open_memory, rate, rows, sources
from veramem_desktop.core.lifecycle.abstraction import problems
from veramem_desktop.core.llm import Reply
from veramem_desktop.models.llm.rule_based import RuleBasedLLM
from veramem_desktop.models.llm.rules.abstract import abstract_experience, slot_values

from veramem_desktop.memory import Memory

QUESTIONS = ("What do I work as?", "Where did I move to?", "Where does my sister live?")


@pytest.fixture
def mem(isolated_home: Path) -> Iterator[Memory]:
    m = open_memory(isolated_home)
    yield m
    m.close()


def _facts(mem: Memory) -> list[str]:
    return [
        one(mem, "I work as a nurse at Lisbon General.", session_id="s1"),
        one(mem, "I moved to Porto in May 2024.", session_id="s1"),
        one(mem, "My sister Maria lives in Madrid.", session_id="s1"),
    ]


def _experiences(mem: Memory) -> list[tuple[str, str, str, str]]:
    return rows(mem, "kind = 'experience' AND status = 'active'")


def test_the_same_question_answered_well_many_times_makes_one_experience_with_that_support(
    mem: Memory,
) -> None:
    facts = _facts(mem)
    traces = {q: rate(mem, q, [f], times=8) for q, f in zip(QUESTIONS, facts, strict=True)}
    report = mem.consolidate()
    distil = report.stages["distil"]
    assert report.reconciles and (distil.found, distil.written, len(distil.reinforced)) == (24, 3, 21)
    made = _experiences(mem)
    assert len(made) == 3  # one per question, not one per well-rated trace (24 before)
    for exp_id, *_ in made:
        item = mem.get(exp_id)
        assert item.metadata["support"] == 8 and len(item.metadata["from_traces"]) == 8
        assert set(item.metadata["from_traces"]) in [set(t) for t in traces.values()]
        [entry] = entries(
            mem, "memory.reinforce", exp_id
        )  # the ledger says it was reinforced, by which traces
        assert entry.details["support"] == 8 and len(entry.details["traces"]) == 7


def test_a_later_good_answer_reinforces_the_experience_and_extends_its_sources(mem: Memory) -> None:
    facts = _facts(mem)
    rate(mem, QUESTIONS[0], [facts[0]], times=2)
    mem.consolidate()
    [(exp_id, *_)] = _experiences(mem)
    assert sources(mem, exp_id) == {facts[0]}
    strength_before = mem.get(exp_id).retrieval_strength
    extra = one(mem, "I work night shifts at the hospital.", session_id="s2")
    later = rate(mem, "what do I work as", [facts[0], extra])  # the same question, spelt differently
    report = mem.consolidate()
    assert report.stages["distil"].written == 0 and report.stages["distil"].reinforced == [exp_id]
    assert [e[0] for e in _experiences(mem)] == [exp_id]
    item = mem.get(exp_id)
    assert item.metadata["support"] == 3 and later[0] in item.metadata["from_traces"]
    assert item.retrieval_strength >= strength_before
    assert sources(mem, exp_id) == {facts[0], extra}  # forgetting the new source now reaches it too
    last = entries(mem, "memory.reinforce", exp_id)[-1]
    assert {k: last.details[k] for k in ("traces", "support", "sources_added")} == {
        "traces": later,
        "support": 3,
        "sources_added": [extra],
    }
    # nothing more to do: the same traces are not counted twice
    again = mem.consolidate().stages["distil"]
    assert again.skipped == {"already_distilled": 3} and again.written == 0 and not again.reinforced


def test_rule_based_abstraction_keeps_question_words_and_whole_dates(mem: Memory) -> None:
    facts = _facts(mem)
    rate(mem, QUESTIONS[0], facts[:2])
    mem.consolidate()
    [(exp_id, _, _, text)] = _experiences(mem)
    assert "What do I work as" in text and "{slot_1} do I" not in text
    assert not re.search(r"\{slot_\d+\}\w|\w\{slot_\d+\}", text)  # no slot glued to a piece of a value
    for value in ("Lisbon", "Porto", "2024", "May"):
        assert value not in text
    assert problems(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I moved to Porto in May 2024.", "I moved to {slot_1} in {slot_2}."),
        ("Booked the Hotel Adlon on May 20, 2024 for $300.", "Booked the {slot_1} on {slot_2} for {slot_3}."),
        ("Someone asked: What did Ann book?", "Someone asked: What did {slot_1} book?"),
        ("The Mayor of Lisbon met us.", "The {slot_1} met us."),
    ],
)
def test_rule_based_slots_replace_whole_values_only(text: str, expected: str) -> None:
    assert slot_values(text)[0] == expected
    assert problems(abstract_experience(text), text) == []


class GarblingLLM(RuleBasedLLM):
    """The rule-based backend, except that its abstractions cut values the way a weak model does."""

    def abstract_experience(self, text: str) -> Reply[str]:
        return Reply(
            "## {slot_1} do I work as\nApplies when: Someone asked: {slot_1} do I work as?\n"
            "Inputs: {slot_1}, {slot_2}\nProcedure: 1. User moved to Porto in {slot_2}24.\nCaution: none"
        )


def test_a_garbled_abstraction_from_the_model_is_refused_and_reported(isolated_home: Path) -> None:
    mem = open_memory(isolated_home, llm=GarblingLLM())
    try:
        facts = _facts(mem)
        rate(mem, QUESTIONS[0], facts[:2], times=3)
        report = mem.consolidate()
        distil = report.stages["distil"]
        assert report.reconciles and distil.written == 0 and distil.skipped == {"garbled_abstraction": 3}
        [notice] = [n for n in report.notices if "abstraction was refused" in n]
        assert "'What'" in notice and "cuts a word or number" in notice
        assert _experiences(mem) == []
    finally:
        mem.close()


def test_the_abstraction_check_names_each_kind_of_garbling() -> None:
    source = "Someone asked: What do I work as? User works as a nurse at Lisbon General. User moved in 2024."
    assert problems("Someone asked: {slot_1} do I work as?", source) == [
        "{slot_1} replaced 'What', which is no name, number or date"
    ]
    assert problems("User moved in {slot_4}24.", source) == [
        "a placeholder cuts a word or number ('{slot_4}2')"
    ]
    assert problems("a nurse at {slot_2} General.", source) == [
        "{slot_2} replaced part of the name Lisbon General"
    ]
    assert problems("Inputs: {slot 1}", source) == ["a malformed placeholder '{slot 1}'"]
    assert problems("User works as a nurse at {slot_1}. User moved in {slot_2}.", source) == []


class GarblesWhenSharing(RuleBasedLLM):
    """Sound abstractions while consolidating; garbled ones once ``garble`` is set (for sharing)."""

    garble = False

    def abstract_experience(self, text: str) -> Reply[str]:
        if self.garble:
            return GarblingLLM().abstract_experience(text)
        return super().abstract_experience(text)


def test_sharing_refuses_a_garbled_abstraction_and_keeps_the_experience_local(isolated_home: Path) -> None:
    llm = GarblesWhenSharing()
    mem = open_memory(isolated_home, llm=llm)
    try:
        facts = _facts(mem)
        rate(mem, QUESTIONS[0], facts[:2])
        [exp_id] = mem.consolidate().stages["distil"].ids
        mem.curation.mark_shareable(exp_id)
        llm.garble = True
        report = mem.curation.share(only=[exp_id])
        assert report.shared == [] and report.merged == []
        assert report.refused == [
            {
                "id": exp_id,
                "reason": "abstraction refused: a placeholder does not replace a whole name, number or date",
            }
        ]
        assert rows(mem, "source = 'shared'") == []
        llm.garble = False
        sound = mem.curation.share(
            only=[exp_id]
        )  # a sound abstraction passes this check (the gate may still refuse)
        assert not [r for r in sound.refused if r["reason"].startswith("abstraction refused")]
    finally:
        mem.close()
