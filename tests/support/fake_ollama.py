"""A real HTTP server on loopback that speaks the parts of the Ollama API the client uses,
and the OpenAI-compatible and Anthropic endpoints the hosted transports call.

It answers ``GET /api/tags``, ``GET /api/version`` and ``POST /api/chat`` (streaming or
not, as the request's ``stream`` asks) the way Ollama does, from a script: a queue of
replies, one per chat request, each a JSON object returned as the message content, raw
text, an arbitrary response body, an HTTP error, or a delay before one of those. Every
request is recorded with its parsed JSON body. ``stop()`` closes the port, so a client
then gets "connection refused" exactly as when Ollama is not running.

Shapes follow the ``ollama`` client in the venv (``ollama/_client.py``, ``_types.py``):
it POSTs ``{"model", "messages", "tools", "stream", "format", "options"}`` to
``/api/chat`` and reads ``message.content`` from the JSON body, and it turns an HTTP
error into ``ResponseError`` using the body's ``"error"`` field.

The same script answers ``POST /v1/chat/completions`` (an OpenAI-compatible reply,
``choices[0].message.content``) and ``POST /v1/messages`` (an Anthropic reply, a list of
``content`` blocks), each with its API's error body, so one scripted server stands for
every backend: ``url`` for Ollama, ``openai_url`` and ``anthropic_url`` for the others.
``Truncated`` content ends the reply the way each API says a reply hit its token limit.

    with running_fake_ollama() as server:
        server.script(JsonContent({"summary": "..."}), HttpStatus(500))
        transport = OllamaTransport(server.url, "llama3.2", timeout=2)
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

CREATED_AT = "2024-05-08T13:56:00.000000Z"  # fixed, so recorded replies are reproducible
#: the model endpoints, by path, and the API each speaks
API_PATHS = {"/api/chat": "ollama", "/v1/chat/completions": "openai", "/v1/messages": "anthropic"}


# --- the script -------------------------------------------------------------------------------


@dataclass(frozen=True)
class JsonContent:
    """Reply with ``value`` serialised as the assistant message's content."""

    value: Any


@dataclass(frozen=True)
class RawContent:
    """Reply with ``text`` as the message content, verbatim (for malformed JSON)."""

    text: str


@dataclass(frozen=True)
class Truncated:
    """Reply with ``text`` as the content of a reply cut at the token limit (done_reason "length",
    finish_reason "length", stop_reason "max_tokens")."""

    text: str


@dataclass(frozen=True)
class RawBody:
    """Reply 200 with this whole response body instead of a chat response."""

    body: str
    content_type: str = "application/json"


@dataclass(frozen=True)
class HttpStatus:
    """Reply with an HTTP error status and Ollama's ``{"error": ...}`` body."""

    status: int = 500
    error: str = "llama runner process has terminated"


@dataclass(frozen=True)
class Delay:
    """Wait ``seconds`` (cut short when the server stops), then send ``then``."""

    seconds: float
    then: Reply = field(default_factory=lambda: JsonContent({}))


@dataclass(frozen=True)
class FromRequest:
    """Build the reply from the request body (e.g. to cite the message ids a prompt offered)."""

    build: Any  # Callable[[dict[str, Any]], Reply]


Reply = JsonContent | RawContent | Truncated | RawBody | HttpStatus | Delay | FromRequest


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON body, or None


# --- the server -------------------------------------------------------------------------------


class FakeOllama:
    """The server and its script. Binds 127.0.0.1 on a free port; use as a context manager."""

    def __init__(self, models: Iterable[str] = ("llama3.2:latest",), version: str = "0.6.0") -> None:
        self.models = list(models)
        self.version = version
        self._replies: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.openai_url = f"{self.url}/v1"  # an OpenAI-compatible base URL
        self.anthropic_url = self.url  # an Anthropic base URL (the transport adds /v1/messages)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-ollama", daemon=True
        )
        self._started = False
        self._stopped = False

    # lifecycle

    def start(self) -> FakeOllama:
        if not self._started:
            self._started = True
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the port: later connections are refused."""
        if self._stopped:
            return
        self._stopped = True
        self._stopping.set()  # cut any Delay short so its thread ends
        if self._started:
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()

    def __enter__(self) -> FakeOllama:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # script and record

    def script(self, *replies: Reply) -> None:
        """Queue replies; each ``/api/chat`` request takes the next one."""
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The model requests, whichever API they came through."""
        return [r for r in self.requests if r.path in API_PATHS]

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_reply(self) -> Reply | None:
        with self._lock:
            return self._replies.popleft() if self._replies else None

    def _has_model(self, name: str) -> bool:
        return name in self.models or f"{name}:latest" in self.models


