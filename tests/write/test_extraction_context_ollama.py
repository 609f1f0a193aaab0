"""A session's earlier turns reach the extraction model as context only (issue 18, part 2),
against a real HTTP server on 127.0.0.1 speaking the Ollama API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_ollama import FakeOllama, FromRequest, JsonContent, running_fake_ollama
from support.fixtures import PASSPHRASE

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

NOTHING = JsonContent({"memories": []})


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with running_fake_ollama() as server:
        yield server


def _memory(home: Path, ollama: FakeOllama, context_tokens: int | None = None) -> Memory:
    config = Config()
    config.llm.backend = "ollama"
    config.llm.host = ollama.url
    config.llm.timeout_s = 2.0
    config.llm.retries = 0
    if context_tokens is not None:
        config.llm.context_tokens = context_tokens
    mem, _ = Memory.create(home, passphrase=PASSPHRASE, use_keyring=False, config=config)
    return mem


@pytest.fixture
def omem(isolated_home: Path, ollama: FakeOllama) -> Iterator[Memory]:
    mem = _memory(isolated_home, ollama)
    yield mem
    mem.close()


def turn(text: str, minute: int, role: str = "user") -> dict[str, Any]:
    return {"role": role, "content": text, "time": f"2024-03-01T10:{minute:02d}:00Z"}


def citing_new(quote: str, text: str) -> FromRequest:
    """An extraction reply citing the first new message offered, with ``quote``."""

    def build(request: dict[str, Any]) -> JsonContent:
        ids = request["format"]["properties"]["memories"]["items"]["properties"]["message_id"]["enum"]
        return JsonContent(
            {
                "memories": [
                    {
                        "message_id": ids[0],
                        "quote": quote,
                        "text": text,
                        "kind": "fact",
                        "subject": None,
                        "predicate": None,
                        "value": None,
                        "importance": 0.6,
                    }
                ]
            }
        )

    return FromRequest(build)


def blocks(request_body: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The DATA blocks of an extraction prompt: label -> rows."""
    prompt = request_body["messages"][1]["content"]
    out: dict[str, list[dict[str, Any]]] = {}
    for label in ("CONTEXT", "NEW"):
        start = f"<<<DATA {label}\n"
        if start in prompt:
            body = prompt.split(start, 1)[1].split(f"\nDATA {label}>>>", 1)[0]
            out[label] = [json.loads(line) for line in body.splitlines()]
    return out


def test_the_extraction_request_carries_the_sessions_earlier_turns_marked_as_context_only(
    omem: Memory, ollama: FakeOllama
) -> None:
    ollama.script(
        NOTHING, NOTHING, NOTHING, citing_new("She works at a bakery there.", "Ana works at a bakery.")
    )
    omem.add(
        [turn("My sister Ana moved to Lisbon last year.", 1), turn("That's lovely!", 2, "assistant")],
        session_id="s1",
    )
    omem.add(turn("I had pizza in another chat.", 3), session_id="s2")
    omem.add(turn("Bob's own secret turn.", 4), session_id="s1", user_id="bob")
    result = omem.add(turn("She works at a bakery there.", 5), session_id="s1")
    assert [a["text"] for a in result.added] == ["Ana works at a bakery."]
    body = ollama.chat_requests[-1].body
    found = blocks(body)
    assert [r["text"] for r in found["CONTEXT"]] == [
        "My sister Ana moved to Lisbon last year.",
        "That's lovely!",
    ]
    assert [r["role"] for r in found["CONTEXT"]] == ["user", "assistant"]
    assert all("id" not in r for r in found["CONTEXT"])  # nothing in a context turn can be cited
    assert [r["text"] for r in found["NEW"]] == ["She works at a bakery there."]
    prompt = body["messages"][1]["content"]
    assert prompt.index("<<<DATA CONTEXT") < prompt.index("<<<DATA NEW")
    assert "reference only" in prompt and "take no memory from them" in prompt
    offered = body["format"]["properties"]["memories"]["items"]["properties"]["message_id"]["enum"]
    assert offered == [result.episodes[0].id]
    # the first add of a session has nothing before it
    assert "CONTEXT" not in blocks(ollama.chat_requests[0].body)


def test_a_memory_quoting_only_a_context_turn_is_refused_and_reported(
    omem: Memory, ollama: FakeOllama
) -> None:
    ollama.script(NOTHING, citing_new("My sister Ana moved to Lisbon last year.", "Ana moved to Lisbon."))
    omem.add(turn("My sister Ana moved to Lisbon last year.", 1), session_id="s1")
    result = omem.add(turn("She works at a bakery there.", 2), session_id="s1")
    assert not result.added and not result.updated
    assert not result.rejected  # refused by the backend's validator, before the write path saw it
    assert any("comes only from earlier turns given as context" in n for n in result.notices), result.notices
    assert not omem.memories()


def test_a_quote_in_the_new_message_is_kept_even_when_a_context_turn_says_it_too(
    omem: Memory, ollama: FakeOllama
) -> None:
    ollama.script(NOTHING, citing_new("I live in Porto.", "User lives in Porto."))
    omem.add(turn("I live in Porto.", 1), session_id="s1")
    result = omem.add(turn("Yes, as I said: I live in Porto.", 2), session_id="s1")
    assert [a["text"] for a in result.added] == ["User lives in Porto."]


def test_context_never_carries_a_forgotten_or_rejected_turn(omem: Memory, ollama: FakeOllama) -> None:
    ollama.script(citing_new("I live in Lisbon.", "User lives in Lisbon."), NOTHING, NOTHING, NOTHING)
    lisbon = omem.add(turn("I live in Lisbon.", 1), session_id="s1")
    omem.review.reject(lisbon.added[0]["id"], "wrong")
    secret = omem.add(turn("My door code is 4242.", 2), session_id="s1")
    omem.forget(secret.episodes[0].id)
    omem.add(turn("I like oolong tea.", 3), session_id="s1")
    omem.add(turn("And green tea too.", 4), session_id="s1")
    prompt = ollama.chat_requests[-1].body["messages"][1]["content"]
    assert [r["text"] for r in blocks(ollama.chat_requests[-1].body)["CONTEXT"]] == ["I like oolong tea."]
    assert "Lisbon" not in prompt and "4242" not in prompt


def test_context_is_bounded_by_the_token_budget(isolated_home: Path, ollama: FakeOllama) -> None:
    mem = _memory(isolated_home, ollama, context_tokens=25)  # two turns of 44 characters (11 tokens each)
    try:
        ollama.script(*[NOTHING] * 5)
        for minute in range(4):
            mem.add(turn(f"Turn number {minute} says something of forty chars.", minute), session_id="s1")
        mem.add(turn("The last turn.", 9), session_id="s1")
        context = blocks(ollama.chat_requests[-1].body)["CONTEXT"]
        assert [r["text"] for r in context] == [
            "Turn number 2 says something of forty chars.",
            "Turn number 3 says something of forty chars.",
        ]
    finally:
        mem.close()


def test_a_zero_context_budget_sends_no_earlier_turn(tmp_path: Path, ollama: FakeOllama) -> None:
    mem = _memory(tmp_path / "zero", ollama, context_tokens=0)
    try:
        ollama.script(NOTHING, NOTHING)
        mem.add(turn("I live in Porto.", 1), session_id="s1")
        mem.add(turn("No context now.", 2), session_id="s1")
        assert "CONTEXT" not in blocks(ollama.chat_requests[-1].body)
    finally:
        mem.close()
