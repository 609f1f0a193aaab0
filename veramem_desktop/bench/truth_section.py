"""The truth section: does recall agree with what the memory knows, on every surface?

Runs the generated sets (truth_set.py: the scenarios, the retractions and their other wordings) through ``Memory.add`` with the rule-based backend, a
person's approvals and rejections through ``mem.review.approve`` / ``mem.review.reject``, then asks each
scenario's question through the SDK (search, answer), the MCP server (its tools over an in-process
MCP client session) and the REST API (its app over HTTP, in process). Metrics, per surface:

- ``current_at_1``: the first result holds the current value;
- ``stale_above_current``: a value that was replaced ranks above the first result holding the
  current one (scenarios with history);
- ``claim_above_current``: a lower-authority claim ranks above it (scenarios with claims);
- ``rejected_leak``: any text returned (results, shared block, answer, citations, history,
  episode lists) holds the rejected value;
- ``answer_current``: the answer states the current value, and no stale value or claim before it;
- ``as_of_accuracy``: ``history --as-of`` gives the value valid then (dated imports);
- ``false_retraction`` (retraction wordings): after a sentence that only looks like a retraction
  ("Mel no longer works at X", "If I sold the X, …"), the user's memory of X was retracted.
Two ablations beside them show what the truth stage buys: the channels' ranking alone, and the
channels with rejected rows not withheld.
A value is found in a text by the same skeleton the rejections use (look-alikes included).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Sequence
from typing import Any

from veramem_desktop.core.recall import SearchEngine
from veramem_desktop.core.storage import item_search
from veramem_desktop.core.text.normalize import phrase_words
from veramem_desktop.core.vocabulary import Status

from ..memory import Memory
from .runner import BenchContext, Section
from .truth_set import Scenario, generate, retractions, speakers, wordings

SURFACES = ("search", "answer", "mcp", "rest")
#: metrics counting something that must not happen (their target is 0)
_BAD = frozenset(
    {
        "stale_above_current",
        "claim_above_current",
        "rejected_leak",
        "other_speaker_superseded",
        "merged_across_speakers",
        "false_retraction",
    }
)
_BLOCK = re.compile(r"<<<RECALLED-DATA [0-9a-f]+[^>]*>>>\n(.*?)\n<<<END RECALLED-DATA [0-9a-f]+>>>", re.S)


def holds(text: str, value: str) -> bool:
    needle = phrase_words(value)
    hay = phrase_words(text)
    n = len(needle)
    return bool(n) and any(hay[i : i + n] == needle for i in range(len(hay) - n + 1))


def _first(texts: Sequence[str], values: Sequence[str]) -> int | None:
    for i, text in enumerate(texts):
        if any(holds(text, v) for v in values):
            return i
    return None


class _Tally:
    def __init__(self) -> None:
        self.counts: dict[str, list[int]] = {}
        self.misses: dict[str, list[str]] = {}

    def add(self, metric: str, seen: bool, where: str) -> None:
        """Count one case where ``seen`` is the metric's event; keep a few of the failing cases."""
        c = self.counts.setdefault(metric, [0, 0])
        c[0] += int(seen)
        c[1] += 1
        failed = seen if metric.rsplit(".", 1)[-1] in _BAD else not seen
        if failed and len(self.misses.setdefault(metric, [])) < 5:
            self.misses[metric].append(where)

    def rate(self, metric: str) -> float | None:
        c = self.counts.get(metric)
        return round(c[0] / c[1], 4) if c and c[1] else None


def _ranking(t: _Tally, surface: str, sc: Scenario, texts: list[str]) -> None:
    where = f"{surface} {sc.kind}/{sc.variant} {sc.user}"
    t.add(f"{surface}.current_at_1", bool(texts) and holds(texts[0], sc.current), where)
    at = _first(texts, [sc.current])
    if sc.stale:
        stale = _first(texts, sc.stale)
        t.add(f"{surface}.stale_above_current", stale is not None and (at is None or stale < at), where)
    if sc.claims:
        claim = _first(texts, sc.claims)
        t.add(f"{surface}.claim_above_current", claim is not None and (at is None or claim < at), where)


