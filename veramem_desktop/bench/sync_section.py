"""The ``sync`` bench section: events applied per second, and the delay from a batch file's
arrival in the folder to its events being found by search on the receiving device.

Two real stores pair through one shared folder (no file-sync engine in between, so the
delay measured is VeraMem's own: the watchdog noticing the file, opening it, applying it,
and the search index seeing the rows). Memories are written by ``mem.measuring.add_prepared``
(episode, memory item with evidence, FTS, ledger), without a model.
"""

from __future__ import annotations

import statistics
import threading
import time

from ..memory import Memory
from .runner import BenchContext, Section
from .sentences import fact_sentences

EVENTS_TARGET = 4_000  # ledger entries to replicate (two per memory: episode and item)
DELAY_SAMPLES = 7
COUNTED_MEMORIES = 100  # a last, smaller exchange whose SQL statements are counted (not timed)
USER = "bench"


def _write(mem: Memory, texts: list[str]) -> None:
    mem.measuring.add_prepared(
        texts, user_id=USER
    )  # one transaction, each with its episode as evidence, no vectors


def _pair(a: Memory, b: Memory, ctx: BenchContext) -> None:
    folder = ctx.home / "sync-folder"
    folder.mkdir()
    a.sync.init(folder, "bench-a")
    code = b.sync.join_start(folder, "bench-b")
    joiner = threading.Thread(target=lambda: b.sync.join_finish(timeout_s=120))
    joiner.start()
    a.sync.approve(code, wait_s=120)
    joiner.join(180)


def _statements_per_event(a: Memory, b: Memory) -> tuple[float, int]:
    """SQL statements the receiving device runs per applied event (each row of an executemany counts;
    FTS5's own statements do not), in an exchange of COUNTED_MEMORIES memories."""
    _write(a, fact_sentences(COUNTED_MEMORIES))
    a.sync.run()
    with b.measuring.counting_statements() as seen:
        report = b.sync.run()
        statements = seen()
    return (
        round(statements / report.applied_events, 1) if report.applied_events else 0.0
    ), report.applied_events


def run_sync_section(ctx: BenchContext) -> Section:
    ctx.progress("sync: pairing two stores")
    a, b = ctx.new_memory("sync-a"), ctx.new_memory("sync-b")
    try:
        _pair(a, b, ctx)
        _write(a, fact_sentences(EVENTS_TARGET // 2))
        ctx.progress(f"sync: exporting and applying {EVENTS_TARGET} events")
        exported = a.sync.run()
        applied = b.sync.run()
        rate = applied.applied_events / applied.seconds if applied.seconds else 0.0

        ctx.progress("sync: arrival-to-searchable delay")
        stop = threading.Event()
        daemon = threading.Thread(target=lambda: b.sync.daemon(stop, scan_s=60.0), daemon=True)
        daemon.start()
        b.sync.run()  # the daemon's own first exchange has nothing to do; let it settle
        delays = []
        for i in range(DELAY_SAMPLES):
            token = f"zq{i:02d}marker{int(time.time() * 1000) % 100000}"
            _write(a, [f"The spare key {token} is under the third flowerpot."])
            a.sync.run()
            arrived = time.perf_counter()  # the batch file is in the folder now
            deadline = arrived + 60
            while time.perf_counter() < deadline:
                if any(token in h.text for h in b.search(token, user_id=USER, k=5).results):
                    delays.append((time.perf_counter() - arrived) * 1000)
                    break
                time.sleep(0.005)
        stop.set()
        daemon.join(10)
        per_event, counted = _statements_per_event(a, b)
    finally:
        a.close()
        b.close()
    delay_data = {
        "p50": round(statistics.median(delays), 1) if delays else None,
        "max": round(max(delays), 1) if delays else None,
        "n": len(delays),
        "missed": DELAY_SAMPLES - len(delays),
    }
    data = {
        "events": applied.applied_events,
        "batches": applied.applied_batches,
        "export_seconds": exported.seconds,
        "apply_seconds": applied.seconds,
        "events_applied_per_s": round(rate, 1),
        "sql_statements_per_event": per_event,
        "arrival_to_searchable_ms": delay_data,
    }
    d = delay_data
    rows = [
        (
            "sync apply",
            f"{data['events_applied_per_s']:,.0f} events/s ({data['events']} events in "
            f"{data['batches']} files, {applied.seconds:.2f} s; export {exported.seconds:.2f} s; "
            f"{per_event} SQL statements per event over {counted})",
        ),
        (
            "sync arrival→searchable",
            f"p50 {d['p50']} ms, max {d['max']} ms (n={d['n']}, missed {d['missed']})",
        ),
    ]
    return Section({"sync": data}, rows)
