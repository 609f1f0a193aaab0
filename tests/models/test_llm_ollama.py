"""The Ollama backend against a real HTTP server on loopback speaking the Ollama API: what it
sends, and the Ollama-specific advice in its errors. Every task's reading of replies, the
failures every backend shares and the fallback are in ``test_llm_contract.py``."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import ollama
import pytest
from support.fake_ollama import (
    FakeOllama,
    JsonContent,
    RawBody,
    RawContent,
    running_fake_ollama,
)
from veramem_desktop.core.llm import ContextItem, Message
from veramem_desktop.models.llm.errors import BackendUnavailableError, MalformedReplyError
from veramem_desktop.models.llm.json_backend import JsonLLM
from veramem_desktop.models.llm.ollama import OllamaTransport

TIMEOUT = 0.5  # seconds

MESSAGES = [
    Message(
        "m1",
        "user",
        "I went to a support group yesterday. I'm allergic to peanuts.",
        "2024-05-08T13:56:00+00:00",
    )
]
CONTEXT = [Message("c0", "user", "I live in Berlin.", "2024-05-01T10:00:00+00:00")]
ITEMS = [
    ContextItem("i1", "User is allergic to peanuts.", "fact", "authorized"),
    ContextItem("i2", "User lives in Berlin.", "fact", "authorized"),
]
FENCED = "<untrusted-memories>\n[i1] User is allergic to peanuts.\n[i2] User lives in Berlin.\n</untrusted-memories>"
EXTRACT_REPLY = {
    "memories": [
        {
            "message_id": "m1",
            "quote": "I'm allergic to peanuts.",
            "text": "User is allergic to peanuts.",
            "kind": "fact",
            "subject": "user",
            "predicate": "allergic_to",
            "value": "peanuts",
            "importance": 0.9,
        }
    ]
}


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with running_fake_ollama() as fake:
        yield fake


@pytest.fixture
def backend(server: FakeOllama) -> Iterator[JsonLLM]:
    transport = OllamaTransport(server.url, "llama3.2", timeout=TIMEOUT)
    yield JsonLLM(transport)
    transport.close()


# --- what is read (every task's parsing, failures and the fallback: test_llm_contract.py) -------


def test_a_reply_in_a_json_fence_after_some_prose_is_accepted(server: FakeOllama, backend: JsonLLM) -> None:
    server.script(RawContent('Sure! Here it is:\n```json\n{"type": "supports", "reason": "same"}\n```'))
    assert backend.link("a b c", "a b c").value.type == "supports"


# --- what is sent -----------------------------------------------------------------------------


def test_the_request_carries_the_schema_as_format_and_temperature_zero(
    server: FakeOllama, backend: JsonLLM
) -> None:
    server.script(JsonContent(EXTRACT_REPLY))
    backend.extract(MESSAGES, CONTEXT)
    [request] = server.chat_requests
    body = request.body
    assert body["model"] == "llama3.2"
    assert body["stream"] is False
    assert body["options"] == {"temperature": 0}
    assert body["format"]["properties"]["memories"]["items"]["properties"]["message_id"]["enum"] == ["m1"]
    system, user = body["messages"]
    assert system["role"] == "system" and "never as instructions" in system["content"]
    assert user["role"] == "user" and "2024-05-08T13:56:00+00:00 (Wednesday)" in user["content"]
    assert "reference only" in user["content"] and "I live in Berlin." in user["content"]


def test_the_answer_prompt_says_fenced_text_is_data_and_offers_only_the_given_ids(
    server: FakeOllama, backend: JsonLLM
) -> None:
    server.script(
        JsonContent({"cited_ids": [], "answer": "Unknown.", "abstained": True, "sufficient": False})
    )
    backend.answer("Where does the user live?", ITEMS, FENCED)
    body = server.chat_requests[0].body
    system, user = body["messages"]
    assert "never an instruction" in system["content"]
    assert FENCED in user["content"]
    assert body["format"]["properties"]["cited_ids"]["items"]["enum"] == ["i1", "i2"]


# --- failures are ModelErrors that say what happened and what to do -----------------------------


def test_a_chat_response_without_a_message_is_a_model_error(server: FakeOllama, backend: JsonLLM) -> None:
    server.script(
        RawBody('{"model": "llama3.2", "done": true}'), RawBody("<html>proxy error</html>", "text/html")
    )
    with pytest.raises(MalformedReplyError, match="not an Ollama chat reply"):
        backend.summarise(["x"])


def test_a_refused_connection_says_to_start_ollama(server: FakeOllama, backend: JsonLLM) -> None:
    server.stop()
    with pytest.raises(
        BackendUnavailableError,
        match=rf"Ollama at {server.url} refused the connection; start it with `ollama serve` or switch to the rule-based",
    ):
        backend.summarise(["x"])


def test_a_model_that_is_not_installed_says_to_pull_it(server: FakeOllama) -> None:
    with pytest.raises(BackendUnavailableError, match=r"run `ollama pull mistral`"):
        JsonLLM(OllamaTransport(server.url, "mistral", timeout=TIMEOUT)).summarise(["x"])


def test_the_host_comes_from_ollama_host_when_not_given(
    server: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    from veramem_desktop.models.llm.settings import LLMSettings

    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{server.port}")
    assert OllamaTransport(LLMSettings().resolved_ollama_host()).host == server.url


# --- the fake itself speaks like Ollama to the official client ---------------------------------


def test_the_fake_lists_models_and_version_and_streams_when_asked(server: FakeOllama) -> None:
    client = ollama.Client(host=server.url)
    assert [m.model for m in client.list().models] == ["llama3.2:latest"]
    assert httpx.get(f"{server.url}/api/version").json() == {"version": "0.6.0"}
    server.script(JsonContent({"a": 1}))
    chunks = list(client.chat(model="llama3.2", messages=[{"role": "user", "content": "hi"}], stream=True))
    assert "".join(c.message.content or "" for c in chunks) == '{"a": 1}' and chunks[-1].done
    assert server.pending == 0
