"""Search latency at growing store sizes, and add throughput without an LLM.

Embedding 100k texts with the real model would take minutes on a laptop, so a pool
of real fact sentences is embedded with the real model, and memories past the pool
are stored as two pool sentences joined, with the normalised sum of their two
vectors. They are written through the real schema (memory_items, FTS, vectors,
entities, ledger) by ``mem.measuring.add_prepared`` in large transactions. Queries are real
questions, embedded for real on every search.

The bench holds the embedding model itself (``BenchContext.embedder``, shared by every
section's store) and embeds with it; what it measures below the facade (the engine without
a trace, the memory vector cache against an exact scan) it measures on the engine the facade
builds for measurement (``mem.recall.search_engine``).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence

import numpy as np

from veramem_desktop.core.recall import SearchEngine

from ..memory import Memory
from .runner import BenchContext, Section
from .sentences import conversation, fact_sentences, questions

POOL = 2_000
USER = "bench"
BATCH = 2_000
ONE_MESSAGE_ADDS = 50


def percentiles(samples_ms: Sequence[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive") if len(ordered) > 1 else [ordered[0]] * 99
    return {"p50": round(statistics.median(ordered), 2), "p95": round(cuts[94], 2), "n": len(ordered)}


def _timed(fn: Callable[[str], object], queries: Sequence[str]) -> list[float]:
    out = []
    for q in queries:
        t0 = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def fill_store(
    mem: Memory, start: int, end: int, texts: list[str], vectors: np.ndarray, rng: np.random.Generator
) -> None:
    """Memories ``start`` to ``end`` of USER, without evidence, one transaction per BATCH."""
    for lo in range(start, end, BATCH):
        batch: list[str] = []
        batch_vectors: list[np.ndarray] = []
        for i in range(lo, min(lo + BATCH, end)):
            if i < len(texts):
                text, vec = texts[i], vectors[i]
            else:  # a synthetic memory: two real sentences, the normalised sum of their vectors
                a, b = (int(x) for x in rng.integers(0, len(texts), size=2))
                text = f"{texts[a]} {texts[b]}"
                vec = vectors[a] + vectors[b]
                vec = vec / max(float(np.linalg.norm(vec)), 1e-12)
            batch.append(text)
            batch_vectors.append(np.asarray(vec, dtype=np.float32))
        mem.measuring.add_prepared(batch, user_id=USER, vectors=batch_vectors, with_messages=False)


def _dense_agreement(engine: SearchEngine, asked: Sequence[str]) -> dict[str, object]:
    """How much of the exact top 100 by cosine the memory vector cache returns: 1.0 while it
    scans exactly; below that once it ranks by its projection first (core/storage/vectors.py)."""
    cache = engine.caches["memory"]
    cache.refresh(engine.store)
    positions = cache.held_positions()  # every stored memory vector, without a list of 100k ids
    kept = []
    for vector in engine.embedder.embed(list(asked)):
        fast = {i for i, _ in cache.top(vector, positions, 100)}
        exact = {i for i, _ in cache.top(vector, positions, 100, exact=True)}
        kept.append(len(fast & exact) / max(1, len(exact)))
    return {
        "projected": cache.approximate,
        "recall@100_vs_exact": round(statistics.fmean(kept), 4) if kept else 1.0,
    }


def _status_ms(mem: Memory, runs: int = 7) -> dict[str, float | int]:
    """``Memory.status`` (the ledger checked from its checkpoint): the first call after a fill
    recomputes the entries added since the last call; the repeats, only the checkpoint."""
    t0 = time.perf_counter()
    first = mem.status()
    first_ms = (time.perf_counter() - t0) * 1000
    repeats = []
    for _ in range(runs):
        t0 = time.perf_counter()
        info = mem.status()
        repeats.append((time.perf_counter() - t0) * 1000)
    t0 = time.perf_counter()
    full = mem.verify()
    full_ms = (time.perf_counter() - t0) * 1000
    return {
        "first": round(first_ms, 1),
        "p50": round(statistics.median(repeats), 1),
        "ledger_entries": int(info["counts"]["ledger"]),
        "full_verify": round(full_ms, 1),
        "ok": bool(first["ledger"]["ok"] and info["ledger"]["ok"]),
        "full_verify_ok": full.ok,
    }


def run_latency(ctx: BenchContext) -> Section:
    sizes = sorted(set(ctx.options.sizes))
    mem = ctx.new_memory("latency")
    try:
        emb = ctx.embedder
        pool = fact_sentences(min(POOL, max(sizes)))
        ctx.progress(f"latency: embedding {len(pool)} real sentences")
        t0 = time.perf_counter()
        vectors = emb.embed(pool)
        embed_per_s = len(pool) / (time.perf_counter() - t0)
        asked = questions(ctx.options.queries)
        rng = np.random.default_rng(3)
        caller = mem.caller(USER)
        measured = mem.recall.search_engine()  # ranks as Memory.search does, on its vector index
        data: dict[str, dict[str, object]] = {}
        statuses: dict[int, dict[str, float | int]] = {}
        rows: list[tuple[str, str]] = []
        have = 0
        for size in sizes:
            ctx.progress(f"latency: storing {size - have:,} memories (total {size:,})")
            t0 = time.perf_counter()
            fill_store(mem, have, size, pool, vectors, rng)
            fill_s = time.perf_counter() - t0
            done_before, have = have, size
            for q in asked[:5]:  # warm the caches and the model
                mem.search(q, user_id=USER)
            ctx.progress(f"latency: {len(asked)} searches at {size:,}")
            full = percentiles(_timed(lambda q: mem.search(q, user_id=USER), asked))
            engine = percentiles(_timed(lambda q: measured.search(q, caller, write_trace=False), asked))
            embed = percentiles(_timed(lambda q: emb.embed([q]), asked))
            agreement = _dense_agreement(measured, asked[:50])
            status = statuses[size] = _status_ms(mem)
            data[str(size)] = {
                **full,
                "engine_p50": engine["p50"],
                "engine_p95": engine["p95"],
                "embed_p50": embed["p50"],
                "synthetic": max(0, size - len(pool)),
                "stored_per_s": round((size - done_before) / fill_s) if fill_s else 0,
                "dense": agreement,
                "status_ms": status,
            }
            scan = (
                f"projected scan keeps {agreement['recall@100_vs_exact']:.3f} of the exact top 100"
                if agreement["projected"]
                else "exact scan"
            )
            rows.append(
                (
                    f"search p50 / p95 @ {size:,}",
                    f"{full['p50']:.1f} / {full['p95']:.1f} ms via Memory.search (engine only "
                    f"{engine['p50']:.1f} / {engine['p95']:.1f}; query embedding {embed['p50']:.1f}; "
                    f"{scan})",
                )
            )
        for size, st in statuses.items():
            rows.append(
                (
                    f"status @ {size:,}",
                    f"{st['p50']:.1f} ms p50 (Memory.status, ledger of "
                    f"{st['ledger_entries']:,} entries checked from its checkpoint; "
                    f"first after the fill {st['first']:.0f} ms; full verify "
                    f"{st['full_verify']:.0f} ms)",
                )
            )
        synthetic = [s for s in sizes if s > len(pool)]
        note = (
            f"first {len(pool):,} memories embedded for real ({embed_per_s:.0f} texts/s); past that, two real "
            "sentences joined with the normalised sum of their vectors; queries embedded for real"
        )
        rows.append(("  memories", note if synthetic else "all embedded for real"))
        return Section({"search_latency_ms": data, "search_latency_note": note}, rows)
    finally:
        mem.close()


def run_add(ctx: BenchContext, messages: int = 200) -> Section:
    """Messages per second through ``Memory.add`` (episodes, indexes and derivation; no LLM)."""
    mem = ctx.new_memory("add")
    try:
        chat = conversation(messages)
        mem.add("warming up the model and the store", user_id=USER, session_id="warmup")
        ctx.progress(f"add: {len(chat)} messages through Memory.add, two per call")
        per_call: list[float] = []
        t0 = time.perf_counter()
        for i in range(0, len(chat), 2):
            pair = [{"role": role, "content": text} for role, text in chat[i : i + 2]]
            t1 = time.perf_counter()
            mem.add(pair, user_id=USER, session_id=f"chat-{i // 40}")
            per_call.append((time.perf_counter() - t1) * 1000)
        seconds = time.perf_counter() - t0
        one: list[float] = []
        for i, (role, text) in enumerate(chat[:ONE_MESSAGE_ADDS]):
            t1 = time.perf_counter()
            mem.add([{"role": role, "content": text}], user_id=USER, session_id=f"one-{i // 20}")
            one.append((time.perf_counter() - t1) * 1000)
        rate = round(len(chat) / seconds, 1)
        memories = mem.reading.memory_count()
        call_p50 = round(statistics.median(per_call), 1)
        one_p50 = round(statistics.median(one), 1)
        data = {
            "add_per_s": rate,
            "add": {
                "messages": len(chat),
                "seconds": round(seconds, 2),
                "call_p50_ms": call_p50,
                "one_message_p50_ms": one_p50,
                "memories_derived": memories,
                "llm": str(getattr(mem, "llm_name", "none")),
            },
        }
        return Section(
            data,
            [
                (
                    "add throughput",
                    f"{rate:.1f} messages/s through Memory.add (2 per call, "
                    f"p50 {call_p50} ms per call, no LLM; "
                    f"{memories} memories derived)",
                ),
                ("add one message", f"p50 {one_p50} ms per call ({len(one)} calls, one message each)"),
            ],
        )
    finally:
        mem.close()
