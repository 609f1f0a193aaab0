"""What the doctor and the benchmarks ask of one open store, and no surface offers: the file's page
check, statement counts, and large stores filled quickly without a model."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage import episodes as episodes_mod
from veramem_desktop.core.storage import items as items_mod
from veramem_desktop.core.storage.episodes import EpisodeInput, Scope
from veramem_desktop.core.storage.items import Evidence, MemoryItem
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.vocabulary import Authority, Kind


def load_embedder(embedder: Embedder) -> tuple[str, int]:
    """Load the embedding model now (a bundled model's sha256 is verified before use); its name and
    dimensions."""
    load = getattr(embedder, "load", None)  # the ONNX model loads lazily; a test double may not
    if load is not None:
        load()
    return str(embedder.name), int(embedder.dim)


class Measuring:
    """Checks and measurements of one open store, recorded as made on ``device``; ``embedder`` is asked for
    only when vectors are given."""

    def __init__(self, store: Store, *, device: str, embedder: Callable[[], Embedder]) -> None:
        self.store = store
        self.device = device
        self.embedder = embedder

    def integrity_problems(self, limit: int = 20) -> list[str]:
        """Every page of the store file checked (``PRAGMA cipher_integrity_check``): the problems found (at
        most ``limit``), none when the file is whole."""
        return self.store.integrity_problems(limit)

    def vector_models(self) -> dict[str, int]:
        """How many search vectors each embedding model holds in the store."""
        from veramem_desktop.core.storage import index_rows

        return index_rows.vector_models(self.store)

    def add_prepared(
        self,
        texts: Sequence[str],
        *,
        user_id: str,
        vectors: Sequence[Any] | None = None,
        with_messages: bool = True,
    ) -> list[str]:
        """Store ``texts`` in one transaction as authorized facts of ``user_id`` (source ``bench``), with no
        model and no reconciliation: each quotes a message of its own, stored with it, as its evidence (none
        without ``with_messages``), and is indexed with its vector from ``vectors`` (without one, only words
        find it). For measurements that need a large store quickly (``veramem bench``); no surface offers it.
        Returns the new ids in order."""
        from veramem_desktop.core.storage import index  # only the benchmarks fill stores this way

        device, model = self.device, self.embedder().name if vectors is not None else ""
        ids: list[str] = []
        with self.store.atomic() as conn:
            for i, text in enumerate(texts):
                evidence: list[Evidence] = []
                if with_messages:
                    scope = Scope(user_id=user_id)
                    episode = episodes_mod.insert(conn, [EpisodeInput(content=text)], scope, device=device)[0]
                    evidence = [Evidence(episode.id, text, 0, len(text), 1.0, "user")]
                item = MemoryItem(
                    id="",
                    kind=Kind.FACT,
                    text=text,
                    authority=Authority.AUTHORIZED,
                    user_id=user_id,
                    source="bench",
                )
                item = items_mod.insert(conn, item, evidence, device=device)
                if vectors is not None:
                    index.index_memory(conn, model, item.id, text, vectors[i])
                ids.append(item.id)
        return ids

    @contextmanager
    def counting_statements(self) -> Iterator[Callable[[], int]]:
        """Count the SQL statements this store's connection runs inside the block (each row of an
        executemany counts; SQLite's own comment lines do not); yields a function giving the count so far.
        For measurements (``veramem bench``)."""
        seen = [0]

        def count(sql: str) -> None:
            if not sql.startswith("--"):
                seen[0] += 1

        conn = self.store.conn
        conn.set_trace_callback(count)
        try:
            yield lambda: seen[0]
        finally:
            conn.set_trace_callback(None)