def _leak(t: _Tally, surface: str, sc: Scenario, texts: Sequence[str]) -> None:
    if sc.rejected is not None:
        t.add(
            f"{surface}.rejected_leak",
            any(holds(x, sc.rejected) for x in texts),
            f"{surface} {sc.kind}/{sc.variant} {sc.user}",
        )


def _answer(t: _Tally, surface: str, sc: Scenario, text: str, cited: list[str]) -> None:
    where = f"{surface} {sc.kind}/{sc.variant} {sc.user}"
    words = phrase_words(text)
    first_current = _position(words, phrase_words(sc.current))
    wrong_first = False
    if first_current is not None:
        for v in sc.stale + sc.claims:
            pos = _position(words, phrase_words(v))
            wrong_first |= pos is not None and pos < first_current
    t.add(f"{surface}.answer_current", first_current is not None and not wrong_first, where)
    _leak(t, surface, sc, [text, *cited])


def _position(hay: list[str], needle: list[str]) -> int | None:
    n = len(needle)
    return next((i for i in range(len(hay) - n + 1) if hay[i : i + n] == needle), None)


def _play(mem: Memory, sc: Scenario) -> None:
    for step in sc.steps:
        msg: dict[str, Any] = {"role": step.role, "content": step.content}
        if step.name:
            msg["name"] = step.name
        if step.time:
            msg["time"] = step.time
        mem.add([msg], user_id=sc.user, session_id=f"{sc.user}/chat")
        for value, act in ((step.reject, "reject"), (step.approve, "approve")):
            if value is None:
                continue
            found = [m for m in mem.memories(user_id=sc.user, limit=100) if holds(m.text, value)]
            for m in found[:1]:
                mem.review.reject(m.id, "bench") if act == "reject" else mem.review.approve(m.id)


def _mcp(mem: Memory, sc: Scenario, t: _Tally) -> None:
    from mcp.client.client import Client

    from ..agent_access import AgentAccess, Identity
    from ..mcp_server import build_server

    server = build_server(AgentAccess(mem, Identity(sc.user, "bench-agent")), allow_forget=False)

    async def run() -> tuple[str, str, list[str]]:
        async with Client(server) as client:
            found = await client.call_tool("search", {"query": sc.question, "k": 10})
            said = await client.call_tool("answer", {"question": sc.question})
            texts = ["".join(getattr(c, "text", "") for c in r.content) for r in (found, said)]
            ids = re.findall(r"\bid=(mem_\w+)", texts[0])[:3]
            history = []
            for mid in ids:
                h = await client.call_tool("history", {"memory_id": mid})
                history.append("".join(getattr(c, "text", "") for c in h.content))
            return texts[0], texts[1], history

    found, said, history = asyncio.run(run())
    blocks = _BLOCK.findall(found)
    _ranking(t, "mcp", sc, blocks)
    _leak(t, "mcp", sc, [found, said, *history])
    answer_blocks = _BLOCK.findall(said)
    _answer(t, "mcp", sc, answer_blocks[0] if answer_blocks else "", answer_blocks[1:])


def _rest(client: Any, sc: Scenario, t: _Tally) -> None:
    found = client.post("/v1/search", json={"query": sc.question, "k": 10}).json()
    texts = [h["text"] for h in found["results"]]
    _ranking(t, "rest", sc, texts)
    said = client.post("/v1/answer", json={"question": sc.question}).json()
    history = [
        client.get(f"/v1/memories/{h['id']}/history").text
        for h in found["results"][:3]
        if h["id"].startswith("mem_")
    ]
    episodes = client.get("/v1/episodes", params={"limit": 100}).text
    _leak(
        t,
        "rest",
        sc,
        [*texts, *(h["text"] for h in found["shared"]), found.get("prompt_context", ""), *history, episodes],
    )
    _answer(t, "rest", sc, said["answer"], [c["text"] for c in said["cited"]])


