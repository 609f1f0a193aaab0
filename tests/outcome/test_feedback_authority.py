"""Whose word feedback is: an agent's failures lower a memory in the ranking, but only a giver
whose authority reaches a memory's may get it archived (never a person's fact on an agent's word)."""

from __future__ import annotations

from datetime import UTC, datetime

from support.internals import store_of
from veramem_desktop.core.lifecycle.outcome import archive_counters
from veramem_desktop.core.storage import items, ledger

from veramem_desktop.memory import Memory

FACT = "My blood type is O negative."
QUESTION = "What is my blood type?"


def _fact_id(mem: Memory, authority: str) -> str:
    found = [m for m in mem.memories() if "blood type" in m.text and m.authority == authority]
    assert len(found) == 1, [m.text for m in mem.memories()]
    return found[0].id


OTHER = "My favourite colour is green."


def _fail_four_times(mem: Memory, target: str, *, by: str | None, agent_id: str | None) -> None:
    """Four failures of ``target``, each after a success elsewhere (so the giver's mean reward stays
    near zero and every failure counts in full)."""
    mem.add([{"role": "user", "content": OTHER}])
    other = [m.id for m in mem.memories() if "colour" in m.text][0]
    for _ in range(4):
        good = mem.answer("What is my favourite colour?", agent_id=agent_id).trace_id
        mem.feedback(good, 1.0, cited_ids=[other], by=by)
        trace = mem.answer(QUESTION, agent_id=agent_id).trace_id
        out = mem.feedback(trace, -1.0, cited_ids=[target], by=by)
        assert [c["id"] for c in out["credited"]] == [target] and out["advantage"] <= -0.6


def test_agent_feedback_then_consolidate_keeps_the_persons_authorized_fact_active(mem: Memory) -> None:
    mem.add([{"role": "user", "content": FACT}])
    target = _fact_id(mem, "authorized")
    before = mem.search(QUESTION, agent_id="bot", route="facts").results[0].score
    _fail_four_times(mem, target, by=None, agent_id="bot")  # traces made for an agent: the agent's word
    item = mem.get(target)
    assert item.authority == "authorized" and item.uses == 4 and item.utility < 0.3
    report = mem.consolidate(now=datetime.now(UTC)).stages["archive"]
    assert mem.get(target).status == "active"
    assert target not in report.ids and report.skipped.get("feedback_below_authority") == 1
    # usage may still lower how easily it comes up
    after = [h for h in mem.search(QUESTION, agent_id="bot", route="facts").results if h.id == target]
    assert after and after[0].score < before
    feedback_entries = [e for e in ledger.entries(store_of(mem)) if e.op == "trace.feedback"]
    assert len(feedback_entries) == 8 and all(
        e.details["by"] == "agent" and e.details["agent"] == "bot" for e in feedback_entries
    )


def test_the_persons_own_feedback_can_archive_their_fact(mem: Memory) -> None:
    mem.add([{"role": "user", "content": FACT}])
    target = _fact_id(mem, "authorized")
    _fail_four_times(mem, target, by="person", agent_id=None)
    assert archive_counters(mem.get(target)).uses == 4
    report = mem.consolidate(now=datetime.now(UTC)).stages["archive"]
    assert target in report.ids and mem.get(target).status == "archived"


def test_agent_feedback_still_archives_what_an_agent_attested(mem: Memory) -> None:
    mem.add([{"role": "assistant", "content": "The user's blood type is O negative."}])
    target = _fact_id(mem, "attested")
    _fail_four_times(mem, target, by="agent", agent_id="bot")
    mem.consolidate(now=datetime.now(UTC))
    assert mem.get(target).status == "archived"


def test_only_the_persons_share_of_outcomes_counts_for_an_authorized_memory() -> None:
    fact = items.MemoryItem(
        id="mem_a",
        kind="fact",
        text=FACT,
        authority="authorized",
        uses=9,
        successes=0.0,
        failures=9.0,
        metadata={"person_outcomes": {"uses": 1, "successes": 1.0, "failures": 0.0}},
    )
    heard = archive_counters(fact)
    assert (heard.uses, heard.successes, heard.failures) == (1, 1.0, 0.0)
    assert (
        archive_counters(
            items.MemoryItem(id="mem_b", kind="fact", text=FACT, authority="authorized", uses=9, failures=9.0)
        ).uses
        == 0
    )
    attested = items.MemoryItem(
        id="mem_c", kind="fact", text=FACT, authority="attested", uses=9, failures=9.0
    )
    assert archive_counters(attested).uses == 9
    damaged = items.MemoryItem(
        id="mem_d",
        kind="fact",
        text=FACT,
        authority="authorized",
        metadata={"person_outcomes": {"uses": "many"}},
    )
    assert archive_counters(damaged).uses == 0
