"""The Ollama backend against a real HTTP server on loopback speaking the Ollama API."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import ollama
import pytest
from support.fake_ollama import (
    Delay,
    FakeOllama,
    HttpStatus,
    JsonContent,
    RawBody,
    RawContent,
    running_fake_ollama,
)
from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.llm import (
    LLM,
    AnswerDraft,
    Candidate,
    ContextItem,
    Decision,
    LinkVerdict,
    Message,
    Neighbour,
)
from veramem_desktop.models.llm.errors import BackendUnavailableError, MalformedReplyError
from veramem_desktop.models.llm.fallback import FallbackLLM
from veramem_desktop.models.llm.json_backend import JsonLLM
from veramem_desktop.models.llm.ollama import OllamaTransport
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

TIMEOUT = 0.5  # seconds; the delay test waits this long once

MESSAGES = [
    Message(
        "m1",
        "user",
        "I went to a support group yesterday. I'm allergic to peanuts.",
        "2024-05-08T13:56:00+00:00",
    )
]
CONTEXT = [Message("c0", "user", "I live in Berlin.", "2024-05-01T10:00:00+00:00")]
CANDIDATE = Candidate(
    "m1", "I moved to Lisbon.", "User moved to Lisbon.", "fact", "user", "lives_in", "Lisbon"
)
NEIGHBOURS = [
    Neighbour("n1", "User lives in Berlin.", 0.8, "authorized", "fact", "user", "lives_in", "Berlin")
]
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


# --- every task parses its reply --------------------------------------------------------------


def test_extract_parses_candidates_citing_the_message(server: FakeOllama, backend: JsonLLM) -> None:
    server.script(JsonContent(EXTRACT_REPLY))
    assert backend.extract(MESSAGES, CONTEXT) == [
        Candidate(
            "m1",
            "I'm allergic to peanuts.",
            "User is allergic to peanuts.",
            "fact",
            "user",
            "allergic_to",
            "peanuts",
            0.9,
        )
    ]


def test_a_relative_date_the_model_left_is_resolved_against_the_message_time(
    server: FakeOllama, backend: JsonLLM
) -> None:
    memory = {"message_id": "m1", "quote": "I went to a support group yesterday.", "kind": "event"}
    server.script(JsonContent({"memories": [{**memory, "text": "User went to a support group yesterday."}]}))
    [candidate] = backend.extract(MESSAGES)
    assert candidate.text == "User went to a support group on 2024-05-07."
    assert candidate.quote == "I went to a support group yesterday."


def test_reconcile_parses_the_operation_and_its_target(server: FakeOllama, backend: JsonLLM) -> None:
    server.script(
        JsonContent({"op": "UPDATE", "target_id": "n1", "text": "User lives in Lisbon.", "reason": "moved"})
    )
    assert backend.reconcile(CANDIDATE, NEIGHBOURS) == Decision(
        "UPDATE", "n1", "User lives in Lisbon.", "moved"
    )


def test_answer_parses_the_cited_ids_and_the_text(server: FakeOllama, backend: JsonLLM) -> None:
    server.script(
        JsonContent({"cited_ids": ["i1"], "answer": "Peanuts.", "abstained": False, "sufficient": True})
    )
    assert backend.answer("What is the user allergic to?", ITEMS, FENCED) == AnswerDraft("Peanuts.", ("i1",))


def test_summarise_abstract_and_link_parse_their_replies(server: FakeOllama, backend: JsonLLM) -> None:
    server.script(
        JsonContent({"summary": "User moved to Lisbon in 2024."}),
        JsonContent(
            {
                "name": "Book a flight",
                "applies_when": "someone needs a flight",
                "inputs": ["{slot_1}: the destination"],
                "procedure": ["Compare fares", "Book to {slot_1}"],
                "caution": "Check the passport name.",
            }
        ),
        JsonContent({"type": "contrasts", "reason": "different cities"}),
    )
    assert (
        backend.summarise(["User lives in Berlin.", "User moved to Lisbon."])
        == "User moved to Lisbon in 2024."
    )
    assert backend.abstract_experience("Booked a flight to Lisbon.") == (
        "## Book a flight\nApplies when: someone needs a flight\nInputs: {slot_1}: the destination\n"
        "Procedure: 1. Compare fares. 2. Book to {slot_1}.\nCaution: Check the passport name."
    )
    assert backend.link("User lives in Berlin.", "User lives in Lisbon.") == LinkVerdict(
        "contrasts", "different cities"
    )


def test_a_reply_in_a_json_fence_after_some_prose_is_accepted(server: FakeOllama, backend: JsonLLM) -> None:
    server.script(RawContent('Sure! Here it is:\n```json\n{"type": "supports", "reason": "same"}\n```'))
    assert backend.link("a b c", "a b c").type == "supports"


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


def test_malformed_json_is_asked_again_once_then_reported(server: FakeOllama, backend: JsonLLM) -> None:
    server.script(RawContent("I think the answer is peanuts"), RawContent("{not json"))
    with pytest.raises(MalformedReplyError, match=r"no usable link reply in 2 attempts.*no JSON object"):
        backend.link("a", "b")
    assert len(server.chat_requests) == 2


def test_a_retry_tells_the_model_what_was_wrong_and_can_succeed(server: FakeOllama, backend: JsonLLM) -> None:
    server.script(JsonContent({"reason": "no type"}), JsonContent({"type": "related", "reason": "ok"}))
    assert backend.link("a", "b").type == "related"
    retry_prompt = server.chat_requests[1].body["messages"][1]["content"]
    assert "previous reply could not be used" in retry_prompt and "'type'" in retry_prompt
    assert [n.task for n in backend.notices] == ["link"]


def test_a_reply_missing_fields_is_a_model_error_naming_the_field(
    server: FakeOllama, backend: JsonLLM
) -> None:
    partial = {"memories": [{"message_id": "m1", "text": "User is allergic to peanuts.", "kind": "fact"}]}
    server.script(JsonContent(partial), JsonContent(partial))
    with pytest.raises(ModelError, match=r"missing memories\[0\]\.'quote'"):
        backend.extract(MESSAGES)


def test_a_chat_response_without_a_message_is_a_model_error(server: FakeOllama, backend: JsonLLM) -> None:
    server.script(
        RawBody('{"model": "llama3.2", "done": true}'), RawBody("<html>proxy error</html>", "text/html")
    )
    with pytest.raises(MalformedReplyError, match="not an Ollama chat reply"):
        backend.summarise(["x"])


def test_http_500_is_reported_without_a_retry(server: FakeOllama, backend: JsonLLM) -> None:
    server.script(HttpStatus(500, "model requires more system memory"))
    with pytest.raises(
        BackendUnavailableError, match=r"HTTP 500 \(model requires more system memory\).*rule-based"
    ):
        backend.summarise(["x"])
    assert len(server.chat_requests) == 1


def test_a_reply_slower_than_the_timeout_is_reported_as_a_timeout(
    server: FakeOllama, backend: JsonLLM
) -> None:
    server.script(Delay(30, JsonContent({"summary": "late"})))
    started = time.monotonic()
    with pytest.raises(
        BackendUnavailableError, match=rf"did not answer within {TIMEOUT:g} s.*raise the timeout"
    ):
        backend.summarise(["x"])
    assert time.monotonic() - started < 5
    assert len(server.chat_requests) == 1


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


# --- through FallbackLLM ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("replies", "said"),
    [
        ([RawContent("nope"), RawContent("still nope")], "no JSON object"),
        ([JsonContent({"op": "MERGE", "target_id": "n1", "reason": ""})] * 2, "op 'MERGE'"),
        ([JsonContent({"op": "DELETE", "target_id": "zzz", "reason": ""})] * 2, "'zzz', which is not one of"),
        ([HttpStatus(500)], "HTTP 500"),
        ([Delay(30)], "did not answer within"),
    ],
    ids=["malformed-json", "unknown-op", "id-not-offered", "http-500", "timeout"],
)
def test_a_failing_model_gives_the_rule_based_result_and_a_notice(
    server: FakeOllama, backend: JsonLLM, replies: list[JsonContent], said: str
) -> None:
    server.script(*replies)
    llm = FallbackLLM(backend)
    assert llm.reconcile(CANDIDATE, NEIGHBOURS) == RuleBasedLLM().reconcile(CANDIDATE, NEIGHBOURS)
    fallback_notices = [n for n in llm.notices if "Used the rule-based result" in n.message]
    assert len(fallback_notices) == 1
    assert fallback_notices[0].backend == "ollama:llama3.2" and fallback_notices[0].task == "reconcile"
    assert said in fallback_notices[0].message


def test_with_ollama_down_every_task_still_answers_with_a_notice_each(
    server: FakeOllama, backend: JsonLLM
) -> None:
    server.stop()
    llm = FallbackLLM(backend)
    rules = RuleBasedLLM()
    assert llm.extract(MESSAGES) == rules.extract(MESSAGES)
    assert llm.answer("What is the user allergic to?", ITEMS, FENCED) == rules.answer(
        "What is the user allergic to?", ITEMS, FENCED
    )
    assert llm.summarise(["a b c."]) == rules.summarise(["a b c."])
    assert llm.abstract_experience("Called Bob.") == rules.abstract_experience("Called Bob.")
    assert llm.link("a b", "a b") == rules.link("a b", "a b")
    assert [n.task for n in llm.drain_notices()] == [
        "extract",
        "answer",
        "summarise",
        "abstract_experience",
        "link",
    ]
    assert llm.notices == []


def test_the_fallback_wrapper_names_both_backends_and_is_not_rule_based(backend: JsonLLM) -> None:
    llm = FallbackLLM(backend)
    assert isinstance(llm, LLM)
    assert llm.name == "ollama:llama3.2 (rule-based fallback)"
    assert llm.is_rule_based is False


def test_a_working_model_gives_its_own_result_and_no_notice(server: FakeOllama, backend: JsonLLM) -> None:
    server.script(JsonContent({"summary": "From the model."}))
    llm = FallbackLLM(backend)
    assert llm.summarise(["x"]) == "From the model."
    assert llm.notices == []


def test_retry_notices_of_the_model_reach_the_wrapper(server: FakeOllama, backend: JsonLLM) -> None:
    server.script(RawContent("oops"), JsonContent({"summary": "Second try."}))
    llm = FallbackLLM(backend)
    assert llm.summarise(["x"]) == "Second try."
    assert [(n.task, n.message.startswith("Unusable reply")) for n in llm.notices] == [("summarise", True)]


# --- the fake itself speaks like Ollama to the official client ---------------------------------


def test_the_fake_lists_models_and_version_and_streams_when_asked(server: FakeOllama) -> None:
    client = ollama.Client(host=server.url)
    assert [m.model for m in client.list().models] == ["llama3.2:latest"]
    assert httpx.get(f"{server.url}/api/version").json() == {"version": "0.6.0"}
    server.script(JsonContent({"a": 1}))
    chunks = list(client.chat(model="llama3.2", messages=[{"role": "user", "content": "hi"}], stream=True))
    assert "".join(c.message.content or "" for c in chunks) == '{"a": 1}' and chunks[-1].done
    assert server.pending == 0
