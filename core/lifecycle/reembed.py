"""Re-embedding a store with another model: every vector made again by ``embedder``, then the old ones dropped.

Search compares a query only with vectors of its own model (the embeddings table keys each vector
by model id), so a store whose vectors came from another model (float32 compute before int8, a
custom model configured later, or a synced device running another one) finds those owners by
their words only. ``reembed`` makes each missing vector again, in the order the write path does:

1. each turn's line vector ('episode'), then its context vector ('episode_ctx') from the new line
   vectors around it (core/write/ingest.py);
2. each memory's vector ('memory'), from its text;
3. each memory's context vector ('memory_ctx'), from its text between its source turns.

It works in batches, each stored in one transaction, and only embeds owners that hold a vector
of another model and none of ``embedder``'s, so an interrupted run resumes where it stopped.
When every owner has its new vector, the other models' vectors are dropped. Vectors are an
index, not memories: nothing here touches a memory, a message or the ledger.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from veramem_desktop.core.lifecycle.linker import memory_context
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage import episodes, index, index_rows, items
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.write.ingest import line_of, recompute_context

#: owners embedded and stored per transaction
BATCH = 256


@dataclass
class ReembedReport:
    """What a re-embedding did: vectors made per kind, and old vectors dropped."""

    model: str
    made: dict[str, int] = field(default_factory=dict)
    removed: int = 0

    def to_dict(self) -> dict[str, object]:
        return {"model": self.model, "made": dict(self.made), "removed": self.removed}


def pending(store: Store, model: str) -> dict[str, int]:
    """How many vectors the store holds per model other than ``model`` (empty: nothing to re-embed)."""
    return {name: n for name, n in index_rows.vector_models(store).items() if name != model}


def reembed(
    store: Store, embedder: Embedder, progress: Callable[[str, int], None] | None = None
) -> ReembedReport:
    """Make every missing vector of ``embedder``'s model, then drop the other models' vectors."""
    report = ReembedReport(embedder.name)
    for kind, make in (
        ("episode", _episode_lines),
        ("episode_ctx", _episode_contexts),
        ("memory", _memory_texts),
        ("memory_ctx", _memory_contexts),
    ):
        gone: set[str] = set()  # vectors whose owner is not there: dropped with the other models' below
        while ids := index_rows.owners_without(store, kind, embedder.name, BATCH, skip=sorted(gone)):
            made = make(store, embedder, ids)
            if made < len(ids):
                gone.update(set(ids) - set(index_rows.owners_with(store, kind, embedder.name, ids)))
            report.made[kind] = report.made.get(kind, 0) + made
            if progress is not None:
                progress(kind, report.made[kind])
    with store.atomic() as conn:
        report.removed = index_rows.remove_other_models(conn, embedder.name)
    return report


def _episode_lines(store: Store, embedder: Embedder, ids: list[str]) -> int:
    found = episodes.get_many(store, ids)
    eps = [found[i] for i in ids if i in found]
    vectors = index.embed_texts(embedder, [line_of(e.role, e.source_name, e.content) for e in eps])
    with store.atomic() as conn:
        index.store_vectors(conn, "episode", embedder.name, [e.id for e in eps], vectors)
    return len(eps)


def _episode_contexts(store: Store, embedder: Embedder, ids: list[str]) -> int:
    return recompute_context(store, embedder, ids)


def _memory_texts(store: Store, embedder: Embedder, ids: list[str]) -> int:
    return _memory_vectors(store, embedder, ids, "memory", lambda item: item.text)


def _memory_contexts(store: Store, embedder: Embedder, ids: list[str]) -> int:
    return _memory_vectors(store, embedder, ids, "memory_ctx", lambda item: memory_context(store, item))


def _memory_vectors(
    store: Store, embedder: Embedder, ids: list[str], kind: str, text_of: Callable[[MemoryItem], str]
) -> int:
    """Embed what ``text_of`` gives for each memory of ``ids`` still there and store it as ``kind``."""
    found = items.get_many(store, ids)
    kept = [found[i] for i in ids if i in found]
    vectors = index.embed_texts(embedder, [text_of(item) for item in kept])
    with store.atomic() as conn:
        index.store_vectors(conn, kind, embedder.name, [item.id for item in kept], vectors)
    return len(kept)
