"""The full export: every message and every memory in one file that `veramem import` reads back.

``veramem export memories`` writes the memories and only the messages they quote; a person reading
"export" expects everything. This writes the same JSON-lines archive (core/transfer/memory_export.py,
whose writer it goes through, so whatever that writer withholds this withholds too) with every
episode in session order, and the header says ``"episodes": "all"``. Ids are kept, so an import into
an empty store recreates the same messages and memories, and an import into the same store adds
nothing.
"""

from __future__ import annotations

from pathlib import Path

from veramem_desktop.core.storage import episode_turns
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.transfer import memory_export


def export_all(
    store: Store,
    path: Path,
    *,
    user_id: str | None,
    overwrite: bool,
    store_id: str | None,
    now: str | None = None,
) -> dict[str, int]:
    """Write every episode and every memory (``user_id``'s only, when given) to ``path`` as JSON lines;
    returns the counts of memories (chains), versions, episodes and links."""
    return memory_export.export(
        store,
        path,
        fmt="jsonl",
        user_id=user_id,
        overwrite=overwrite,
        store_id=store_id,
        now=now,
        episode_ids=episode_turns.ids_in_order(store, user_id),
    )
