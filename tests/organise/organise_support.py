"""Helpers for the self-organisation tests: memories placed in exact scopes, links read back."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from support.fake_embedder import HashEmbedder
from veramem_desktop.core.lifecycle.linker import Linker, LinkReport
from veramem_desktop.core.lifecycle.links import enqueue
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage import index, items
from veramem_desktop.core.storage.episodes import EpisodeInput, Scope
from veramem_desktop.core.storage.items import ROLE_AUTHORITY, Evidence, MemoryItem
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.storage.vectors import VectorCache
from veramem_desktop.core.write.ingest import store_episodes

DEVICE = "dev_test"


def open_store(folder: Path) -> Store:
    """A new store with a random raw key (no passphrase stretching, so it is fast)."""
    folder.mkdir(parents=True, exist_ok=True)
    return Store.open(folder / "store.db", os.urandom(32), create=True)


def put(
    store: Store,
    embedder: Embedder,
    text: str,
    *,
    user: str = "ann",
    team: str | None = None,
    visibility: str = "private",
    agent: str | None = None,
    session: str | None = "s1",
    kind: str = "fact",
    role: str = "user",
    queue: bool = True,
    **fields: Any,
) -> MemoryItem:
    """Store ``text`` as an episode and a memory citing all of it, in exactly the scope given,
    and queue it for linking (as the facade does after an add)."""
    [ep] = store_episodes(
        store,
        embedder,
        [EpisodeInput(content=text, role=role)],
        Scope(user_id=user, agent_id=agent, team_id=team, session_id=session),
        device=DEVICE,
    )
    item = MemoryItem(
        id="",
        kind=kind,
        text=text,
        authority=ROLE_AUTHORITY[role],
        user_id=user,
        agent_id=agent,
        team_id=team,
        session_id=session,
        visibility=visibility,
        valid_from=ep.event_time,
        **fields,
    )
    with store.atomic() as conn:
        item = items.insert(conn, item, [Evidence(ep.id, text, 0, len(text), 1.0, role)], device=DEVICE)
        index.index_memory(conn, embedder.name, item.id, item.text, embedder.embed([text])[0])
        if queue:
            enqueue(conn, [item.id])
    return item


def link_all(store: Store, embedder: HashEmbedder, llm: LLM | None = None, **config: Any) -> LinkReport:
    from veramem_desktop.core.lifecycle.linker import LinkConfig

    cache = VectorCache("memory", embedder.name, embedder.dim)
    return Linker(store, embedder, llm, cache, device=DEVICE, config=LinkConfig(**config)).drain()


def links(store: Store) -> list[tuple[str, str, str]]:
    return [
        (r[0], r[1], r[2]) for r in store.query("SELECT src, dst, type FROM links ORDER BY src, dst, type")
    ]


def status(store: Store, memory_id: str) -> str:
    row = store.query_one("SELECT status FROM memory_items WHERE id = ?", (memory_id,))
    return "forgotten" if row is None else str(row[0])
