"""The OpenAI-compatible and Anthropic transports, against httpx's in-process mock transport: the
requests they send and how each HTTP failure reads. Every task over each of them, through real
HTTP, is in ``test_llm_contract.py``."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from veramem_desktop.models.llm.anthropic import API_VERSION, AnthropicTransport
from veramem_desktop.models.llm.errors import BackendUnavailableError, MalformedReplyError
from veramem_desktop.models.llm.openai_compat import OpenAICompatTransport

SCHEMA = {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}
KEY = "sk-test-0123456789"

Handler = Callable[[httpx.Request], httpx.Response]


def client(handler: Handler, seen: list[httpx.Request]) -> httpx.Client:
    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    return httpx.Client(transport=httpx.MockTransport(record), timeout=5)


def openai_reply(content: Any) -> httpx.Response:
    return httpx.Response(
        200, json={"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
    )


def anthropic_reply(text: str, stop: str = "end_turn") -> httpx.Response:
    return httpx.Response(200, json={"content": [{"type": "text", "text": text}], "stop_reason": stop})


# --- OpenAI-compatible ------------------------------------------------------------------------


def test_openai_request_asks_for_the_schema_at_temperature_zero_with_the_key() -> None:
    seen: list[httpx.Request] = []
    transport = OpenAICompatTransport(
        "https://llm.example/v1",
        "gpt-x",
        api_key=KEY,
        http_client=client(lambda r: openai_reply('{"summary": "ok"}'), seen),
    )
    assert transport.complete_json("sys", "prompt", SCHEMA) == {"summary": "ok"}
    [request] = seen
    assert str(request.url) == "https://llm.example/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    body = json.loads(request.content)
    assert body["temperature"] == 0 and body["model"] == "gpt-x"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert [m["role"] for m in body["messages"]] == ["system", "user"]


def test_a_local_server_needs_no_key_and_gets_the_v1_prefix() -> None:
    seen: list[httpx.Request] = []
    transport = OpenAICompatTransport(
        "http://127.0.0.1:8080", "local", http_client=client(lambda r: openai_reply("{}"), seen)
    )
    transport.complete_json("s", "p", SCHEMA)
    assert str(seen[0].url) == "http://127.0.0.1:8080/v1/chat/completions"
    assert "authorization" not in seen[0].headers


@pytest.mark.parametrize(
    ("response", "error", "said"),
    [
        (
            httpx.Response(401, json={"error": {"message": "Incorrect API key"}}),
            BackendUnavailableError,
            "refused the API key.*OPENAI_API_KEY",
        ),
        (
            httpx.Response(429, json={"error": {"message": "slow down"}}),
            BackendUnavailableError,
            "rate-limiting",
        ),
        (httpx.Response(503, text="upstream down"), BackendUnavailableError, "HTTP 503"),
        (
            httpx.Response(400, json={"error": {"message": "response_format unsupported"}}),
            BackendUnavailableError,
            "may not support",
        ),
        (httpx.Response(200, text="<html>"), MalformedReplyError, "not a JSON object"),
        (httpx.Response(200, json={"choices": []}), MalformedReplyError, r"without choices\[0\]\.message"),
        (openai_reply(None), MalformedReplyError, "no text content"),
        (openai_reply("I cannot help with JSON today."), MalformedReplyError, "no JSON object"),
    ],
)
def test_openai_failures_become_model_errors_that_never_show_the_key(
    response: httpx.Response, error: type[Exception], said: str
) -> None:
    transport = OpenAICompatTransport(
        "https://llm.example/v1", "gpt-x", api_key=KEY, http_client=client(lambda r: response, [])
    )
    with pytest.raises(error, match=said) as caught:
        transport.complete_json("s", "p", SCHEMA)
    assert KEY not in str(caught.value)


def test_connection_and_timeout_failures_say_what_happened() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    def stall(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    with pytest.raises(BackendUnavailableError, match="refused the connection"):
        OpenAICompatTransport("http://127.0.0.1:9", "m", http_client=client(refuse, [])).complete_json(
            "s", "p", SCHEMA
        )
    with pytest.raises(BackendUnavailableError, match="did not answer within 5 s"):
        OpenAICompatTransport("http://127.0.0.1:9", "m", http_client=client(stall, [])).complete_json(
            "s", "p", SCHEMA
        )


# --- Anthropic --------------------------------------------------------------------------------


def test_anthropic_request_puts_the_schema_in_the_system_prompt_and_sends_the_headers() -> None:
    seen: list[httpx.Request] = []
    transport = AnthropicTransport(
        KEY, "claude-x", http_client=client(lambda r: anthropic_reply('{"summary": "ok"}'), seen)
    )
    assert transport.complete_json("Be brief.", "prompt", SCHEMA) == {"summary": "ok"}
    [request] = seen
    assert str(request.url) == "https://api.anthropic.com/v1/messages"
    assert request.headers["x-api-key"] == KEY and request.headers["anthropic-version"] == API_VERSION
    body = json.loads(request.content)
    assert body["system"].startswith("Be brief.") and json.dumps(SCHEMA) in body["system"]
    assert body["temperature"] == 0 and body["messages"] == [{"role": "user", "content": "prompt"}]


def test_anthropic_json_is_taken_from_prose_or_fences() -> None:
    reply = anthropic_reply('Here you go:\n```json\n{"summary": "fenced"}\n```')
    transport = AnthropicTransport(KEY, "claude-x", http_client=client(lambda r: reply, []))
    assert transport.complete_json("s", "p", SCHEMA) == {"summary": "fenced"}


@pytest.mark.parametrize(
    ("response", "error", "said"),
    [
        (
            httpx.Response(
                401,
                json={
                    "type": "error",
                    "error": {"type": "authentication_error", "message": "invalid x-api-key"},
                },
            ),
            BackendUnavailableError,
            "ANTHROPIC_API_KEY",
        ),
        (
            httpx.Response(
                529, json={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
            ),
            BackendUnavailableError,
            "overloaded",
        ),
        (httpx.Response(200, json={"id": "x"}), MalformedReplyError, "without a content list"),
        (anthropic_reply('{"summary": "cut', stop="max_tokens"), MalformedReplyError, "token limit"),
    ],
)
def test_anthropic_failures_become_model_errors(
    response: httpx.Response, error: type[Exception], said: str
) -> None:
    transport = AnthropicTransport(KEY, "claude-x", http_client=client(lambda r: response, []))
    with pytest.raises(error, match=said) as caught:
        transport.complete_json("s", "p", SCHEMA)
    assert KEY not in str(caught.value)
