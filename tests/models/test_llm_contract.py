"""One contract for every LLM backend: the rule-based one, and Ollama, an OpenAI-compatible
endpoint and Anthropic, each over real HTTP to a scripted server on 127.0.0.1 speaking its API.

Every task either returns a :class:`Reply` holding a valid value (ids only from those offered,
quotes from the cited message, a known operation or link type) or raises a typed
``ModelError``: never junk, never another exception. Through :class:`FallbackLLM` a failing
model gives the rule-based result plus a notice naming the backend, the task and what went
wrong. Notices belong to the reply of the call that caused them, so no caller ever sees
another's. Capabilities are declared values, the same way for every backend.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from support.fake_ollama import (
    Delay,
    FakeOllama,
    FromRequest,
    HttpStatus,
    JsonContent,
    RawContent,
    Truncated,
    running_fake_ollama,
)
from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.llm import (
    LLM,
    AnswerDraft,
    Candidate,
    Capabilities,
    ContextItem,
    Decision,
    LinkVerdict,
    Message,
    Neighbour,
    Reply,
)
from veramem_desktop.models.llm.anthropic import AnthropicTransport
from veramem_desktop.models.llm.errors import BackendUnavailableError, MalformedReplyError
from veramem_desktop.models.llm.fallback import FallbackLLM
from veramem_desktop.models.llm.json_backend import JsonLLM
from veramem_desktop.models.llm.ollama import OllamaTransport
from veramem_desktop.models.llm.openai_compat import OpenAICompatTransport
from veramem_desktop.models.llm.prompts import EXTRACT_KINDS, LINK_TYPES, OPS
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

TIMEOUT = 1.5  # seconds; each slow-server case waits this long per call (a loaded machine needs room)
BACKENDS = ("rule-based", "ollama", "openai", "anthropic")
MODELS = BACKENDS[1:]

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
QUESTION = "What is the user allergic to?"
ABSTRACT_REPLY = {
    "name": "Book a flight",
    "applies_when": "someone needs a flight",
    "inputs": ["{slot_1}: the destination"],
    "procedure": ["Compare fares", "Book to {slot_1}"],
    "caution": "Check the passport name.",
}
ABSTRACTED = (
    "## Book a flight\nApplies when: someone needs a flight\nInputs: {slot_1}: the destination\n"
    "Procedure: 1. Compare fares. 2. Book to {slot_1}.\nCaution: Check the passport name."
)


# --- the tasks: how to call each, a good model reply, what it parses to, what "valid" means --------


def _valid_candidates(value: Any) -> None:
    assert isinstance(value, list)
    for c in value:
        assert isinstance(c, Candidate) and c.message_id == "m1" and c.quote in MESSAGES[0].content
        assert c.text.strip() and c.kind in (*EXTRACT_KINDS, "experience", "summary")


def _valid_decision(value: Any) -> None:
    assert isinstance(value, Decision) and value.op in OPS
    assert value.op == "ADD" or value.target_id in {n.id for n in NEIGHBOURS}


def _valid_answer(value: Any) -> None:
    assert isinstance(value, AnswerDraft) and set(value.cited_ids) <= {i.id for i in ITEMS}
    assert not (value.abstained and value.cited_ids) and value.text.strip()


def _valid_summary(value: Any) -> None:
    assert isinstance(value, str) and value.strip()


def _valid_abstraction(value: Any) -> None:
    assert isinstance(value, str)
    lines = value.splitlines()
    assert lines[0].startswith("## ") and [line.split(":")[0] for line in lines[1:]] == [
        "Applies when",
        "Inputs",
        "Procedure",
        "Caution",
    ]


def _valid_verdict(value: Any) -> None:
    assert isinstance(value, LinkVerdict) and value.type in LINK_TYPES


def _valid_hypothesis(value: Any) -> None:
    assert value is None or (isinstance(value, str) and value.strip() and len(value) <= 500)


@dataclass(frozen=True)
class Task:
    name: str  # as notices name it
    call: Callable[[LLM], Reply[Any]]
    good: dict[str, Any]  # a model's well-formed reply
    parsed: Any  # what that reply becomes
    valid: Callable[[Any], None]


TASKS = {
    t.name: t
    for t in (
        Task(
            "extract",
            lambda llm: llm.extract(MESSAGES, CONTEXT),
            {
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
            },
            [
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
            ],
            _valid_candidates,
        ),
        Task(
            "reconcile",
            lambda llm: llm.reconcile(CANDIDATE, NEIGHBOURS),
            {"op": "UPDATE", "target_id": "n1", "text": "User lives in Lisbon.", "reason": "moved"},
            Decision("UPDATE", "n1", "User lives in Lisbon.", "moved"),
            _valid_decision,
        ),
        Task(
            "answer",
            lambda llm: llm.answer(QUESTION, ITEMS, FENCED),
            {"cited_ids": ["i1"], "answer": "Peanuts.", "abstained": False, "sufficient": True},
            AnswerDraft("Peanuts.", ("i1",)),
            _valid_answer,
        ),
        Task(
            "summarise",
            lambda llm: llm.summarise(["User lives in Berlin.", "User moved to Lisbon."]),
            {"summary": "User moved to Lisbon in 2024."},
            "User moved to Lisbon in 2024.",
            _valid_summary,
        ),
        Task(
            "abstract_experience",
            lambda llm: llm.abstract_experience("Booked a flight to Lisbon."),
            ABSTRACT_REPLY,
            ABSTRACTED,
            _valid_abstraction,
        ),
        Task(
            "link",
            lambda llm: llm.link("User lives in Berlin.", "User lives in Lisbon."),
            {"type": "contrasts", "reason": "different cities"},
            LinkVerdict("contrasts", "different cities"),
            _valid_verdict,
        ),
        Task(
            "hypothesise",
            lambda llm: llm.hypothesise("Where does the user live?"),
            {"answer": "  The user lives in Lisbon.  "},
            "The user lives in Lisbon.",
            _valid_hypothesis,
        ),
    )
}


# --- the backends -----------------------------------------------------------------------------


@dataclass
class Backend:
    kind: str
    llm: LLM
    server: FakeOllama

    @property
    def model(self) -> bool:
        """Whether it talks to the server (the rule-based backend never does)."""
        return self.kind != "rule-based"


Transport = OllamaTransport | OpenAICompatTransport | AnthropicTransport


def _transport(kind: str, server: FakeOllama) -> Transport:
    if kind == "ollama":
        return OllamaTransport(server.url, "llama3.2", timeout=TIMEOUT)
    if kind == "openai":
        return OpenAICompatTransport(server.openai_url, "gpt-test", api_key="sk-test-key", timeout=TIMEOUT)
    return AnthropicTransport(
        "sk-ant-test-key", "claude-test", base_url=server.anthropic_url, timeout=TIMEOUT
    )


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with running_fake_ollama() as fake:
        yield fake


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, server: FakeOllama) -> Iterator[Backend]:
    if request.param == "rule-based":
        yield Backend("rule-based", RuleBasedLLM(), server)
        return
    transport = _transport(request.param, server)
    yield Backend(request.param, JsonLLM(transport), server)
    transport.close()


@pytest.fixture(params=MODELS)
def model(request: pytest.FixtureRequest, server: FakeOllama) -> Iterator[Backend]:
    transport = _transport(request.param, server)
    yield Backend(request.param, JsonLLM(transport), server)
    transport.close()


# --- a good reply -----------------------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS.values(), ids=TASKS.keys())
def test_every_task_gives_a_valid_value_and_no_notice_from_a_good_reply(backend: Backend, task: Task) -> None:
    backend.server.script(JsonContent(task.good), JsonContent(task.good))
    reply = task.call(backend.llm)
    through_fallback = task.call(FallbackLLM(backend.llm))
    task.valid(reply.value)
    assert reply.notices == () and through_fallback == reply
    if backend.model:
        assert reply.value == task.parsed
        assert len(backend.server.chat_requests) == 2
    else:
        assert backend.server.chat_requests == []


def test_a_relative_date_a_model_left_is_resolved_against_the_message_time(model: Backend) -> None:
    memory = {"message_id": "m1", "quote": "I went to a support group yesterday.", "kind": "event"}
    model.server.script(
        JsonContent({"memories": [{**memory, "text": "User went to a support group yesterday."}]})
    )
    [candidate] = model.llm.extract(MESSAGES).value
    assert candidate.text == "User went to a support group on 2024-05-07."
    assert candidate.quote == "I went to a support group yesterday."


# --- a bad reply, a failing server --------------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    name: str
    replies: tuple[Any, ...]  # what the server sends for one task call (a retry takes the second)
    error: type[ModelError]
    said: str  # in the error, for every model backend ("{task}" is the task's name)
    said_by: tuple[tuple[str, str], ...] = ()  # a backend whose words differ

    def expected(self, kind: str, task: str) -> str:
        return dict(self.said_by).get(kind, self.said).format(task=task)


TRUNCATED = '{"memories": [{"message_id": "m1", "quote": "I\'m all'
FAILURES = {
    f.name: f
    for f in (
        Failure(
            "malformed-json",
            (RawContent("I think the answer is peanuts"), RawContent("{not json")),
            MalformedReplyError,
            r"no usable {task} reply in [12] attempts?\. Last problem: .*no JSON object",
        ),
        Failure(
            "truncated-json",
            (Truncated(TRUNCATED), Truncated(TRUNCATED)),
            MalformedReplyError,
            r"no usable {task} reply in [12] attempts?\. Last problem: .*no JSON object",
            (("anthropic", r"no usable {task} reply in [12] attempts?\. Last problem: .*token limit"),),
        ),
        Failure(
            "wrong-fields",
            (JsonContent({"unexpected": True}), JsonContent({"unexpected": True})),
            MalformedReplyError,
            r"no usable {task} reply in [12] attempts?\. Last problem: The model's {task} reply is missing",
        ),
        Failure(
            "http-500",
            (HttpStatus(500, "model requires more system memory"),),
            BackendUnavailableError,
            r"HTTP 500 \(model requires more system memory\).*rule-based",
        ),
        Failure("slow", (Delay(30),), BackendUnavailableError, rf"did not answer within {TIMEOUT:g} s"),
        Failure("down", (), BackendUnavailableError, "refused the connection"),
    )
}
# A reply without an answer is a valid "no hypothesis" (the search channel adds nothing), not junk.
CASES = [
    pytest.param(task, failure, id=f"{task.name}-{failure.name}")
    for task in TASKS.values()
    for failure in FAILURES.values()
    if not (task.name == "hypothesise" and failure.name == "wrong-fields")
]


def _fail(server: FakeOllama, failure: Failure) -> None:
    if failure.name == "down":
        server.stop()  # stopping twice is harmless
    else:
        server.script(*failure.replies)


@pytest.mark.parametrize(("task", "failure"), CASES)
def test_a_failure_is_a_typed_model_error_and_through_the_fallback_the_rule_based_result_with_a_notice(
    backend: Backend, task: Task, failure: Failure
) -> None:
    rules = task.call(RuleBasedLLM())
    said = failure.expected(backend.kind, task.name)
    _fail(backend.server, failure)
    started = time.monotonic()
    if backend.model:
        with pytest.raises(failure.error, match=said) as caught:
            task.call(backend.llm)
        assert isinstance(caught.value, ModelError) and "sk-" not in str(caught.value)
        asked = min(len(failure.replies), 1 if task.name == "hypothesise" else 2)  # a hypothesis: asked once
        assert len(backend.server.chat_requests) == asked
        _fail(backend.server, failure)  # the same failure again, for the call through the fallback
    reply = task.call(FallbackLLM(backend.llm))
    assert time.monotonic() - started < 5
    task.valid(reply.value)
    assert reply.value == rules.value
    if not backend.model:  # nothing to fail: the rules answer, with only their own notices
        assert reply.notices == rules.notices and backend.server.chat_requests == []
        return
    why, *rest = reply.notices
    assert why.backend == backend.llm.capabilities.name and why.task == task.name
    assert why.message.endswith("Used the rule-based result instead.") and re.search(said, why.message)
    assert tuple(rest) == rules.notices  # what the rules had to say about their own result


# --- notices belong to the call that caused them -------------------------------------------------


RETRIED = {name: task for name, task in TASKS.items() if name != "hypothesise"}  # asked for once: below


@pytest.mark.parametrize("task", RETRIED.values(), ids=RETRIED.keys())
def test_a_retry_tells_the_model_what_was_wrong_and_its_notice_comes_with_that_reply_only(
    backend: Backend, task: Task
) -> None:
    backend.server.script(RawContent("oops"), JsonContent(task.good), JsonContent(task.good))
    backend.server.script(RawContent("oops"), JsonContent(task.good))
    first = task.call(backend.llm)
    second = task.call(backend.llm)
    through_fallback = task.call(FallbackLLM(backend.llm))  # the model's retry, not a fallback
    for reply in (first, second, through_fallback):
        task.valid(reply.value)
    assert second.notices == ()
    if not backend.model:
        return
    assert first.value == through_fallback.value == task.parsed
    [notice] = first.notices
    assert notice.task == task.name and notice.message.startswith("Unusable reply, asking again:")
    assert through_fallback.notices == first.notices
    retry_prompt = backend.server.chat_requests[1].body["messages"][-1]["content"]
    assert "previous reply could not be used" in retry_prompt


def test_a_hypothesis_from_junk_is_a_model_error_after_one_request(model: Backend) -> None:
    model.server.script(RawContent("oops"))
    with pytest.raises(MalformedReplyError, match="no usable hypothesise reply in 1 attempt"):
        model.llm.hypothesise("Where?")
    assert len(model.server.chat_requests) == 1


def json_text(request: dict[str, Any]) -> str:
    """Every message's text in a chat request, whichever API shaped it."""
    parts = [m.get("content", "") for m in request.get("messages", [])]
    return " ".join(p if isinstance(p, str) else str(p) for p in parts)


