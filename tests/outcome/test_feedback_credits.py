"""Feedback on a trace: who gets credit, how much, and what it does to ranking."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest
from support.internals import store_of
from veramem_desktop.core.errors import InvalidInputError, NotFoundError, RefusedError
from veramem_desktop.core.storage import items, ledger_verify

from veramem_desktop.memory import Memory

TEAS = ["I like green tea.", "I like black tea.", "I like mint tea.", "I like jasmine tea."]
QUERY = "which tea do I like"


def _memories_ranked(mem: Memory) -> tuple[str, list[tuple[str, float]]]:
    result = mem.search(QUERY, route="facts")
    return result.trace_id, [(h.id, h.score) for h in result.results if h.kind != "episode"]


def _rank(ranked: list[tuple[str, float]], memory_id: str) -> int:
    return [i for i, _ in ranked].index(memory_id)


def test_positive_feedback_raises_a_memory_in_the_ranking_of_the_same_query(mem: Memory) -> None:
    mem.add(TEAS)
    trace_id, before = _memories_ranked(mem)
    assert len(before) == 4
    target, target_score = before[1]
    assert before[0][1] - target_score < 0.03, "the test needs two nearly tied memories"
    mem.feedback(trace_id, 1.0, cited_ids=[target])
    _, after = _memories_ranked(mem)
    assert _rank(after, target) < _rank(before, target)
    assert _rank(after, target) == 0


def test_negative_feedback_lowers_a_memory_in_the_ranking_of_the_same_query(mem: Memory) -> None:
    mem.add(TEAS)
    trace_id, before = _memories_ranked(mem)
    target = before[0][0]
    assert before[0][1] - before[1][1] < 0.03, "the test needs two nearly tied memories"
    mem.feedback(trace_id, -1.0, cited_ids=[target])
    _, after = _memories_ranked(mem)
    assert _rank(after, target) > _rank(before, target)


def test_without_cited_ids_every_retrieved_memory_is_credited_and_episodes_are_not(mem: Memory) -> None:
    mem.add(TEAS)
    trace_id, ranked = _memories_ranked(mem)
    out = mem.feedback(trace_id, 0.5)
    assert out["basis"] == "retrieved"
    assert sorted(c["id"] for c in out["credited"]) == sorted(i for i, _ in ranked)
    for memory_id, _ in ranked:
        item = mem.get(memory_id)
        assert (item.successes, item.failures, item.uses) == (0.5, 0.0, 1)
        assert item.last_used_at is not None


def test_cited_ids_the_trace_never_retrieved_are_ignored_and_reported(mem: Memory) -> None:
    mem.add(TEAS)
    other = mem.add("My sister lives in Porto.", user_id="bob").added[0]["id"]
    trace_id, ranked = _memories_ranked(mem)
    assert other not in {i for i, _ in ranked}
    out = mem.feedback(trace_id, 1.0, cited_ids=[ranked[0][0], other])
    assert out["ignored_ids"] == [other]
    assert [c["id"] for c in out["credited"]] == [ranked[0][0]]
    assert mem.get(other).successes == 0.0


def test_a_reward_is_measured_against_the_users_running_mean_once_one_exists(mem: Memory) -> None:
    mem.add(TEAS)
    first, ranked = _memories_ranked(mem)
    a, b = ranked[0][0], ranked[1][0]
    out1 = mem.feedback(first, 1.0, cited_ids=[a])
    assert out1["baseline"] is None and out1["advantage"] == 1.0
    second, _ = _memories_ranked(mem)
    out2 = mem.feedback(second, 1.0, cited_ids=[b])
    # this user always says "good": the second one carries no news
    assert out2["baseline"] == 1.0 and out2["advantage"] == 0.0
    assert mem.get(b).successes == 0.0 and mem.get(b).uses == 1
    third, _ = _memories_ranked(mem)
    out3 = mem.feedback(third, 0.0, cited_ids=[b])
    assert out3["baseline"] == 1.0 and out3["advantage"] == -1.0
    assert mem.get(b).failures == 1.0
    assert mem.get(a).utility == pytest.approx(2 / 3)


def test_credit_for_a_superseded_memory_goes_to_its_current_version(mem: Memory) -> None:
    mem.add(TEAS)
    trace_id, ranked = _memories_ranked(mem)
    old = mem.get(ranked[0][0])
    evidence = items.evidence_for(store_of(mem), old.id)
    with store_of(mem).atomic() as conn:
        new = items.new_version(
            conn, old, replace(old, text=old.text + " Every day."), evidence, device="dev_test"
        )
    out = mem.feedback(trace_id, 1.0, cited_ids=[old.id])
    assert out["credited"] == [{"id": new.id, "via": old.id, "utility": 0.6667}]
    assert mem.get(old.id).successes == 0.0 and mem.get(new.id).successes == 1.0


def test_a_trace_takes_one_reward_and_repeating_it_changes_nothing(mem: Memory) -> None:
    mem.add(TEAS)
    trace_id, ranked = _memories_ranked(mem)
    mem.feedback(trace_id, 1.0)
    entries = len(mem.reading.ledger_entries())
    again = mem.feedback(trace_id, 1.0)
    assert again["repeated"] is True and len(mem.reading.ledger_entries()) == entries
    assert mem.get(ranked[0][0]).successes == 1.0
    with pytest.raises(RefusedError, match="already has the reward"):
        mem.feedback(trace_id, -1.0)


@pytest.mark.parametrize("reward", [1.5, -1.01, math.nan, math.inf, "1", True, None])
def test_a_reward_outside_minus_one_to_one_is_refused_with_a_clear_message(mem: Memory, reward: Any) -> None:
    mem.add(TEAS)
    trace_id, _ = _memories_ranked(mem)
    with pytest.raises(InvalidInputError, match="between -1 and 1"):
        mem.feedback(trace_id, reward)
    assert store_of(mem).query_one("SELECT reward FROM traces WHERE id = ?", (trace_id,))[0] is None


def test_an_unknown_trace_is_not_found(mem: Memory) -> None:
    with pytest.raises(NotFoundError, match="trace_id a search or answer returned"):
        mem.feedback("tr_nope", 1.0)


def test_feedback_is_in_the_ledger_in_the_same_transaction_and_the_chain_verifies(mem: Memory) -> None:
    mem.add(TEAS)
    trace_id, ranked = _memories_ranked(mem)
    out = mem.feedback(trace_id, -0.5, cited_ids=[ranked[2][0]])
    outcome = [e for e in mem.reading.ledger_entries() if e.op == "memory.outcome"]
    assert [e.target_id for e in outcome] == [ranked[2][0]]
    assert outcome[0].details == {
        "advantage": -0.5,
        "trace": trace_id,
        "by": "person",
        "actor": {"kind": "user", "id": "me", "channel": "sdk"},
    }
    fb = [e for e in mem.reading.ledger_entries() if e.op == "trace.feedback"]
    assert fb[0].target_id == trace_id and fb[0].details["credited"] == [c["id"] for c in out["credited"]]
    assert ledger_verify.verify(store_of(mem)).ok
    row = store_of(mem).query_one(
        "SELECT reward, rewarded_at, cited_ids FROM traces WHERE id = ?", (trace_id,)
    )
    assert row[0] == -0.5 and row[1] and ranked[2][0] in row[2]


def test_a_helpful_use_restores_retrieval_strength_and_an_unhelpful_one_does_not(mem: Memory) -> None:
    mem.add(TEAS)
    trace_id, ranked = _memories_ranked(mem)
    a, b = ranked[0][0], ranked[1][0]
    with store_of(mem).atomic() as conn:
        for memory_id in (a, b):
            items.set_fields(conn, memory_id, device="dev_test", op="memory.decay", retrieval_strength=0.4)
    mem.feedback(trace_id, 1.0, cited_ids=[a])
    second, _ = _memories_ranked(mem)
    mem.feedback(second, -1.0, cited_ids=[b])
    assert mem.get(a).retrieval_strength == 1.0
    assert mem.get(b).retrieval_strength == 0.4
