"""The truth section's ``speakers`` set: in a conversation of several named people and the user, is each
person's first person their own (core/write/derive.keyed_to_speaker)?

Each generated conversation (truth_set.speakers) is played into the store, then every person's question
("Where does Mel live?", "Where do I live?") is asked on each surface. Metrics:

- ``current_at_1`` (per surface): the first result states that person's current value and is theirs
  (it names them; for the user, it names no other speaker); on ``answer``, the answer's first sentence;
  ``user_current_at_1``: the same, for the unnamed user's questions only ("Where do I live?");
- ``other_speaker_superseded`` (the store, per conversation): a memory of one speaker was superseded by
  a memory whose evidence is another speaker's message (target 0);
- ``merged_across_speakers`` (the store, per conversation): one memory holds evidence from two
  speakers' messages (target 0).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any, Protocol

from ..memory import Memory
from .truth_section import SURFACES, holds
from .truth_set import SpeakerScenario

METRICS = ("current_at_1", "user_current_at_1", "other_speaker_superseded", "merged_across_speakers")
#: a fenced block of the MCP search result (core/recall/fence.py), its text captured
_FENCED = re.compile(r"<<<RECALLED-DATA [0-9a-f]+[^>]*>>>\n(.*?)\n<<<END RECALLED-DATA [0-9a-f]+>>>", re.S)


class Counts(Protocol):
    """The truth section's tally: events counted per metric, a few failing cases kept."""

    misses: dict[str, list[str]]

    def add(self, metric: str, seen: bool, where: str) -> None: ...

    def rate(self, metric: str) -> float | None: ...


def play(mem: Memory, sc: SpeakerScenario) -> None:
    for add in sc.adds:
        msgs = [{"role": s.role, "content": s.content, **({"name": s.name} if s.name else {})} for s in add]
        mem.add(msgs, user_id=sc.user, session_id=f"{sc.user}/chat")


def _theirs(sc: SpeakerScenario, person: str, text: str) -> bool:
    """``text`` states ``person``'s current value and is attributed to them."""
    if not holds(text, sc.current[person]):
        return False
    if person:
        return holds(text, person)
    return not any(holds(text, other) for other in sc.current if other)


def store_leaks(mem: Memory, sc: SpeakerScenario, t: Counts) -> None:
    """Who said each memory (its evidence's speakers), and whether a supersession crossed speakers."""
    said_by: dict[str, frozenset[str]] = {}
    supersedes: dict[str, str] = {}
    for m in mem.memories(user_id=sc.user, status=None, limit=200):
        said_by[m.id] = frozenset(e.episode.source_name or "" for e in mem.reading.detail(m.id).evidence)
        if m.supersedes:
            supersedes[m.id] = m.supersedes
    crossed = [f"{old}->{new}" for new, old in supersedes.items() if said_by.get(old) != said_by[new]]
    merged = [mid for mid, who in said_by.items() if len(who) > 1]
    where = f"{sc.variant} {sc.user}"
    t.add("store.other_speaker_superseded", bool(crossed), f"{where} {crossed[:2]}")
    t.add("store.merged_across_speakers", bool(merged), f"{where} {merged[:2]}")


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s", text.strip(), maxsplit=1)[0]


def ask(mem: Memory, sc: SpeakerScenario, t: Counts, surfaces: Sequence[str]) -> None:
    """Every person's question on each surface."""
    from starlette.testclient import TestClient

    from ..rest import create_app

    firsts: dict[str, dict[str, str]] = {s: {} for s in surfaces}
    for person in sc.current:
        q = sc.question(person)
        if "search" in surfaces:
            found = mem.search(q, user_id=sc.user, k=10).results
            firsts["search"][person] = found[0].text if found else ""
        if "answer" in surfaces:
            firsts["answer"][person] = _first_sentence(mem.answer(q, user_id=sc.user).text)
    if "mcp" in surfaces:
        firsts["mcp"] = _mcp(mem, sc)
    if "rest" in surfaces:
        token = "bench-token-" + "x" * 16
        app = create_app(mem, token, user_id=sc.user, agent_id="bench-agent")
        headers = {"Authorization": f"Bearer {token}"}
        with TestClient(app, base_url="http://127.0.0.1", headers=headers) as client:
            for person in sc.current:
                hits = client.post("/v1/search", json={"query": sc.question(person), "k": 10}).json()[
                    "results"
                ]
                firsts["rest"][person] = hits[0]["text"] if hits else ""
    for surface, by_person in firsts.items():
        for person, text in by_person.items():
            where = f"{surface} {sc.variant} {sc.user} {person or 'user'}: {text[:60]!r}"
            t.add(f"{surface}.current_at_1", _theirs(sc, person, text), where)
            if not person:
                t.add(f"{surface}.user_current_at_1", _theirs(sc, person, text), where)


def _mcp(mem: Memory, sc: SpeakerScenario) -> dict[str, str]:
    from mcp.client.client import Client

    from ..agent_access import AgentAccess, Identity
    from ..mcp_server import build_server

    server = build_server(AgentAccess(mem, Identity(sc.user, "bench-agent")), allow_forget=False)

    async def run() -> dict[str, str]:
        out = {}
        async with Client(server) as client:
            for person in sc.current:
                found = await client.call_tool("search", {"query": sc.question(person), "k": 10})
                blocks = _FENCED.findall("".join(getattr(c, "text", "") for c in found.content))
                out[person] = blocks[0] if blocks else ""
        return out

    return asyncio.run(run())


def rates(t: Counts, n: int) -> dict[str, Any]:
    data: dict[str, Any] = {"scenarios": n}
    for scope in (*SURFACES, "store"):
        shown = {m: t.rate(f"{scope}.{m}") for m in METRICS if t.rate(f"{scope}.{m}") is not None}
        if shown:
            data[scope] = shown
    data["misses"] = {k: v for k, v in t.misses.items() if v}
    return data


def rows(data: dict[str, Any]) -> list[tuple[str, str]]:
    what = f"{data['scenarios']} (2-3 named speakers and the user; one add or several, same sentence, own changes)"
    out = [("truth speakers", what)]
    for scope in (*SURFACES, "store"):
        if scope in data:
            out.append(
                (f"truth speakers {scope}", " · ".join(f"{m} {v:.3f}" for m, v in data[scope].items()))
            )
    return out
