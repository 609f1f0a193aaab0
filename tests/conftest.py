"""Suite-wide setup: make the shared helpers in ``tests/support`` importable as ``support``, and the
rule-based store most write-path and recall tests start from."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

_TESTS = str(Path(__file__).resolve().parent)
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

if TYPE_CHECKING:
    from veramem_desktop.memory import Memory

# Shared fixtures (isolated homes, an open store, the real CLI in a subprocess).
pytest_plugins = ["support.fixtures"]


@pytest.fixture
def rmem(isolated_home: Path) -> Iterator[Memory]:
    """A store on the rule-based backend with the real embedder, as a new user without a model has."""
    from support.fixtures import PASSPHRASE

    from veramem_desktop.config import Config
    from veramem_desktop.memory import Memory

    config = Config()
    config.llm.backend = "rule-based"
    mem, _ = Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False, config=config)
    assert mem.llm_name == "rule-based"
    yield mem
    mem.close()
