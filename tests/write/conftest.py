"""The write-path tests' store answered by a fake Ollama server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.fake_ollama import FakeOllama, running_fake_ollama
from support.fixtures import PASSPHRASE

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory


@pytest.fixture
def omem(isolated_home: Path) -> Iterator[tuple[Memory, FakeOllama]]:
    """A new store whose LLM is a fake Ollama server (one try, no retries), and that server.

    Files that need another shape of model-backed store define their own ``omem``."""
    with running_fake_ollama() as server:
        config = Config()
        config.llm.backend = "ollama"
        config.llm.host = server.url
        config.llm.timeout_s = 2.0
        config.llm.retries = 0
        mem, _ = Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False, config=config)
        yield mem, server
        mem.close()
