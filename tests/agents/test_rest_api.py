"""The REST API over real HTTP: a uvicorn on 127.0.0.1, httpx as the client."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE, VENV_BIN, init_store, run_cli

pytestmark = pytest.mark.e2e

#: Every endpoint with a body that passes validation (ids that do not exist are fine: auth comes first).
ENDPOINTS: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", "/v1/add", {"messages": "hello"}),
    ("POST", "/v1/search", {"query": "hello"}),
    ("POST", "/v1/answer", {"question": "hello?"}),
    ("POST", "/v1/feedback", {"trace_id": "tr_x", "reward": 1}),
    ("GET", "/v1/memories/mem_x", None),
    ("GET", "/v1/memories/mem_x/history", None),
    ("GET", "/v1/forget/mem_x/preview", None),
    ("DELETE", "/v1/memories/mem_x", None),
    ("GET", "/v1/episodes", None),
    ("GET", "/v1/status", None),
    ("GET", "/v1/verify", None),
]


def _ids(hits: list[dict[str, Any]]) -> set[str]:
    return {h["id"] for h in hits}


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong-token-wrong-token-wrong-token"},
        {"Authorization": "Basic dGVzdDp0ZXN0"},
        {"Authorization": "Bearer"},
    ],
    ids=["missing", "wrong", "basic-scheme", "empty"],
)
def test_every_endpoint_refuses_a_missing_or_wrong_token(live: Any, headers: dict[str, str]) -> None:
    with live.client() as client:
        for method, path, body in ENDPOINTS:
            response = client.request(method, path, json=body, headers=headers)
            assert response.status_code == 401, (method, path, response.text)
            assert response.headers["www-authenticate"] == "Bearer"
            assert set(response.json()) == {"title", "message"}


def test_openapi_schema_lists_every_endpoint_and_no_approve_or_reject(live: Any) -> None:
    with live.client() as client:
        schema = client.get("/openapi.json").json()
    operations = {(m.upper(), p) for p, item in schema["paths"].items() for m in item}
    expected = {
        (m, p.replace("mem_x", "{memory_id}").replace("/forget/{memory_id}", "/forget/{target_id}"))
        for m, p, _ in ENDPOINTS
    }
    assert expected <= operations
    text = str(schema).lower()
    assert "approve" not in text and "reject" not in " ".join(p for _, p in operations)


def test_each_endpoint_works_with_the_token(live: Any) -> None:
    with live.client(headers=live.auth) as client:
        added = client.post(
            "/v1/add",
            json={
                "messages": [
                    {"role": "user", "content": "I moved to Lisbon in March."},
                    {"role": "assistant", "content": "Noted, Lisbon it is."},
                ],
                "session_id": "s1",
            },
        )
        assert added.status_code == 200, added.text
        assert len(added.json()["episodes"]) == 2
        mem_id = added.json()["added"][0]["id"]

        found = client.post("/v1/search", json={"query": "where did I move to?"}).json()
        assert mem_id in _ids(found["results"])
        assert "<<<RECALLED-DATA" in found["prompt_context"]

        answered = client.post("/v1/answer", json={"question": "Where did I move?"})
        assert answered.status_code == 200, answered.text
        assert "Lisbon" in answered.json()["answer"] and answered.json()["abstained"] is False

        rated = client.post("/v1/feedback", json={"trace_id": found["trace_id"], "reward": 0.5})
        assert rated.status_code == 200, rated.text

        detail = client.get(f"/v1/memories/{mem_id}").json()
        hit = next(h for h in found["results"] if h["id"] == mem_id)
        assert detail["state"] == hit["state"] == "current"  # one state for one item on every surface
        evidence = detail["evidence"][0]
        content = evidence["episode"]["content"]
        assert content[evidence["span_start"] : evidence["span_end"]] == evidence["quote"]

        versions = client.get(f"/v1/memories/{mem_id}/history").json()
        assert [v["id"] for v in versions] == [mem_id]

        episodes = client.get("/v1/episodes", params={"session_id": "s1"}).json()
        assert {e["content"] for e in episodes} == {"I moved to Lisbon in March.", "Noted, Lisbon it is."}

        status = client.get("/v1/status").json()
        assert status["counts"]["episodes"] == 2 and status["caller"]["user_id"] == "me"
        assert client.get("/v1/verify").json()["ok"] is True

        preview = client.get(f"/v1/forget/{mem_id}/preview")
        assert preview.status_code == 200, preview.text
        assert mem_id in preview.json()["memories"]

        erased = client.delete(f"/v1/memories/{mem_id}")
        assert erased.status_code == 200, erased.text
        assert client.get(f"/v1/memories/{mem_id}").status_code == 404
        assert mem_id not in _ids(client.post("/v1/search", json={"query": "Lisbon"}).json()["results"])
        assert client.get("/v1/verify").json()["ok"] is True


def test_errors_are_json_title_and_message_with_the_errors_status(live: Any) -> None:
    with live.client(headers=live.auth) as client:
        missing = client.get("/v1/memories/mem_doesnotexist")
        assert missing.status_code == 404 and set(missing.json()) == {"title", "message"}
        bad = client.post("/v1/search", json={"query": ""})
        assert bad.status_code == 422 and set(bad.json()) == {"title", "message"}
        secret = "my-private-words-should-not-echo"
        bad_role = client.post("/v1/add", json={"messages": [{"role": "system", "content": secret}]})
        assert bad_role.status_code == 422 and secret not in bad_role.text
        nan = client.post(
            "/v1/feedback",
            content=b'{"trace_id": "tr_x", "reward": NaN}',
            headers={"Content-Type": "application/json"},
        )
        assert nan.status_code == 422


def test_bodies_over_the_limit_are_refused_with_413(mem: Any, make_server: Any) -> None:
    live = make_server(mem, max_body_bytes=1024)
    big = {"query": "x" * 2000}
    with live.client(headers=live.auth) as client:
        assert client.post("/v1/search", json=big).status_code == 413

        def chunks() -> Any:  # no Content-Length: the limit still holds
            for _ in range(4):
                yield b"x" * 600

        assert client.post("/v1/search", content=chunks()).status_code == 413
        assert client.post("/v1/search", json={"query": "fine"}).status_code == 200


def test_only_loopback_host_headers_are_served(live: Any) -> None:
    with live.client(headers=live.auth) as client:
        assert client.get("/v1/status", headers={"Host": "attacker.example"}).status_code == 400
        assert client.get("/v1/status", headers={"Host": "localhost"}).status_code == 200


class GatedEmbedder(HashEmbedder):
    """Blocks on texts holding the marker until the test opens the gate."""

    MARK = "zebraslowmarker"

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.gate = threading.Event()

    def embed(self, texts: Sequence[str]) -> np.ndarray:  # type: ignore[override]
        if any(self.MARK in t for t in texts):
            self.entered.set()
            assert self.gate.wait(30), "the test never opened the gate"
        return super().embed(texts)


def test_requests_are_served_while_an_add_runs(isolated_home: Path, make_server: Any) -> None:
    from veramem_desktop.memory import Memory

    embedder = GatedEmbedder()
    memory, _ = Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False, embedder=embedder)
    try:
        memory.add("My favourite tea is genmaicha.")
        live = make_server(memory)
        outcome: dict[str, Any] = {}

        def slow_add() -> None:
            with live.client(headers=live.auth) as c:
                outcome["add"] = c.post(
                    "/v1/add", json={"messages": f"I keep a {GatedEmbedder.MARK} at home."}
                )

        writer = threading.Thread(target=slow_add)
        writer.start()
        assert embedder.entered.wait(15), "the add never reached the embedder"
        with live.client(headers=live.auth, timeout=10) as client:
            assert client.get("/v1/status").status_code == 200
            found = client.post("/v1/search", json={"query": "favourite tea"})
            assert found.status_code == 200 and "genmaicha" in found.text
            assert client.get("/v1/episodes").status_code == 200
        assert "add" not in outcome, "the add finished before the gate opened: the test proves nothing"
        embedder.gate.set()
        writer.join(30)
        assert outcome["add"].status_code == 200
    finally:
        embedder.gate.set()
        memory.close()


def test_a_caller_scoped_to_one_user_never_receives_another_users_private_items(
    mem: Any, make_server: Any
) -> None:
    mine = mem.add("I moved to Lisbon in March.", user_id="alice")
    theirs = mem.add("I moved to Lisbon in May and my locker code is 4417.", user_id="bob")
    bob_memories = {m["id"] for m in theirs.added}
    bob_episodes = {e.id for e in theirs.episodes}
    assert bob_memories and mine.added
    live = make_server(mem, user_id="alice")
    with live.client(headers=live.auth) as client:
        for query in ("Lisbon", "locker code 4417", "when did I move to Lisbon in May"):
            for route in (None, "raw", "facts", "dual"):
                body = {"query": query, "route": route} if route else {"query": query}
                got = client.post("/v1/search", json=body).json()
                ids = _ids(got["results"]) | _ids(got["shared"])
                assert not ids & (bob_memories | bob_episodes), (query, route)
                # Every text the response carries (scores are floats whose digits may spell anything).
                texts = [h["text"] for h in got["results"] + got["shared"]] + [got.get("prompt_context", "")]
                assert not any("4417" in t for t in texts)
        assert "4417" not in client.post("/v1/answer", json={"question": "What is the locker code?"}).text
        for target in bob_memories:
            assert client.get(f"/v1/memories/{target}").status_code == 404
            assert client.get(f"/v1/memories/{target}/history").status_code == 404
            assert client.get(f"/v1/forget/{target}/preview").status_code == 404
            assert client.delete(f"/v1/memories/{target}").status_code == 404
        for target in bob_episodes:
            assert client.delete(f"/v1/memories/{target}").status_code == 404
        listed = client.get("/v1/episodes").json()
        assert listed and {e["user_id"] for e in listed} == {"alice"}
    # Bob's items are all still there: the refusals erased nothing.
    assert all(mem.get(m).id == m for m in bob_memories)


def test_show_token_makes_a_0600_token_once_and_keeps_it(isolated_home: Path) -> None:
    first = run_cli("serve", "--show-token")
    second = run_cli("serve", "--show-token")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout and len(first.stdout.strip()) >= 32
    token_file = isolated_home / "config" / "rest-token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert token_file.read_text().strip() == first.stdout.strip()


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "example.com"])
def test_serve_refuses_a_non_loopback_host(isolated_home: Path, host: str) -> None:
    result = run_cli("serve", "--host", host)
    assert result.returncode == 2
    assert "loopback" in result.stderr and not result.stdout


def test_serve_command_runs_the_api_on_loopback_until_stopped(isolated_home: Path) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    token = run_cli("serve", "--show-token").stdout.strip()
    proc = subprocess.Popen(
        [str(VENV_BIN / "veramem"), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), (
            url,
            proc.stderr.read() if proc.poll() is not None else "",
        )
        with httpx.Client(base_url=url, timeout=30) as client:
            # The socket listens before the address is printed, so the first request is queued, not refused.
            response = client.get("/v1/status", headers={"Authorization": f"Bearer {token}"})
            assert response.status_code == 200 and response.json()["exists"] is True
            assert client.get("/v1/status").status_code == 401
            assert "<title>VeraMem</title>" in client.get("/").text
    finally:
        proc.terminate()
        # uvicorn shuts down gracefully, then re-raises the signal so the exit status reports it.
        assert proc.wait(15) in (0, -signal.SIGTERM)
        assert proc.stderr is not None and "Traceback" not in proc.stderr.read()
