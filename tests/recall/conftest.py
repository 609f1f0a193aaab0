"""A store on the rule-based backend with the real embedder, as a new user without a model has."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.fixtures import PASSPHRASE

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory


@pytest.fixture
def rmem(isolated_home: Path) -> Iterator[Memory]:
    config = Config()
    config.llm.backend = "rule-based"
    mem, _ = Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False, config=config)
    yield mem
    mem.close()
