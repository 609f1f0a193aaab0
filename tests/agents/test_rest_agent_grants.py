"""REST reads keep the agent's grants: the caller a server is started with is the caller every read checks.

`serve --user bob --agent cursor`, where cursor is granted only for alice, returned bob's data from GET
detail, history, forget-preview and /v1/episodes (issue 30). An agent that some user granted reads only
the users who grant it, on REST as on MCP, the CLI and the SDK (the access predicate,
core/storage/access.py); a real uvicorn serves the app.
"""

from __future__ import annotations

from typing import Any

import pytest
from veramem_desktop.core.errors import RefusedError
from veramem_desktop.core.storage.access import Caller

from veramem_desktop.agent_access import AgentAccess, Identity


def _bob_and_alice(mem: Any) -> tuple[str, str]:
    bob = mem.add("My bank pin is Qzbobpin.", user_id="bob", session_id="b")
    alice = mem.add("My bank pin is Qzalicepin.", user_id="alice", session_id="a")
    mem.grants.grant("user_agent", "alice", "cursor")
    return bob.added[0]["id"], alice.added[0]["id"]


def test_an_agent_granted_only_for_alice_reads_nothing_of_bobs_over_rest(mem: Any, make_server: Any) -> None:
    bob_id, _ = _bob_and_alice(mem)
    live = make_server(mem, user_id="bob", agent_id="cursor")
    with live.client(headers=live.auth) as client:
        for path in (
            f"/v1/memories/{bob_id}",
            f"/v1/memories/{bob_id}/history",
            f"/v1/forget/{bob_id}/preview",
        ):
            response = client.get(path)
            assert response.status_code == 404, (path, response.text)
            assert "qzbobpin" not in response.text.casefold()
        listed = client.get("/v1/episodes")
        assert listed.status_code == 200 and listed.json() == []
        found = client.post("/v1/search", json={"query": "bank pin", "route": "dual"})
        assert "qzbobpin" not in found.text.casefold()


def test_the_agent_reads_alice_who_granted_it_and_every_surface_agrees(mem: Any, make_server: Any) -> None:
    bob_id, alice_id = _bob_and_alice(mem)
    live = make_server(mem, user_id="alice", agent_id="cursor")
    with live.client(headers=live.auth) as client:
        assert client.get(f"/v1/memories/{alice_id}").status_code == 200
        assert "Qzalicepin" in client.post("/v1/search", json={"query": "bank pin", "route": "dual"}).text
    as_bob = AgentAccess(mem, Identity("bob", "cursor"), channel="mcp")
    assert as_bob.episodes() == [] and "Qzbobpin" not in str(
        as_bob.search("bank pin", route="dual").to_dict()
    )
    assert not mem.search("bank pin", user_id="bob", agent_id="cursor", route="dual").results
    assert mem.search("bank pin", user_id="bob", route="dual").results  # bob himself, with no agent
    assert as_bob.caller == Caller("bob", "cursor")


def test_an_agent_granted_only_for_alice_writes_nothing_for_bob(mem: Any, make_server: Any) -> None:
    """A write compares the new words with the user's memories: an ungranted agent's add for bob answered
    with bob's memory ids ('unchanged', 'previous') and superseded his memories. The admission gate now
    refuses the write, on REST and on MCP's AgentAccess alike, and bob's memories stay as they were."""
    bob_id, _ = _bob_and_alice(mem)
    live = make_server(mem, user_id="bob", agent_id="cursor")
    with live.client(headers=live.auth) as client:
        response = client.post(
            "/v1/add", json={"messages": [{"role": "user", "content": "My bank pin is Qzbobpin."}]}
        )
        assert response.status_code == 409 and response.json()["title"] == "Refused", response.text
        assert bob_id not in response.text
    as_bob = AgentAccess(mem, Identity("bob", "cursor"), channel="mcp")
    with pytest.raises(RefusedError):
        as_bob.add("My bank pin is now Qznewpin.")
    assert mem.get(bob_id).status == "active"
    assert not any("Qznewpin" in m.text for m in mem.memories(user_id="bob", status=None, limit=50))
    as_alice = AgentAccess(mem, Identity("alice", "cursor"), channel="mcp")
    assert as_alice.add("My gym locker is Qzlocker.")["added"]  # the user who granted it: written
