"""The write path against a real HTTP server speaking the Ollama API, with scripted replies."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_ollama import (
    Delay,
    FakeOllama,
    FromRequest,
    HttpStatus,
    JsonContent,
    RawContent,
    running_fake_ollama,
)
from support.fixtures import PASSPHRASE
from support.internals import llm_of, store_of
from veramem_desktop.core.storage import items

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with running_fake_ollama() as server:
        yield server


@pytest.fixture
def omem(isolated_home: Path, ollama: FakeOllama) -> Iterator[Memory]:
    config = Config()
    config.llm.backend = "ollama"
    config.llm.host = ollama.url
    config.llm.timeout_s = 1.0
    config.llm.retries = 0
    mem, _ = Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False, config=config)
    yield mem
    mem.close()


def memo(
    quote: str, text: str, kind: str = "fact", key: tuple[str, str, str] | None = None, message: int = 0
) -> dict[str, Any]:
    subject, predicate, value = key or (None, None, None)
    return {
        "message": message,
        "quote": quote,
        "text": text,
        "kind": kind,
        "subject": subject,
        "predicate": predicate,
        "value": value,
        "importance": 0.6,
    }


def extraction(*memories: dict[str, Any]) -> FromRequest:
    """An extraction reply citing the message ids the request offered."""

    def build(request: dict[str, Any]) -> JsonContent:
        ids = request["format"]["properties"]["memories"]["items"]["properties"]["message_id"]["enum"]
        out = []
        for m in memories:
            m = dict(m)
            m["message_id"] = ids[m.pop("message")]
            out.append(m)
        return JsonContent({"memories": out})

    return FromRequest(build)


def reconcile(op: str, target: str | None, text: str | None = None) -> JsonContent:
    return JsonContent({"op": op, "target_id": target, "text": text, "reason": "scripted"})


LISBON = memo("I live in Lisbon.", "User lives in Lisbon.", key=("user", "lives_in", "Lisbon"))


def _lisbon(mem: Memory, ollama: FakeOllama) -> str:
    ollama.script(extraction(LISBON))
    result = mem.add([{"role": "user", "content": "I live in Lisbon.", "time": "2024-01-01T09:00:00Z"}])
    assert len(result.added) == 1, result
    return str(result.added[0]["id"])


def test_an_invented_quote_is_rejected_and_reported(omem: Memory, ollama: FakeOllama) -> None:
    ollama.script(extraction(memo("I adore durian fruit", "User adores durian")))
    result = omem.add("I really dislike durian fruit.")
    assert [r["reason"] for r in result.rejected] == ["its quote was not found in the message it cites"]
    assert not omem.memories()
    assert omem.episodes()[0].content == "I really dislike durian fruit."


def test_a_tool_claim_is_unendorsed_and_attributed(omem: Memory, ollama: FakeOllama) -> None:
    ollama.script(extraction(memo("Flight LX123 departs at 10:40", "Flight LX123 departs at 10:40.")))
    result = omem.add(
        [{"role": "tool", "name": "flights", "content": "Flight LX123 departs at 10:40 from B7."}]
    )
    item = omem.get(result.added[0]["id"])
    assert item.authority == "unendorsed"
    assert item.text == "According to tool flights: Flight LX123 departs at 10:40."


def test_an_assistant_claim_cannot_overwrite_the_users_fact(omem: Memory, ollama: FakeOllama) -> None:
    lisbon = _lisbon(omem, ollama)
    ollama.script(
        extraction(memo("You live in Berlin.", "User lives in Berlin.", key=("user", "lives_in", "Berlin"))),
        reconcile("UPDATE", lisbon, "User lives in Berlin."),
    )
    result = omem.add([{"role": "assistant", "content": "You live in Berlin."}])
    original = omem.get(lisbon)
    assert original.status == "active" and original.text == "User lives in Lisbon."
    assert not result.updated
    claim = omem.get(result.added[0]["id"])
    assert claim.authority == "attested" and claim.text.startswith("According to the assistant:")
    assert claim.metadata["conflicts_with"] == [lisbon]
    assert original.metadata["conflicts_with"] == [claim.id]
    assert original.confidence < 0.9


def test_an_update_keeps_history_and_as_of_returns_the_old_value(omem: Memory, ollama: FakeOllama) -> None:
    lisbon = _lisbon(omem, ollama)
    ollama.script(
        extraction(memo("I moved to Porto.", "User lives in Porto.", key=("user", "lives_in", "Porto"))),
        reconcile("UPDATE", lisbon, "User lives in Porto."),
    )
    result = omem.add("I moved to Porto.")
    new_id = result.updated[0]["id"]
    chain = omem.history(new_id)
    assert [v.text for v in chain] == ["User lives in Lisbon.", "User lives in Porto."]
    assert chain[0].status == "superseded" and chain[0].valid_to is not None
    before = omem.history(new_id, as_of=chain[0].created_at)
    assert before[0].text == "User lives in Lisbon."
    assert omem.history(new_id, as_of=chain[1].valid_from)[0].text == "User lives in Porto."


def test_delete_plus_add_of_a_close_memory_becomes_an_update(omem: Memory, ollama: FakeOllama) -> None:
    lisbon = _lisbon(omem, ollama)
    ollama.script(
        extraction(
            memo("I don't live in Lisbon anymore.", "User no longer lives in Lisbon."),
            memo("Now I live in Porto.", "User lives in Porto."),
        ),
        reconcile("DELETE", lisbon),
        reconcile("ADD", None),
    )
    result = omem.add("I don't live in Lisbon anymore. Now I live in Porto.")
    assert not result.retracted
    assert [u["previous"] for u in result.updated] == [lisbon]
    assert "cosine" in result.updated[0]["reason"]
    assert omem.get(lisbon).status == "superseded"


def test_a_near_identical_memory_becomes_noop_plus_evidence(omem: Memory, ollama: FakeOllama) -> None:
    lisbon = _lisbon(omem, ollama)
    ollama.script(extraction(LISBON), reconcile("ADD", None))
    result = omem.add("Like I said, I live in Lisbon.")
    assert not result.added and result.unchanged[0]["id"] == lisbon
    assert len(omem.reading.detail(lisbon).evidence) == 2
    assert any(e.op == "memory.evidence" for e in omem.reading.detail(lisbon).ledger)


def test_a_merged_memory_keeps_the_weakest_authority(omem: Memory, ollama: FakeOllama) -> None:
    lisbon = _lisbon(omem, ollama)
    ollama.script(
        extraction(memo("you live in Lisbon, right", "User lives in Lisbon, per the assistant.")),
        reconcile("ADD", None),
    )
    second = omem.add([{"role": "assistant", "content": "So you live in Lisbon, right?"}]).added[0]["id"]
    with store_of(omem).atomic() as conn:
        merged = items.merge(
            conn,
            [omem.get(lisbon), omem.get(second)],
            "User lives in Lisbon.",
            device="d",
            reason="near-duplicates",
        )
    assert merged.authority == "attested"
    assert {e.episode.role for e in omem.reading.detail(merged.id).evidence} == {"user", "assistant"}
    assert omem.verify().ok


def test_relative_dates_resolve_against_the_message_time(omem: Memory, ollama: FakeOllama) -> None:
    ollama.script(
        extraction(
            memo("Yesterday I went hiking with Ana.", "User went hiking with Ana yesterday.", kind="event")
        )
    )
    result = omem.add(
        [{"role": "user", "content": "Yesterday I went hiking with Ana.", "time": "2024-05-08T10:00:00Z"}]
    )
    assert "2024-05-07" in result.added[0]["text"] and "yesterday" not in result.added[0]["text"].lower()


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (RawContent('{"memories": [ {"message_id": '), "JSON"),
        (JsonContent({"facts": []}), "memories"),
        (HttpStatus(500), "500"),
        (Delay(3.0), "did not answer"),
        (None, "refused"),
    ],
    ids=["malformed-json", "missing-fields", "http-500", "timeout", "refused"],
)
def test_a_failing_model_gives_a_clear_notice_the_rule_based_result_and_keeps_the_episodes(
    omem: Memory, ollama: FakeOllama, reply: Any, said: str
) -> None:
    llm_of(omem)  # choose the backend while the server is up
    if reply is None:
        ollama.stop()
    else:
        ollama.script(reply)
    result = omem.add("I am allergic to peanuts.")
    assert (
        result.episodes and omem.reading.episode(result.episodes[0].id).content == "I am allergic to peanuts."
    )
    assert result.notices, "the failure must be reported"
    assert any(said.lower() in n.lower() for n in result.notices), result.notices
    assert any("rule-based" in n for n in result.notices)
    assert [a["text"] for a in result.added] == ["User is allergic to peanuts."]