def test_concurrent_callers_see_only_their_own_notices(backend: Backend) -> None:
    """An add and the background linker share one backend: the linker's fallback notices never
    reach the add's reply, and the other way round."""

    def by_prompt(request: dict[str, Any]) -> Any:
        linking = "Zanzibar" in json_text(request)
        return RawContent("junk") if linking else JsonContent(TASKS["extract"].good)

    backend.server.script(*[FromRequest(by_prompt)] * 40)
    llm = FallbackLLM(backend.llm)
    calls: list[Callable[[], Reply[Any]]] = [
        lambda: llm.link("User lives in Berlin.", "User lives in Zanzibar."),
        lambda: llm.extract(MESSAGES),
    ] * 5
    with ThreadPoolExecutor(max_workers=2) as pool:
        replies = list(pool.map(lambda call: call(), calls))
    links, adds = replies[0::2], replies[1::2]
    rules = RuleBasedLLM()
    if backend.model:
        assert [(r.value, r.notices) for r in adds] == [(TASKS["extract"].parsed, ())] * 5
        assert [[(n.task, n.message.endswith("result instead.")) for n in r.notices] for r in links] == [
            [("link", True)]
        ] * 5
    else:
        assert [r.notices for r in adds] == [rules.extract(MESSAGES).notices] * 5
        assert [r.notices for r in links] == [()] * 5


