"""The truth invariants under random histories: whatever users, assistants, tools and documents say,
and whatever a person approves, rejects or forgets, and consolidation does in between,

- no surface (SDK search and answer, the MCP tools, the REST API) returns a rejected value, and
- a superseded hit never ranks above the version that replaced it, for a non-temporal question.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from veramem_desktop.agent_access import AgentAccess, Identity
from veramem_desktop.bench.truth_section import holds
from veramem_desktop.memory import Memory

SAY = {
    "user": ["I live in {v}.", "I live in {v} now.", "Actually, I live in {v}.", "I moved to {v}."],
    "assistant": ["Noted, you live in {v}.", "You live in {v}."],
    "tool": ["The user lives in {v}."],
    "document": ["Home: {v}."],
}
VALUES = ["Brakel", "Corvin", "Delmar"]
ops = st.one_of(
    st.tuples(st.just("say"), st.sampled_from(sorted(SAY)), st.integers(0, 3), st.sampled_from(VALUES)),
    st.tuples(st.just("reject"), st.sampled_from(VALUES)),
    st.tuples(st.just("approve"), st.sampled_from(VALUES)),
    st.tuples(st.just("forget"), st.sampled_from(VALUES)),
    st.tuples(st.just("consolidate")),
)
_users = itertools.count()


def _apply(mem: Memory, user: str, op: tuple[Any, ...], rejected: set[str]) -> None:
    if op[0] == "say":
        _, role, n, value = op
        templates = SAY[role]
        msg = {"role": role, "content": templates[n % len(templates)].format(v=value)}
        if role in ("tool", "document"):
            msg["name"] = "profile"
        mem.add([msg], user_id=user, session_id=f"{user}/s")
        return
    if op[0] == "consolidate":
        mem.consolidate()
        return
    value = op[1]
    found = [m for m in mem.memories(user_id=user, limit=200) if holds(m.text, value)]
    if not found:
        return
    target = found[0].id
    if op[0] == "reject":
        mem.review.reject(target, "property")
        rejected.add(value)
    elif op[0] == "approve":
        try:
            mem.review.approve(target)
        except Exception as exc:  # a refused approval is a documented error, never a crash
            assert type(exc).__name__ in ("RefusedError", "NotFoundError"), exc
    else:
        mem.forget(target)


def _mcp_texts(mem: Memory, user: str, question: str) -> list[str]:
    from mcp.client.client import Client

    from veramem_desktop.mcp_server import build_server

    server = build_server(AgentAccess(mem, Identity(user, "prop-agent")), allow_forget=False)

    async def run() -> list[str]:
        async with Client(server) as client:
            out = []
            for tool, args in (("search", {"query": question, "k": 20}), ("answer", {"question": question})):
                result = await client.call_tool(tool, args)
                out.append("".join(getattr(c, "text", "") for c in result.content))
            for mid in re.findall(r"\bid=(mem_\w+)", out[0])[:3]:
                result = await client.call_tool("history", {"memory_id": mid})
                out.append("".join(getattr(c, "text", "") for c in result.content))
            return out

    return asyncio.run(run())


def _rest_texts(mem: Memory, user: str, question: str) -> list[str]:
    from starlette.testclient import TestClient

    from veramem_desktop.rest import create_app

    token = "property-token-0123456789"
    with TestClient(
        create_app(mem, token, user_id=user, agent_id="prop-agent"),
        base_url="http://127.0.0.1",
        headers={"Authorization": f"Bearer {token}"},
    ) as client:
        return [
            client.post("/v1/search", json={"query": question, "k": 20}).text,
            client.post("/v1/answer", json={"question": question}).text,
            client.get("/v1/episodes", params={"limit": 200}).text,
        ]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(before=st.lists(ops, max_size=6), value=st.sampled_from(VALUES), after=st.lists(ops, max_size=6))
def test_no_surface_returns_a_rejected_value_and_the_current_version_ranks_first(
    mem: Memory, before: list[Any], value: str, after: list[Any]
) -> None:
    # Every history holds at least one value said by the user and rejected by the person.
    history = [*before, ("say", "user", 0, value), ("reject", value), *after]
    mem.config.llm.backend = "rule-based"
    user = f"prop{next(_users)}"
    rejected: set[str] = set()
    for op in history:
        _apply(mem, user, op, rejected)
    event(f"{len(rejected)} value(s) rejected")
    question = "Where do I live?"
    found = mem.search(question, user_id=user, k=20)
    hits = found.results
    said = mem.answer(question, user_id=user)
    texts = [h.text for h in hits + found.shared] + [said.text] + [h.text for h in said.cited]
    texts += [e.content for e in mem.episodes(user_id=user, limit=200)]
    texts += _mcp_texts(mem, user, question) + _rest_texts(mem, user, question)
    for gone in rejected:
        leaks = [t for t in texts if holds(t, gone)]
        assert not leaks, (gone, leaks[:2], history)
    position = {h.id: i for i, h in enumerate(hits)}
    for i, h in enumerate(hits):
        if h.state == "superseded" and h.superseded_by in position:
            assert position[h.superseded_by] < i, (h.text, h.superseded_by, history)