class _FakeOllamaHandler(BaseHTTPRequestHandler):
    """Serves one request for the server ``fake`` (bound by :func:`_handler_for`)."""

    fake: FakeOllama
    server_version = "fake-ollama"
    protocol_version = "HTTP/1.0"  # one request per connection, so stop() leaves nothing open

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        pass

    def do_GET(self) -> None:
        self.fake._record(RecordedRequest("GET", self.path, dict(self.headers.items()), None))
        if self.path == "/api/tags":
            self._send_json(200, {"models": [_model_entry(m) for m in self.fake.models]})
        elif self.path == "/api/version":
            self._send_json(200, {"version": self.fake.version})
        else:
            self._send_json(404, {"error": f"no route for GET {self.path}"})

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self.fake._record(RecordedRequest("POST", self.path, dict(self.headers.items()), body))
        api = API_PATHS.get(self.path)
        if api is None:
            self._send_json(404, {"error": f"no route for POST {self.path}"})
            return
        if not isinstance(body, dict) or not body.get("model"):
            self._send_error(api, 400, "model is required")
            return
        if api == "ollama" and not self.fake._has_model(body["model"]):
            self._send_json(404, {"error": f'model "{body["model"]}" not found, try pulling it first'})
            return
        reply = self.fake._next_reply()
        if reply is None:
            self._send_error(api, 500, "fake server: no scripted reply left for this request")
            return
        self._send_reply(api, reply, body)

    def _send_reply(self, api: str, reply: Reply, request: dict[str, Any]) -> None:
        if isinstance(reply, FromRequest):
            reply = reply.build(request)
        while isinstance(reply, Delay):
            if self.fake._stopping.wait(reply.seconds):
                return  # the server is stopping: drop the connection
            reply = reply.then
        if isinstance(reply, HttpStatus):
            self._send_error(api, reply.status, reply.error)
        elif isinstance(reply, RawBody):
            self._send(200, reply.body.encode(), reply.content_type)
        else:
            content = json.dumps(reply.value) if isinstance(reply, JsonContent) else reply.text
            self._send_content(api, request, content, cut=isinstance(reply, Truncated))

    def _send_content(self, api: str, request: dict[str, Any], content: str, *, cut: bool) -> None:
        """The model's answer ``content`` the way each API sends one (``cut``: stopped at the token limit)."""
        if api == "openai":
            finish = "length" if cut else "stop"
            message = {"role": "assistant", "content": content}
            self._send_json(200, {"choices": [{"index": 0, "message": message, "finish_reason": finish}]})
        elif api == "anthropic":
            stop = "max_tokens" if cut else "end_turn"
            blocks = [{"type": "text", "text": content}]
            self._send_json(200, {"type": "message", "content": blocks, "stop_reason": stop})
        else:
            self._send_chat(request, content, "length" if cut else "stop")

    def _send_error(self, api: str, status: int, error: str) -> None:
        """An error body the way each API writes one (the clients read the message from it)."""
        if api == "openai":
            self._send_json(status, {"error": {"message": error, "type": "server_error"}})
        elif api == "anthropic":
            self._send_json(status, {"type": "error", "error": {"type": "api_error", "message": error}})
        else:
            self._send_json(status, {"error": error})

    def _send_chat(self, request: dict[str, Any], content: str, done_reason: str = "stop") -> None:
        final = {
            "model": request["model"],
            "created_at": CREATED_AT,
            "message": {"role": "assistant", "content": content},
            "done": True,
            "done_reason": done_reason,
            "total_duration": 1_000_000,
            "prompt_eval_count": 10,
            "eval_count": 10,
        }
        if request.get("stream", True) is False:
            self._send_json(200, final)
            return
        # Ollama's default: newline-delimited JSON chunks, the last one with done=true.
        first = {**final, "done": False, "message": {"role": "assistant", "content": content}}
        for key in ("done_reason", "total_duration", "prompt_eval_count", "eval_count"):
            first.pop(key)
        last = {**final, "message": {"role": "assistant", "content": ""}}
        lines = (json.dumps(first) + "\n" + json.dumps(last) + "\n").encode()
        self._send(200, lines, "application/x-ndjson")

    def _send_json(self, status: int, payload: Any) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json; charset=utf-8")

    def _send(self, status: int, data: bytes, content_type: str) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing left to do


def _handler_for(fake: FakeOllama) -> type[BaseHTTPRequestHandler]:
    """The handler class of ``fake``'s server (the server builds one handler per request)."""
    return type("Handler", (_FakeOllamaHandler,), {"fake": fake})


def _model_entry(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": "2024-05-01T10:00:00.000000Z",
        "size": 2_019_393_189,
        "digest": "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
        "details": {
            "format": "gguf",
            "family": "llama",
            "parameter_size": "3.2B",
            "quantization_level": "Q4_K_M",
        },
    }


@contextmanager
def running_fake_ollama(models: Iterable[str] = ("llama3.2:latest",)) -> Iterator[FakeOllama]:
    """A started server that is always stopped afterwards."""
    server = FakeOllama(models).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    """A running fake Ollama for one test (import it into a test module to use it)."""
    with running_fake_ollama() as server:
        yield server
