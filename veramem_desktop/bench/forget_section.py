"""The ``forget`` bench section: erasing one memory, and erasing a user with 10,000 items.

Each memory here has its own episode and evidence, so a forget walks the same closure as in
daily use (versions, evidence, episode, FTS rows, vectors, entities, traces, tombstones) and
ends with the truncating WAL checkpoint.
"""

from __future__ import annotations

import time

import numpy as np

from ..memory import Memory
from .latency import percentiles
from .runner import BenchContext, Section
from .sentences import fact_sentences

USER_ITEMS = 10_000
SINGLE_FORGETS = 50
BATCH = 1_000


def _fill(mem: Memory, user: str, n: int, texts: list[str], vectors: np.ndarray) -> list[str]:
    """``n`` memories of ``user``, each with its own episode as evidence and its vector, BATCH per transaction."""
    ids: list[str] = []
    for lo in range(0, n, BATCH):
        batch = range(lo, min(lo + BATCH, n))
        ids += mem.measuring.add_prepared(
            [texts[i % len(texts)] for i in batch],
            user_id=user,
            vectors=[vectors[i % len(texts)] for i in batch],
        )
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
