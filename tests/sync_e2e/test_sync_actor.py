"""A change that arrives from another device keeps who made it there, with the channel it came through here."""

from __future__ import annotations

from pathlib import Path

from sync_e2e_helpers import converge, make_devices
from veramem_desktop.core.storage import ledger, ledger_verify
from veramem_desktop.core.storage.actor import Actor


def test_a_synced_entry_names_the_agent_that_wrote_it_on_the_other_device(tmp_path: Path) -> None:
    a, b = make_devices(tmp_path, ["a", "b"])
    with a.store.acting.scope(Actor.agent("cursor", "mcp")):
        mid = a.add("I moved to Lisbon in March.")
    converge([a, b])
    here = [e for e in ledger.entries(b.store, target_id=mid) if e.op == "memory.add"]
    assert here, "the memory did not arrive"
    assert here[0].actor == {"kind": "agent", "id": "cursor", "channel": "sync", "origin_channel": "mcp"}
    assert "first via mcp" in here[0].actor_text
    episode = [e for e in ledger.entries(b.store) if e.op == "episode.add"][0]
    assert (
        episode.actor is not None and episode.actor["relayed"] == "user"
    )  # the user's words, passed on by cursor
    assert ledger_verify.verify(b.store).ok
