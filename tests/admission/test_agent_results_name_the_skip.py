"""An agent's add (MCP and REST share AgentAccess.add) that brings a forgotten message back is told so: the
result counts it and names when it was forgotten, and the MCP tool's text carries the same line."""

from __future__ import annotations

from support.internals import store_of

from veramem_desktop.agent_access import AgentAccess, Identity
from veramem_desktop.mcp_server import format_added
from veramem_desktop.memory import Memory

SECRET = "My locker code at the climbing gym is 4471."


def test_an_agents_add_of_a_forgotten_message_is_refused_and_said(rmem: Memory) -> None:
    [stored] = rmem.add({"role": "user", "content": SECRET, "time": "2024-03-01T10:00:00Z"}).episodes
    rmem.forget(stored.id)
    agent = AgentAccess(rmem, Identity("me", "cursor"), channel="mcp")
    result = agent.add([{"role": "user", "content": SECRET, "time": "2024-03-01T10:00:00Z"}])
    assert result["episodes"] == [] and result["skipped_forgotten"] == 1
    assert any(n.startswith("1 skipped: you forgot it on ") for n in result["notices"])
    text = format_added(result)
    assert "stored 0 message(s)" in text and "1 skipped: you forgot it on " in text
    assert store_of(rmem).query("SELECT count(*) FROM episodes WHERE content LIKE '%locker%'")[0][0] == 0
