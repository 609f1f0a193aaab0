"""Reads and erases by id take a caller, and the engine applies the access predicate to them (core/curation/reads.py).

The agent surfaces (MCP, REST) pass their agent's caller; the CLI, TUI and SDK pass none and act as the
person holding the store's key, who may name any row as before.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.internals import store_of
from veramem_desktop.core.errors import NotFoundError, RefusedError
from veramem_desktop.core.storage import items
from veramem_desktop.core.storage.access import Caller

AGENT = Caller("alice", "cursor")


def _team_memory_of_bob(mem: Any) -> str:
    """A memory of bob's, visible to his team t1, of which alice is a member; its message stays bob's."""
    memory_id = mem.add("I moved to Lisbon in March.", user_id="bob", team_id="t1").added[0]["id"]
    with store_of(mem).atomic() as conn:
        items.set_fields(conn, memory_id, device=mem.device_id, op="memory.visibility", visibility="team")
    mem.grants.grant("team_member", "alice", "t1")
    return str(memory_id)


def test_an_agent_finds_no_private_memory_of_another_user_by_id(mem: Any) -> None:
    theirs = mem.add("My locker code is 4417.", user_id="bob").added[0]["id"]
    for read in (
        lambda: mem.get(theirs, caller=AGENT),
        lambda: mem.history(theirs, caller=AGENT),
        lambda: mem.history(theirs, as_of="2100-01-01", caller=AGENT),
        lambda: mem.reading.detail(theirs, caller=AGENT),
        lambda: mem.forget_preview(theirs, caller=AGENT),
        lambda: mem.forget(theirs, caller=AGENT),
    ):
        with pytest.raises(NotFoundError, match="that this caller can see"):
            read()
    assert (
        mem.get(theirs).text and mem.reading.detail(theirs).evidence
    )  # the person still reads it, nothing was erased


def test_an_agent_may_erase_only_what_its_user_owns(mem: Any) -> None:
    team_item = _team_memory_of_bob(mem)
    own = mem.add("I like green tea.", user_id="alice").added[0]["id"]
    assert (
        mem.reading.detail(team_item, include_rejected=False, caller=AGENT).item.id == team_item
    )  # seen through the team
    with pytest.raises(RefusedError, match="only its owner can forget it"):
        mem.forget(team_item, caller=AGENT)
    assert mem.get(team_item).status == "active"
    assert mem.forget(own, caller=AGENT).erased_memories == 1
    with pytest.raises(NotFoundError):
        mem.forget("user:bob", caller=AGENT)  # a whole user is the person's to erase, never an agent's


def test_evidence_in_a_message_the_agent_may_not_see_is_withheld_and_counted(mem: Any) -> None:
    team_item = _team_memory_of_bob(mem)
    seen = mem.reading.detail(team_item, include_rejected=False, caller=AGENT)
    assert seen.evidence == [] and seen.evidence_withheld == 1
    assert seen.to_dict()["evidence_withheld"] == 1
    person = mem.reading.detail(team_item)
    assert len(person.evidence) == 1 and "evidence_withheld" not in person.to_dict()


def test_an_agent_never_sees_rejected_material_even_when_it_asks(mem: Any) -> None:
    first = mem.add("I live in Berlin.", user_id="alice").added[0]["id"]
    second = mem.add("I live in Lisbon.", user_id="alice").updated[0]["id"]
    mem.review.reject(second, "wrong")
    person = {v.id for v in mem.history(first, include_rejected=True)}
    agent = {v.id for v in mem.history(first, include_rejected=True, caller=AGENT)}
    assert person == {first, second} and agent == {first}
    with pytest.raises(NotFoundError, match="it was rejected"):
        mem.reading.detail(second, include_rejected=True, caller=AGENT)


def test_a_trace_is_found_only_by_the_caller_it_was_made_for(mem: Any) -> None:
    mem.add("I live in Berlin.", user_id="alice")
    trace = mem.search("where do I live", user_id="alice", agent_id="cursor").trace_id
    mem.reading.require_trace(trace, caller=AGENT)
    for other in (Caller("alice", "other-agent"), Caller("bob", "cursor"), Caller("alice")):
        with pytest.raises(NotFoundError, match="No trace"):
            mem.reading.require_trace(trace, caller=other)


def test_an_agent_lists_only_the_messages_it_may_see(mem: Any) -> None:
    mem.add("I moved to Lisbon in March.", user_id="alice", agent_id="cursor")
    mem.add("Note from another tool.", user_id="alice", agent_id="other-tool")
    mem.grants.grant(
        "agent_resource", "cursor", "cursor"
    )  # cursor sees its own writes and the person's, not other-tool's
    listed = mem.reading.episodes_seen_by(AGENT)
    assert listed and all(e.agent_id in (None, "cursor") for e in listed)
    assert len(mem.episodes(user_id="alice")) == len(listed) + 1