def _texts(engine: SearchEngine, ids: Sequence[str]) -> list[str]:
    """The texts of ranked ids, read from the store of the engine that ranked them (its rows as they are)."""
    found = item_search.texts_of(engine.store, ids)
    return [found[i] for i in ids if i in found]


def _ablations(mem: Memory, sc: Scenario, t: _Tally) -> None:
    """What the truth stage buys: the same question ranked by the channels alone (relevance, memories
    and messages together), and with withheld rows left in (as a person asking for rejected material)."""
    from veramem_desktop.core.storage.access import Caller

    engine = mem.recall.search_engine()  # ranks as Memory.search does, before its truth stage
    _, scores, _ = engine.rank(sc.question, Caller(sc.user), route="dual")
    _ranking(t, "relevance-only", sc, _texts(engine, sorted(scores, key=lambda d: -scores[d])[:10]))
    _, scores, _ = engine.rank(sc.question, Caller(sc.user, include_rejected=True), route="dual")
    _leak(t, "no-withholding", sc, _texts(engine, sorted(scores, key=lambda d: -scores[d])[:10]))


def run_truth_section(
    ctx: BenchContext,
    *,
    scenarios: int = 330,
    retracted: int = 70,
    worded: int = 35,
    speaking: int = 32,
    surfaces: Sequence[str] = SURFACES,
    ablate: bool = True,
) -> Section:
    """The generated scenarios, then the retractions, then the conversations of several named speakers
    (each set counted apart, so that each set's figures keep their meaning), played into one store and
    asked on each surface."""
    from . import truth_speakers

    mem = ctx.new_memory("truth")
    mem.config.llm.backend = "rule-based"
    t, r, w = _Tally(), _Tally(), _Tally()
    cases = [(t, sc) for sc in generate(scenarios)] + [(r, sc) for sc in retractions(retracted)]
    cases += [(w, sc) for sc in wordings()[:worded]]
    started = time.perf_counter()
    for n, (tally, sc) in enumerate(cases, 1):
        if n % 50 == 0:
            ctx.progress(f"truth: {n}/{len(cases)} scenarios")
        _play(mem, sc)
        if sc.kind == "kept":
            _kept(mem, sc, tally)
        _ask(mem, sc, tally, surfaces, ablate)
    spoken = _Tally()
    for conversation in speakers(speaking):
        truth_speakers.play(mem, conversation)
        truth_speakers.store_leaks(mem, conversation, spoken)
        truth_speakers.ask(mem, conversation, spoken, surfaces)
    mem.close()
    section = _section(t, r, scenarios, retracted, time.perf_counter() - started)
    if worded:
        _wordings_section(section, w, min(worded, len(wordings())))
    if speaking:
        section.data["truth"]["speakers"] = truth_speakers.rates(spoken, speaking)
        section.rows.extend(truth_speakers.rows(section.data["truth"]["speakers"]))
    return section


def _kept(mem: Memory, sc: Scenario, t: _Tally) -> None:
    """After a sentence that only looks like a retraction, the user's memory of the value is not retracted."""
    retracted = [
        m
        for m in mem.memories(user_id=sc.user, status=None, limit=100)
        if m.status == Status.RETRACTED and holds(m.text, sc.current)
    ]
    t.add("store.false_retraction", bool(retracted), f"store {sc.kind}/{sc.variant} {sc.user}")


