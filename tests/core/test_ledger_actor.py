"""Every ledger entry names who acted and through which surface, inside what the hash covers."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from support.fixtures import init_store, run_cli
from support.internals import store_of
from veramem_desktop.core.storage import ledger
from veramem_desktop.core.storage.actor import Actor

from veramem_desktop.agent_access import AgentAccess, Identity
from veramem_desktop.memory import Memory


def _actors(mem: Any, target: str | None = None) -> list[dict[str, Any] | None]:
    return [e.actor for e in mem.reading.ledger_entries(target_id=target)]


def test_an_sdk_add_is_recorded_as_the_users_through_the_sdk(mem: Any) -> None:
    result = mem.add("I live in Porto.", user_id="alice")
    entries = mem.reading.ledger_entries()
    assert entries and all(e.actor == {"kind": "user", "id": "alice", "channel": "sdk"} for e in entries)
    assert result.added and _actors(mem, result.added[0]["id"])[0]["id"] == "alice"


def test_an_agents_add_names_the_agent_and_marks_the_users_message_as_relayed(mem: Any) -> None:
    agent = AgentAccess(mem, Identity("me", "cursor"), channel="mcp")
    out = agent.add(
        [
            {"role": "user", "content": "I live in Porto."},
            {"role": "assistant", "content": "Noted, you live in Porto."},
        ]
    )
    by_episode = {e.target_id: e.actor for e in mem.reading.ledger_entries() if e.op == "episode.add"}
    user_ep, assistant_ep = (ep["id"] for ep in out["episodes"])
    assert by_episode[user_ep] == {"kind": "agent", "id": "cursor", "channel": "mcp", "relayed": "user"}
    assert by_episode[assistant_ep] == {"kind": "agent", "id": "cursor", "channel": "mcp"}
    memory_entry = mem.reading.ledger_entries(target_id=out["added"][0]["id"])[0]
    assert memory_entry.actor["id"] == "cursor" and memory_entry.to_dict()["channel"] == "mcp"


def test_an_agents_forget_is_the_agents_even_though_the_facade_would_act_as_the_person(mem: Any) -> None:
    mid = mem.add("My locker code is 4417.").added[0]["id"]
    AgentAccess(mem, Identity("me", "claude"), channel="rest").forget(mid)
    tomb = [e for e in mem.reading.ledger_entries() if e.op == "forget" and e.target_id == mid][0]
    assert tomb.actor == {"kind": "agent", "id": "claude", "channel": "rest"}


def test_consolidation_acts_as_the_system_whoever_started_it(mem: Any) -> None:
    mem.add(["I like green tea.", "I moved to Porto in May."], session_id="s1")
    before = len(mem.reading.ledger_entries())
    with mem.acting_as(Actor.agent("cursor", "mcp")):
        mem.consolidate(now=datetime.now(UTC) + timedelta(days=400))  # a year unused: strength decays
    made = mem.reading.ledger_entries()[before:]
    assert made, "consolidation wrote nothing to check"
    assert {(e.actor["kind"], e.actor["channel"]) for e in made} == {("system", "consolidate")}


def test_editing_the_recorded_actor_breaks_verify_at_that_entry(mem: Any) -> None:
    mem.add("I live in Porto.")
    seq, details = store_of(mem).query_one("SELECT seq, details FROM ledger ORDER BY seq LIMIT 1")
    forged = json.loads(details)
    forged["actor"] = {"kind": "agent", "id": "mallory", "channel": "mcp"}
    with store_of(mem).atomic() as conn:
        conn.execute("UPDATE ledger SET details = ? WHERE seq = ?", (json.dumps(forged, sort_keys=True), seq))
    report = mem.verify()
    assert not report.ok and report.first_bad_seq == seq


def test_entries_written_without_an_actor_still_verify_and_show_none(mem: Any) -> None:
    store_of(mem).acting.default = None  # as a ledger written before actors were recorded
    mem.grants.grant("user_agent", "me", "cursor")
    store_of(mem).acting.default = Actor.user("me", "sdk")
    mem.add("I like espresso.")
    actors = _actors(mem)
    assert None in actors and any(a is not None for a in actors)
    assert mem.verify().ok
    old = mem.reading.ledger_entries()[0]
    assert old.actor is None and old.actor_text == "" and old.to_dict()["actor"] is None


def test_an_unknown_channel_is_refused_when_the_facade_is_built(isolated_home: Any) -> None:
    with pytest.raises(ValueError, match="channel"):
        Memory(isolated_home, channel="carrier-pigeon")


def test_append_takes_an_explicit_actor_over_the_one_acting(mem: Any) -> None:
    with store_of(mem).atomic() as conn:
        entry = ledger.append(
            conn,
            op="note",
            target_kind="memory",
            target_id="mem_x",
            commitment_hex="0" * 64,
            device="d",
            actor=Actor.system("expiry", "cli"),
        )
    assert entry.actor == {"kind": "system", "id": "expiry", "channel": "cli"}


def test_cli_history_shows_who_did_each_change_in_text_and_json() -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    added = json.loads(run_cli("add", "I live in Porto.", "--json").stdout)["added"][0]["id"]
    assert run_cli("pin", added).returncode == 0
    text = run_cli("history", added).stdout
    assert "memory.add" in text and "by user me via cli" in text and "memory.pin" in text
    data = json.loads(run_cli("history", added, "--json").stdout)
    assert {(e["actor"], e["actor_kind"], e["channel"]) for e in data["ledger"]} == {("me", "user", "cli")}


def test_verify_counts_the_entries_naming_an_actor_and_names_the_actor_of_a_forged_entry(mem: Any) -> None:
    store_of(mem).acting.default = None
    mem.grants.grant("user_agent", "me", "cursor")  # written as before actors were recorded
    store_of(mem).acting.default = Actor.user("me", "sdk")
    mem.add("I live in Porto.")
    report = mem.verify()
    assert report.ok and report.with_actor == report.checked - 1 and report.to_dict()["with_actor"] > 0
    seq, details = store_of(mem).query_one("SELECT seq, details FROM ledger WHERE op = 'memory.add'")
    forged = {**json.loads(details), "actor": {"kind": "agent", "id": "mallory", "channel": "rest"}}
    with store_of(mem).atomic() as conn:
        conn.execute("UPDATE ledger SET details = ? WHERE seq = ?", (json.dumps(forged), seq))
    bad = mem.verify()
    assert not bad.ok and bad.first_bad_seq == seq and bad.bad_actor == "agent mallory via rest"


def test_cli_verify_says_how_many_entries_name_who_acted() -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    assert run_cli("add", "I live in Porto.").returncode == 0
    out = run_cli("verify")
    assert out.returncode == 0 and "name who acted" in out.stdout
    assert json.loads(run_cli("verify", "--json").stdout)["with_actor"] >= 2
