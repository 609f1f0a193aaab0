"""One vector index per open store: search, the write path, the linker and consolidation read the same
in-memory caches (built by the facade with the engine), so each stored vector is loaded once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from support.internals import engine_of
from veramem_desktop.core.storage import vectors

from veramem_desktop.memory import Memory


def test_search_writes_links_and_consolidation_build_one_set_of_vector_caches(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[str] = []
    original = vectors.VectorCache.__init__

    def counting(self: vectors.VectorCache, owner_kind: str, *args: Any, **kwargs: Any) -> None:
        built.append(owner_kind)
        original(self, owner_kind, *args, **kwargs)

    monkeypatch.setattr(vectors.VectorCache, "__init__", counting)
    mem, _ = Memory.create(isolated_home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder())
    try:
        mem.add("Ann plays tennis on Sundays.")
        mem.add("Ann plays tennis every Sunday morning.")
        assert mem.organiser.wait_for_links(10)
        assert mem.search("tennis").results
        mem.organiser.drain_links()
        mem.consolidate()
        assert sorted(built) == sorted(vectors.KINDS)  # one cache of each kind, for everything
        assert engine_of(mem).caches["memory"] is engine_of(mem).vectors.memory
    finally:
        mem.close()