def _ask(mem: Memory, sc: Scenario, t: _Tally, surfaces: Sequence[str], ablate: bool) -> None:
    """One scenario's question on each surface, and its "as of" questions."""
    from starlette.testclient import TestClient

    from ..rest import create_app

    token = "bench-token-" + "x" * 16
    if "search" in surfaces:
        found = mem.search(sc.question, user_id=sc.user, k=10)
        _ranking(t, "search", sc, [h.text for h in found.results])
        _leak(t, "search", sc, [h.text for h in found.results + found.shared])
        episodes = [e.content for e in mem.episodes(user_id=sc.user, limit=100)]
        history = [v.text for h in found.results[:3] if h.kind != "episode" for v in mem.history(h.id)]
        _leak(t, "search", sc, [*episodes, *history])
        if ablate:
            _ablations(mem, sc, t)
    if "answer" in surfaces:
        said = mem.answer(sc.question, user_id=sc.user)
        _answer(t, "answer", sc, said.text, [h.text for h in said.cited])
    if "mcp" in surfaces:
        _mcp(mem, sc, t)
    if "rest" in surfaces:
        with TestClient(
            create_app(mem, token, user_id=sc.user, agent_id="bench-agent"),
            base_url="http://127.0.0.1",
            headers={"Authorization": f"Bearer {token}"},
        ) as client:
            _rest(client, sc, t)
    for moment, value in sc.as_of:
        first = next(
            (m for m in mem.memories(user_id=sc.user, status=None, limit=100) if holds(m.text, sc.current)),
            None,
        )
        got = mem.history(first.id, as_of=moment) if first is not None else []
        t.add("as_of_accuracy", bool(got) and holds(got[0].text, value), f"{sc.user} {moment}")


_METRICS = ("current_at_1", "stale_above_current", "claim_above_current", "rejected_leak", "answer_current")
_ABLATIONS = {
    "relevance-only": "  ablation: channels alone, no truth stage",
    "no-withholding": "  ablation: rejected rows not withheld",
}


def _rates(t: _Tally) -> dict[str, Any]:
    """Each surface's and each ablation's metrics, and a few failing cases per metric."""
    data: dict[str, Any] = {
        s: {m: t.rate(f"{s}.{m}") for m in _METRICS if t.rate(f"{s}.{m}") is not None} for s in SURFACES
    }
    data["ablation"] = {
        name: {m: t.rate(f"{name}.{m}") for m in _METRICS if t.rate(f"{name}.{m}") is not None}
        for name in _ABLATIONS
    }
    data["misses"] = {k: v for k, v in t.misses.items() if v and k.split(".")[0] in SURFACES}
    return data


def _rows(data: dict[str, Any], prefix: str, after: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """One row per surface, then ``after``, then the ablations."""
    rows = []
    for surface in SURFACES:
        shown = " · ".join(f"{m} {v:.3f}" for m, v in data[surface].items())
        if shown:
            rows.append((f"{prefix} {surface}", shown))
    rows += after
    for name, label in _ABLATIONS.items():
        shown = " · ".join(f"{m} {v:.3f}" for m, v in data["ablation"][name].items())
        if shown:
            rows.append((label, shown))
    return rows


def _section(t: _Tally, r: _Tally, n: int, n_retracted: int, seconds: float) -> Section:
    data: dict[str, Any] = {
        "scenarios": n,
        "seconds": round(seconds, 1),
        "as_of_accuracy": t.rate("as_of_accuracy"),
        **_rates(t),
        "retractions": {"scenarios": n_retracted, **_rates(r)},
    }
    rows = [("truth scenarios", f"{n} (chains, rejections + restatements, repeated claims, dated imports)")]
    rows += _rows(data, "truth", [("truth as_of_accuracy", f"{data['as_of_accuracy']}")])
    if n_retracted:
        what = f"{n_retracted} (a value, then a message retracting it, in generated wordings)"
        rows += [("truth retractions", what), *_rows(data["retractions"], "truth retractions", [])]
    return Section({"truth": data}, rows)


def _wordings_section(section: Section, w: _Tally, n: int) -> None:
    """The retraction wordings set, counted apart: its surfaces' figures and the store's false retractions."""
    data = {"scenarios": n, **_rates(w), "store": {"false_retraction": w.rate("store.false_retraction")}}
    data["misses"].update({k: v for k, v in w.misses.items() if v and k.startswith("store.")})
    section.data["truth"]["retraction_wordings"] = data
    what = f"{n} (retractions in other words, and sentences that only look like one)"
    store = ("truth retraction wordings store", f"false_retraction {data['store']['false_retraction']:.3f}")
    section.rows += [("truth retraction wordings", what), *_rows(data, "truth retraction wordings", [store])]
