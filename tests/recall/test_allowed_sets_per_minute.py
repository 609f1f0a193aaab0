"""A long-running search engine keeps one allowed set (every id a caller may see) and one array of
their vector positions per caller and filter: the set is read again each minute (the access
predicate depends on the time), and a new minute's set replaces the last one's instead of piling
up beside it (at 100,000 memories each set holds about 8 MB)."""

from __future__ import annotations

from datetime import UTC, datetime

from support.internals import embedder_of, engine_of

from veramem_desktop.memory import Memory

TEXTS = [
    "Alice moved to Lisbon in March.",
    "Bob's sister plays the cello.",
    "The team meets on Thursdays at ten.",
    "Alice prefers green tea to coffee.",
]


def _minute(m: int) -> datetime:
    return datetime(2026, 1, 5, 9, m, tzinfo=UTC)


def test_searching_over_many_minutes_keeps_one_allowed_set_and_one_position_array_per_caller(
    mem: Memory,
) -> None:
    mem.measuring.add_prepared(TEXTS, user_id="alice", vectors=list(embedder_of(mem).embed(TEXTS)))
    engine = engine_of(mem)
    caller = mem.caller("alice")
    first = engine.search("Where does Alice live?", caller, now=_minute(0), write_trace=False)
    held = len(engine.channels.candidates._allowed)
    positions = len(engine.channels.dense._positions)
    assert held >= 1 and positions >= 1
    for m in range(1, 6):
        again = engine.search("Where does Alice live?", caller, now=_minute(m), write_trace=False)
        assert [(h.id, h.score) for h in again.results] == [(h.id, h.score) for h in first.results]
    assert len(engine.channels.candidates._allowed) == held
    assert len(engine.channels.dense._positions) == positions
    assert first.results  # the dense channel ranked something each time