# --- capabilities are declared, the same way for every backend ------------------------------------


EXPECTED_CAPABILITIES = {
    "rule-based": Capabilities("rule-based", rule_based=True, batch_extraction=False, context_tokens=0),
    "ollama": Capabilities("ollama:llama3.2", rule_based=False, batch_extraction=True, context_tokens=1000),
    "openai": Capabilities("openai:gpt-test", rule_based=False, batch_extraction=True, context_tokens=1000),
    "anthropic": Capabilities(
        "anthropic:claude-test", rule_based=False, batch_extraction=True, context_tokens=1000
    ),
}


def test_each_backend_declares_its_capabilities_and_implements_the_protocol(backend: Backend) -> None:
    assert isinstance(backend.llm, LLM)
    assert backend.llm.capabilities == EXPECTED_CAPABILITIES[backend.kind]
    assert backend.llm.without_fallback() is backend.llm


def test_the_fallback_declares_the_primarys_capabilities_under_a_name_saying_what_it_falls_back_to(
    backend: Backend,
) -> None:
    llm = FallbackLLM(backend.llm)
    own = EXPECTED_CAPABILITIES[backend.kind]
    assert isinstance(llm, LLM)
    assert llm.capabilities == Capabilities(
        f"{own.name} (rule-based fallback)",
        rule_based=False,
        batch_extraction=own.batch_extraction,
        context_tokens=own.context_tokens,
    )
    assert llm.without_fallback() is backend.llm


def test_a_model_backend_declares_the_context_budget_it_was_given(server: FakeOllama) -> None:
    llm = JsonLLM(OllamaTransport(server.url, "llama3.2", timeout=TIMEOUT), context_tokens=25)
    assert llm.capabilities.context_tokens == 25
    assert FallbackLLM(llm).capabilities.context_tokens == 25
