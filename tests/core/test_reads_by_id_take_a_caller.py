"""The reads by id that took no caller take one now: ``episode``, ``links`` and ``ledger_entries``.

As with get, history and detail (tests/core/test_reads_by_caller.py), no caller means the person at their
own store, who may name any row; an agent caller is checked in core (core/curation/reads.py), and what it may
not see is not found, so an id never confirms that a row of another user exists.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.internals import store_of
from veramem_desktop.core.errors import NotFoundError, RefusedError
from veramem_desktop.core.lifecycle import links as links_mod
from veramem_desktop.core.storage.access import Caller

AGENT = Caller("alice", "cursor")


def test_an_agent_cannot_read_another_users_episode_by_id(mem: Any) -> None:
    theirs = mem.add("My locker code is 4417.", user_id="bob").episodes[0].id
    own = mem.add("I like green tea.", user_id="alice").episodes[0].id
    assert mem.reading.episode(theirs, caller=AGENT) is None
    assert mem.reading.episode(theirs, caller=AGENT) == mem.reading.episode("ep_does_not_exist", caller=AGENT)
    assert mem.reading.episode(own, caller=AGENT).content == "I like green tea."
    assert mem.reading.episode(theirs).content == "My locker code is 4417."  # the person reads any message


def test_an_agent_cannot_read_the_links_of_another_users_memory(mem: Any) -> None:
    theirs = mem.add("My locker code is 4417.", user_id="bob").added[0]["id"]
    with pytest.raises(NotFoundError, match="that this caller can see"):
        mem.reading.links(theirs, caller=AGENT)
    with pytest.raises(NotFoundError, match="that this caller can see"):
        mem.reading.links("mem_does_not_exist", caller=AGENT)
    assert mem.reading.links(theirs) == []  # the person reads them


def test_an_agent_sees_no_edge_to_a_memory_of_another_user(mem: Any) -> None:
    own = mem.add("I like green tea.", user_id="alice").added[0]["id"]
    also_own = mem.add("I drink tea every morning.", user_id="alice").added[0]["id"]
    theirs = mem.add("My locker code is 4417.", user_id="bob").added[0]["id"]
    mem.organiser.wait_for_links()
    with store_of(mem).atomic() as conn:
        links_mod.add_link(conn, own, also_own, "related", 0.9, device=mem.device_id)
        links_mod.add_link(conn, own, theirs, "related", 0.9, device=mem.device_id)
    person = {x["other"] for x in mem.reading.links(own)}
    agent = {x["other"] for x in mem.reading.links(own, caller=AGENT)}
    assert {also_own, theirs} <= person
    assert also_own in agent and theirs not in agent


def test_an_agent_cannot_read_the_ledger_entries_of_another_users_memory_or_message(mem: Any) -> None:
    theirs = mem.add("My locker code is 4417.", user_id="bob")
    for target in (theirs.added[0]["id"], theirs.episodes[0].id, "mem_does_not_exist"):
        with pytest.raises(NotFoundError, match="that this caller can see"):
            mem.reading.ledger_entries(target_id=target, caller=AGENT)
    assert mem.reading.ledger_entries(target_id=theirs.added[0]["id"])  # the person reads them


def test_an_agent_reads_the_ledger_entries_of_its_own_users_memory_only(mem: Any) -> None:
    own = mem.add("I like green tea.", user_id="alice").added[0]["id"]
    entries = mem.reading.ledger_entries(target_id=own, caller=AGENT)
    assert entries and entries == mem.reading.ledger_entries(target_id=own)  # all of its own memory's entries
    with pytest.raises(RefusedError, match="whole ledger"):
        mem.reading.ledger_entries(caller=AGENT)
    assert len(mem.reading.ledger_entries()) > len(entries)  # the person reads the whole ledger


def test_an_agents_detail_of_its_own_memory_shows_no_edge_to_another_users_memory(mem: Any) -> None:
    own = mem.add("I like green tea.", user_id="alice").added[0]["id"]
    also_own = mem.add("I drink tea every morning.", user_id="alice").added[0]["id"]
    theirs = mem.add("My locker code is 4417.", user_id="bob").added[0]["id"]
    mem.organiser.wait_for_links()
    with store_of(mem).atomic() as conn:
        links_mod.add_link(conn, own, also_own, "related", 0.9, device=mem.device_id)
        links_mod.add_link(conn, own, theirs, "related", 0.9, device=mem.device_id)
    agent = mem.reading.detail(own, include_rejected=False, caller=AGENT)
    assert also_own in {x["other"] for x in agent.links} and theirs not in {x["other"] for x in agent.links}
    assert theirs in {x["other"] for x in mem.reading.detail(own).links}  # the person sees every edge
    assert agent.ledger == mem.reading.detail(own).ledger  # its own memory's entries, all of them
