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


#: fixture scopes that outlive one test but not the run: under pytest-xdist a worker builds such a
#: fixture for itself, so a module whose tests share one must run on one worker
_SHARED_SCOPES = frozenset({"package", "module", "class"})


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep each module whose tests share a module-, class- or package-scoped fixture on one worker.

    ``make test`` runs the suite on two workers (pytest-xdist, ``--dist loadgroup``); a shared fixture
    there is made once per worker that runs one of its tests, and the packaged build's (a PyInstaller
    build, a minute and more) would be made twice. Each such test gets an ``xdist_group`` named after
    its file, read off the fixtures it asks for, so a new shared fixture is covered without a list.
    Only the suite's own fixtures count (a plugin's have no ``baseid``: anyio's module-scoped
    ``anyio_backend`` only names the event loop). Runs first, before xdist turns the groups into work
    units; without xdist the mark does nothing.
    """
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        defs = info.name2fixturedefs.values() if info is not None else ()
        if any(d.scope in _SHARED_SCOPES and d.baseid for chain in defs for d in chain):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


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
