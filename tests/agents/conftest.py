"""Fixtures for the agent surfaces: a real uvicorn on loopback serving the REST app, and a real headless
Chromium for the web page."""

from __future__ import annotations

import os
import shutil
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn

TOKEN = "test-token-" + "x" * 32


@dataclass
class LiveServer:
    url: str
    token: str
    server: uvicorn.Server
    thread: threading.Thread

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def client(self, **kwargs: Any) -> httpx.Client:
        kwargs.setdefault("timeout", 30)
        return httpx.Client(base_url=self.url, **kwargs)


def start_server(app: Any, token: str = TOKEN) -> LiveServer:
    """Serve ``app`` on 127.0.0.1 on a free port in a thread; returns once it accepts connections."""
    # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY on accepted sockets only then (else +40 ms per request).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    started = threading.Event()

    def wait() -> None:
        while not server.started and thread.is_alive():
            started.wait(0.01)

    wait()
    if not server.started:
        raise RuntimeError("uvicorn did not start")
    return LiveServer(f"http://127.0.0.1:{port}", token, server, thread)


def stop_server(live: LiveServer) -> None:
    live.server.should_exit = True
    live.thread.join(timeout=15)
    assert not live.thread.is_alive(), "uvicorn did not stop"


@pytest.fixture
def make_server() -> Iterator[Any]:
    """Start REST servers for a test (create_app arguments), all stopped at the end."""
    from veramem_desktop.rest import create_app

    started: list[LiveServer] = []

    def make(memory: Any, token: str = TOKEN, **kwargs: Any) -> LiveServer:
        live = start_server(create_app(memory, token, **kwargs), token)
        started.append(live)
        return live

    yield make
    for live in started:
        stop_server(live)


@pytest.fixture
def live(mem: Any, make_server: Any) -> LiveServer:
    """The REST API over the ``mem`` store, acting as the config's user ("me")."""
    server: LiveServer = make_server(mem)
    return server


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium_or_skip() -> str:
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if path:
        return path
    reason = "Debian's chromium is not installed (apt-get install chromium)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}; CI must install it (.ci/run)")
    pytest.skip(reason)


@pytest.fixture
def browser() -> Iterator[Any]:
    executable = _chromium_or_skip()
    if os.environ.get("CI", "").lower() == "true":
        from playwright.sync_api import sync_playwright
    else:
        playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
        sync_playwright = playwright_api.sync_playwright
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        yield instance
        instance.close()
