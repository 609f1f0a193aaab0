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
    from veramem_desktop.core.protocols import Embedder

    from veramem_desktop.memory import Memory

# Shared fixtures (isolated homes, an open store, the real CLI in a subprocess).
pytest_plugins = ["support.fixtures"]


@pytest.fixture(scope="session")
def real_embedder() -> Embedder:
    """The embedder a new store gets from the default settings (the packaged ONNX model, int8 compute),
    made the way the facade makes it and loaded once for the whole run: verifying the model's hash and
    rewriting its graph cost more than most tests that use it. It keeps no state between calls (a text's
    vector depends on nothing but the text), so sharing it changes no test's result."""
    from veramem_desktop.config import Config
    from veramem_desktop.services.embedding import embedder_args, make_embedder

    embedder = make_embedder(embedder_args(Config().embedder, lambda: None))
    embedder.load()  # type: ignore[attr-defined]
    return embedder


@pytest.fixture
def rmem(isolated_home: Path, real_embedder: Embedder) -> Iterator[Memory]:
    """A store on the rule-based backend with the real embedder, as a new user without a model has."""
    from support.fixtures import PASSPHRASE

    from veramem_desktop.config import Config
    from veramem_desktop.memory import Memory

    config = Config()
    config.llm.backend = "rule-based"
    mem, _ = Memory.create(
        isolated_home, passphrase=PASSPHRASE, use_keyring=False, config=config, embedder=real_embedder
    )
    assert mem.llm_name == "rule-based"
    yield mem
    mem.close()
