"""A store on the rule-based backend with a fast hash embedder and no background linking, for fuzzing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory


@pytest.fixture
def fuzz_mem(isolated_home: Path) -> Iterator[Memory]:
    config = Config()
    config.llm.backend = "rule-based"
    config.organise.linking = False
    memory, _ = Memory.create(
        isolated_home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), config=config
    )
    yield memory
    memory.close()
