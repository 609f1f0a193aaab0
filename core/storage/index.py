"""Search indexes written beside each memory and episode: vectors and entities.

(The full-text rows are written with the item, by ``items.insert`` and ``episodes.insert``.)
Vectors are computed before the write transaction opens (the model is slow) and
stored inside it, so the index never lags the rows it describes. This module computes what
goes in the index; :mod:`.index_rows` holds the statements that write it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from veramem_desktop.core.protocols import Embedder, Vectors
from veramem_desktop.core.storage import index_rows
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.storage.vectors import to_blob
from veramem_desktop.core.text.terms import entities

#: The vector variants each kind of owner may have (keys of the embeddings table).
VECTOR_KINDS = {"memory": ("memory", "memory_ctx"), "episode": ("episode", "episode_ctx")}


def embed_texts(embedder: Embedder, texts: Sequence[str]) -> Vectors:
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return embedder.embed(list(texts))


def store_vectors(
    conn: Connection, owner_kind: str, model: str, ids: Sequence[str], vectors: Vectors
) -> None:
    index_rows.replace_vectors(
        conn, [(owner_kind, i, model, to_blob(v)) for i, v in zip(ids, vectors, strict=True)]
    )


def store_entities(conn: Connection, owner_kind: str, owner_id: str, text: str) -> None:
    index_rows.insert_entities(conn, [(owner_kind, owner_id, e) for e in sorted(entities(text))])


def remove_owner(conn: Connection, owner_kind: str, owner_id: str) -> None:
    """Erase every index row of one owner (vectors of every variant, entities, FTS)."""
    index_rows.remove_owner_rows(conn, owner_kind, VECTOR_KINDS[owner_kind], owner_id)


def index_memory(conn: Connection, model: str, item_id: str, text: str, vector: Vectors) -> None:
    """Vectors and entities of one memory item (its FTS row is written with the item)."""
    store_vectors(conn, "memory", model, [item_id], vector.reshape(1, -1))
    store_entities(conn, "memory", item_id, text)
