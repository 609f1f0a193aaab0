"""Vectors of another model made again by ``embedder``: in the background as they arrive (``catch_up``),
or for the whole store on request, the old ones then dropped (``reembed``, `veramem reindex`).

Search compares a query only with vectors of its own model (the embeddings table keys each vector
by model id), so an owner whose vectors came from another model (float32 compute before int8, a
custom model configured later, or a synced device computing otherwise) is found by its words
only. ``catch_up`` makes the missing vectors, in the order the write path does:

1. each turn's line vector ('episode'), then its context vector ('episode_ctx') from the new line
   vectors around it (core/write/ingest.py);
2. each memory's vector ('memory'), from its text;
3. each memory's context vector ('memory_ctx'), from its text between its source turns.

It works in batches, each stored in one short transaction, and only embeds owners that hold a
vector of another model and none of ``embedder``'s, so an interrupted run resumes where it stopped
and a second run finds nothing to do. The batches commit without waiting for the disk: one lost in
a power cut leaves its owners without the new vectors, and the next run makes them again. The texts are read and embedded outside the transaction;
inside it they are read again, and a vector is stored only for an owner still there with the same
text, so a forget that ran in between never gets back a vector of what it erased.

``catch_up`` keeps the other models' vectors. A background drop could loop: two processes of one
device computing differently (one started before a reindex or a compute change, one after) would
each make again what the other dropped. Kept, each process only adds what its model lacks, so
every run ends; and a kept vector is the one a peer computing that way would need. Sync ships the
vectors of the owner of each ledger event and re-embedding writes no ledger entry, so it sends
nothing and a synced peer never answers it. ``reembed`` (a person's request) drops them at its end.
Vectors are an index, not memories: nothing here touches a memory, a message or the ledger.
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

#: owners embedded and stored per transaction by ``reembed``
BATCH = 256

#: the vector kinds in the order they are made (a turn's context vector reads its new line vectors)
KINDS = ("episode", "episode_ctx", "memory", "memory_ctx")


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


def behind(store: Store, model: str) -> dict[str, int]:
    """Per vector kind, how many owners hold vectors of other models only (empty: ``model`` finds every
    message and memory by meaning)."""
    return {kind: n for kind in KINDS if (n := index_rows.count_owners_without(store, kind, model))}


def reembed(
    store: Store, embedder: Embedder, progress: Callable[[str, int], None] | None = None
) -> ReembedReport:
    """Make every missing vector of ``embedder``'s model, then drop the other models' vectors."""
    report = catch_up(store, embedder, progress=progress)
    with store.atomic() as conn:
        report.removed = index_rows.remove_other_models(conn, embedder.name)
    return report


def catch_up(
    store: Store,
    embedder: Embedder,
    *,
    batch: int = BATCH,
    stop: Callable[[], bool] = lambda: False,
    progress: Callable[[str, int], None] | None = None,
    after: int = 0,
) -> ReembedReport:
    """Make the missing vectors of ``embedder``'s model, ``batch`` owners per transaction, until none is
    missing or ``stop()`` says so between batches; the other models' vectors are kept. With ``after`` (a
    rowid of ``index_rows.last_vector_rowid``), only owners whose other vectors were stored after it are
    looked at: a pass that ran to its end before need not read the whole table again."""
    report = ReembedReport(embedder.name)
    for kind in KINDS:
        make = _STEPS[kind]
        gone: set[str] = set()  # owners not there (or changed while embedded): left for the next run
        while not stop() and (
            ids := index_rows.owners_without(
                store, kind, embedder.name, batch, skip=sorted(gone), after=after
            )
        ):
            made = make(store, embedder, ids)
            if made < len(ids):
                gone.update(set(ids) - set(index_rows.owners_with(store, kind, embedder.name, ids)))
            if made:
                report.made[kind] = report.made.get(kind, 0) + made
            if progress is not None:
                progress(kind, report.made.get(kind, 0))
    return report


def _episode_lines(store: Store, embedder: Embedder, ids: list[str]) -> int:
    def lines(wanted: list[str]) -> dict[str, str]:
        return {
            e.id: line_of(e.role, e.source_name, e.content) for e in episodes.get_many(store, wanted).values()
        }

    return _embed_unchanged(store, embedder, "episode", ids, lines)


def _episode_contexts(store: Store, embedder: Embedder, ids: list[str]) -> int:
    # The turns around each one, their line vectors and the new context vectors are read and stored in one
    # transaction, so a turn forgotten meanwhile leaves no words in a neighbour's vector. It stays short:
    # the first step made the line vectors (recompute_context embeds only a line still missing one).
    with store.atomic(durable=False):
        return recompute_context(store, embedder, ids)


def _memory_texts(store: Store, embedder: Embedder, ids: list[str]) -> int:
    return _memory_vectors(store, embedder, ids, "memory", lambda item: item.text)


def _memory_contexts(store: Store, embedder: Embedder, ids: list[str]) -> int:
    return _memory_vectors(store, embedder, ids, "memory_ctx", lambda item: memory_context(store, item))


def _memory_vectors(
    store: Store, embedder: Embedder, ids: list[str], kind: str, text_of: Callable[[MemoryItem], str]
) -> int:
    """Embed what ``text_of`` gives for each memory of ``ids`` still there and store it as ``kind``."""

    def texts(wanted: list[str]) -> dict[str, str]:
        return {i: text_of(item) for i, item in items.get_many(store, wanted).items()}

    return _embed_unchanged(store, embedder, kind, ids, texts)


def _embed_unchanged(
    store: Store,
    embedder: Embedder,
    kind: str,
    ids: list[str],
    texts: Callable[[list[str]], dict[str, str]],
) -> int:
    """Embed ``texts(ids)`` (owner id to text; an owner not there is left out), then, in one transaction,
    store the vectors of the owners whose text ``texts`` still gives unchanged; how many were stored."""
    before = texts(ids)
    order = [i for i in ids if i in before]
    vectors = index.embed_texts(embedder, [before[i] for i in order])
    with store.atomic(durable=False) as conn:
        now = texts(order)
        kept = [j for j, i in enumerate(order) if now.get(i) == before[i]]
        index.store_vectors(conn, kind, embedder.name, [order[j] for j in kept], vectors[kept])
    return len(kept)


_STEPS: dict[str, Callable[[Store, Embedder, list[str]], int]] = {
    "episode": _episode_lines,
    "episode_ctx": _episode_contexts,
    "memory": _memory_texts,
    "memory_ctx": _memory_contexts,
}
