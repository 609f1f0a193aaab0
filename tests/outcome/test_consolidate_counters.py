"""Consolidation counters reconcile (found = written + skipped by reason), so a run with
nothing to do reads differently from one where the model failed: with a scripted LLM and
with a real loopback server speaking the Ollama API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from outcome_support import DEVICE, ScriptedLLM, derived_sources, open_store, put
from support.fake_embedder import HashEmbedder
from support.fake_ollama import FakeOllama, FromRequest, JsonContent, RawContent, running_fake_ollama
from support.fixtures import PASSPHRASE
from support.internals import embedder_of, store_of
from veramem_desktop.core.lifecycle.consolidation import ConsolidateReport, consolidate
from veramem_desktop.core.storage import items
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

SESSIONS = {
    "s-ok": ["Ann booked a flight to Oslo.", "Ann packed warm boots.", "Ann renewed her passport."],
    "s-fail": ["Ann FAIL planted tomatoes.", "Ann watered the basil.", "Ann bought a new hose."],
    "s-junk": ["Ann JUNK painted the fence.", "Ann fixed the gate hinge.", "Ann swept the porch."],
    "s-small": ["Ann read a novel about whales."],
}


def _trace(store: Store, user: str, query: str, cited: list[str], reward: float) -> str:
    trace_id = f"tr_{abs(hash((query, reward))):x}"
    with store.atomic() as conn:
        conn.execute(
            "INSERT INTO traces(id, kind, created_at, user_id, query, route, returned_ids, cited_ids, reward, rewarded_at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                trace_id,
                "answer",
                now_iso(),
                user,
                query,
                "facts",
                json.dumps(cited),
                json.dumps(cited),
                reward,
                now_iso(),
            ),
        )
    return trace_id


def _fill(store: Store, embedder: HashEmbedder) -> dict[str, list[str]]:
    ids: dict[str, list[str]] = {}
    for session, texts in SESSIONS.items():
        ids[session] = [put(store, embedder, t, session=session).id for t in texts]
    bob = put(store, embedder, "Bob keeps bees on the roof.", user="bob", session="s-bob").id
    _trace(store, "ann", "how did I get ready for Oslo?", ids["s-ok"], 1.0)
    _trace(store, "ann", "FAIL what did I plant?", ids["s-fail"][:1], 0.9)
    _trace(store, "ann", "what did I paint?", ids["s-junk"][1:], 0.5)  # below 0.8: not an experience
    _trace(store, "ann", "who keeps bees?", [bob], 1.0)  # nothing of ann's own to distil
    return ids


def _counts(report: ConsolidateReport, stage: str) -> tuple[int, int, dict[str, int]]:
    s = report.stages[stage]
    return s.found, s.written, s.skipped


def _run(store: Store, embedder: HashEmbedder, llm: Any) -> ConsolidateReport:
    cache = VectorCache("memory", embedder.name, embedder.dim)
    return consolidate(store, embedder, llm, cache, device=DEVICE)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = open_store(tmp_path)
    yield s
    s.close()


def test_an_empty_store_reconciles_with_nothing_found_and_no_model_call(store: Store) -> None:
    llm = ScriptedLLM()
    report = _run(store, HashEmbedder(), llm)
    assert report.reconciles and report.model_failures == 0
    assert all(s.found == 0 for s in report.stages.values())
    assert llm.calls == []


def test_counters_reconcile_when_the_model_fails_or_returns_junk_for_some_clusters(store: Store) -> None:
    embedder = HashEmbedder()
    ids = _fill(store, embedder)
    llm = ScriptedLLM()
    report = _run(store, embedder, llm)
    assert report.reconciles, report.to_dict()
    assert _counts(report, "summarise") == (5, 1, {"model_failed": 1, "model_junk": 1, "too_small": 2})
    assert _counts(report, "distil") == (3, 1, {"model_failed": 1, "no_own_memories": 1})
    assert _counts(report, "merge") == (0, 0, {})
    assert report.model_failures == 3
    assert len([n for n in report.notices if "left for the next run" in n]) == 3
    [summary_id] = report.stages["summarise"].ids
    [experience_id] = report.stages["distil"].ids
    sources = derived_sources(store)
    assert sources[summary_id] == sorted(ids["s-ok"]) == sources[experience_id]
    assert items.get(store, summary_id).kind == "summary"
    assert items.get(store, experience_id).kind == "experience"
    # a second run: what was done is up to date, what failed is tried again and counted again
    again = _run(store, embedder, llm)
    assert again.reconciles
    assert _counts(again, "summarise") == (
        5,
        0,
        {"model_failed": 1, "model_junk": 1, "too_small": 2, "up_to_date": 1},
    )
    assert _counts(again, "distil") == (
        3,
        0,
        {"already_distilled": 1, "model_failed": 1, "no_own_memories": 1},
    )


def test_a_summary_holds_the_union_of_its_sources_evidence(store: Store) -> None:
    embedder = HashEmbedder()
    ids = _fill(store, embedder)
    report = _run(store, embedder, ScriptedLLM())
    [summary_id] = report.stages["summarise"].ids
    episodes = {e.episode_id for i in ids["s-ok"] for e in items.evidence_for(store, i)}
    assert {e.episode_id for e in items.evidence_for(store, summary_id)} == episodes and len(episodes) == 3


def test_a_session_that_gained_a_memory_gets_a_new_version_of_its_summary(store: Store) -> None:
    embedder = HashEmbedder()
    _fill(store, embedder)
    [first] = _run(store, embedder, ScriptedLLM()).stages["summarise"].ids
    put(store, embedder, "Ann bought a wool hat.", session="s-ok")
    report = _run(store, embedder, ScriptedLLM())
    [second] = report.stages["summarise"].ids
    assert items.get(store, first).status == "superseded"
    assert items.get(store, second).supersedes == first and len(derived_sources(store)[second]) == 4


def test_the_facade_asks_the_model_itself_so_a_failure_is_counted_not_hidden_by_the_fallback(
    isolated_home: Path,
) -> None:
    from veramem_desktop.models.llm.fallback import FallbackLLM

    mem, _ = Memory.create(
        isolated_home,
        passphrase=PASSPHRASE,
        use_keyring=False,
        embedder=HashEmbedder(),
        llm=FallbackLLM(ScriptedLLM()),
    )
    try:
        _fill(store_of(mem), embedder_of(mem))  # type: ignore[arg-type]
        report = mem.consolidate()
        assert report.reconciles and report.model_failures == 3
        assert report.stages["summarise"].written == 1
    finally:
        mem.close()


# ------------------------------------------------------------------ through the Ollama API
@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with running_fake_ollama() as server:
        yield server


@pytest.fixture
def omem(isolated_home: Path, ollama: FakeOllama) -> Iterator[Memory]:
    config = Config()
    config.llm.backend = "ollama"
    config.llm.host = ollama.url
    config.llm.timeout_s = 2.0
    config.llm.retries = 0
    mem, _ = Memory.create(
        isolated_home, passphrase=PASSPHRASE, use_keyring=False, config=config, embedder=HashEmbedder()
    )
    yield mem
    mem.close()


def _scripted_reply(request: dict[str, Any]) -> Any:
    prompt = json.dumps(request["messages"])
    if "FAIL" in prompt:
        return RawContent("Sure! Here is the summary you asked for: {not json")
    if "JUNK" in prompt:
        return JsonContent({"summary": 42})  # valid JSON, wrong shape
    if "summary" in json.dumps(request["format"]):
        return JsonContent({"summary": "Ann got ready for a trip to Oslo."})
    return JsonContent(
        {
            "name": "Trip preparation",
            "applies_when": "before travelling to {slot_1}",
            "inputs": ["{slot_1}: the destination"],
            "procedure": ["Book the flight.", "Pack for the weather."],
            "caution": "Check the passport's expiry.",
        }
    )


def test_counters_reconcile_through_a_real_ollama_speaking_server_with_malformed_replies(
    omem: Memory, ollama: FakeOllama
) -> None:
    ids = _fill(store_of(omem), embedder_of(omem))  # type: ignore[arg-type]
    ollama.script(*[FromRequest(_scripted_reply) for _ in range(10)])
    report = omem.consolidate()
    assert report.reconciles, report.to_dict()
    assert _counts(report, "summarise") == (5, 1, {"model_failed": 2, "too_small": 2})
    assert _counts(report, "distil") == (3, 1, {"model_failed": 1, "no_own_memories": 1})
    assert len(ollama.chat_requests) == 5  # three sessions big enough to summarise, two experiences
    [summary_id] = report.stages["summarise"].ids
    assert items.get(store_of(omem), summary_id).text == "Ann got ready for a trip to Oslo."
    [experience_id] = report.stages["distil"].ids
    assert "Trip preparation" in items.get(store_of(omem), experience_id).text
    assert derived_sources(store_of(omem))[experience_id] == sorted(ids["s-ok"])
    assert report.model.startswith("ollama")


def test_an_archived_summary_or_experience_is_not_written_again(store: Store) -> None:
    embedder = HashEmbedder()
    _fill(store, embedder)
    first = _run(store, embedder, ScriptedLLM())
    with store.atomic() as conn:
        for stage in ("summarise", "distil"):
            [made] = first.stages[stage].ids
            items.set_fields(conn, made, device=DEVICE, op="memory.archive", status="archived")
    again = _run(store, embedder, ScriptedLLM())
    assert again.stages["summarise"].skipped["up_to_date"] == 1 and again.stages["summarise"].written == 0
    assert again.stages["distil"].skipped["already_distilled"] == 1 and again.stages["distil"].written == 0
