"""Expiry is read-time and scoped (issue 30, deliver 3).

Once an ``--until`` time has passed, the rows are hidden from every read before any sweep runs; and at
expiry only what the expiring messages alone support goes: a later statement of the same fact with no
expiry survives, with its own evidence.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from support.internals import store_of
from veramem_desktop.core.errors import NotFoundError


def _soon(seconds: float = 1.0) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


def _wait_past(moment: str) -> None:
    time.sleep(max(0.0, (datetime.fromisoformat(moment) - datetime.now(UTC)).total_seconds()) + 0.1)


def test_a_later_statement_with_no_expiry_survives_the_expiry_with_its_own_evidence(mem: Any) -> None:
    until = _soon()
    first = mem.add("My office is in building Zarqonel.", session_id="a", until=until)
    again = mem.add("My office is in building Zarqonel.", session_id="b")
    memory = first.added[0]["id"]
    assert [m["id"] for m in again.unchanged] == [
        memory
    ]  # the second statement is evidence for the same memory
    _wait_past(until)

    mem.curation.expire()

    assert mem.get(memory).text.endswith("Zarqonel.")
    assert again.episodes[0].id in {e.episode.id for e in mem.reading.detail(memory).evidence}
    assert any("Zarqonel" in h.text for h in mem.search("office building", route="dual").results)


def test_an_expired_memory_is_hidden_from_every_read_before_any_sweep(mem: Any, tmp_path: Path) -> None:
    until = _soon()
    added = mem.add("My hotel room code is Qxroomcode.", session_id="h", until=until)
    memory, episode = added.added[0]["id"], added.episodes[0].id
    _wait_past(until)
    stored = store_of(mem).query_one("SELECT count(*) FROM memory_items WHERE id = ?", (memory,))
    assert stored == (1,), "the sweep ran already: this test is about reads before it"

    for read in (mem.get, mem.reading.detail, mem.history, mem.reading.links):
        with pytest.raises(NotFoundError):
            read(memory)
    assert mem.reading.episode(episode) is None
    assert all("Qxroomcode" not in e.content for e in mem.episodes(limit=100))
    assert all("Qxroomcode" not in m.text for m in mem.memories(status=None, limit=100))
    assert mem.curation.expiring(timedelta(days=1)) == []
    for fmt in ("jsonl", "markdown"):
        target = tmp_path / f"m.{fmt}"
        mem.importer.export_memories(target, format=fmt)
        assert "Qxroomcode" not in target.read_text()
    assert not [h for h in mem.search("hotel room code", route="dual").results if "Qxroomcode" in h.text]
