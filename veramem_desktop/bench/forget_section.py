"""The ``forget`` bench section: erasing one memory, and erasing a user with 10,000 items.

Each memory here has its own episode and evidence, so a forget walks the same closure as in
daily use (versions, evidence, episode, FTS rows, vectors, entities, traces, tombstones) and
ends with the truncating WAL checkpoint.
"""

from __future__ import annotations

import time

import numpy as np

from veramem_desktop.core.storage import episodes, index, items
from veramem_desktop.core.storage.episodes import EpisodeInput, Scope
from veramem_desktop.core.storage.items import Evidence, MemoryItem

from ..memory import Memory
from .latency import percentiles
from .runner import BenchContext, Section
from .sentences import fact_sentences

USER_ITEMS = 10_000
SINGLE_FORGETS = 50
BATCH = 1_000


def _fill(mem: Memory, user: str, n: int, texts: list[str], vectors: np.ndarray) -> list[str]:
    ids: list[str] = []
    device, model = mem.device_id, mem.embedder.name
    for lo in range(0, n, BATCH):
        with mem.store.atomic() as conn:
            for i in range(lo, min(lo + BATCH, n)):
                text, vec = texts[i % len(texts)], vectors[i % len(texts)]
                ep = episodes.insert(conn, [EpisodeInput(content=text)], Scope(user_id=user), device=device)[
                    0
                ]
                item = items.insert(
                    conn,
                    MemoryItem(
                        id="", kind="fact", text=text, authority="authorized", user_id=user, source="bench"
                    ),
                    [Evidence(ep.id, text, 0, len(text), 1.0, "user")],
                    device=device,
                )
                index.index_memory(conn, model, item.id, text, vec)
                ids.append(item.id)
    return ids


def run_forget_section(ctx: BenchContext) -> Section:
    texts = fact_sentences(500)
    vectors = ctx.embedder.embed(texts)
    mem = ctx.new_memory("forget")
    try:
        ctx.progress(f"forget: filling a store with {USER_ITEMS:,} items of one user")
        _fill(mem, "bulk", USER_ITEMS, texts, vectors)
        singles = _fill(mem, "me", SINGLE_FORGETS, texts, vectors)
        samples = []
        for memory_id in singles:
            t0 = time.perf_counter()
            mem.forget(memory_id)
            samples.append((time.perf_counter() - t0) * 1000)
        single = percentiles(samples)
        t0 = time.perf_counter()
        report = mem.forget("user:bulk")
        user_s = time.perf_counter() - t0
        assert report.erased_memories == USER_ITEMS, report
        verified = mem.verify().ok
    finally:
        mem.close()
    data = {
        "forget": {
            "memory_ms": single,
            "user_items": USER_ITEMS,
            "user_s": round(user_s, 2),
            "ledger_verifies": verified,
        }
    }
    rows = [
        (
            "forget one memory p50 / p95",
            f"{single['p50']:.1f} / {single['p95']:.1f} ms (with its episode, "
            "evidence, indexes, tombstones and a truncating WAL checkpoint)",
        ),
        (f"forget a user of {USER_ITEMS:,} items", f"{user_s:.1f} s (ledger verifies: {verified})"),
    ]
    return Section(data, rows)
