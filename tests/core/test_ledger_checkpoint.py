"""`status` checks the ledger from a checkpoint; `verify` still checks all of it."""

from __future__ import annotations

from support.internals import store_of
from veramem_desktop.core.storage import ledger_verify

from veramem_desktop.memory import Memory


def _entries(mem: Memory) -> int:
    return int(store_of(mem).query_one("SELECT count(*) FROM ledger")[0])


def test_status_moves_the_checkpoint_forward_and_recomputes_only_newer_entries(mem: Memory) -> None:
    for i in range(5):
        mem.add(f"Checkpoint note number {i} about the garden.", session_id="s")
    first = mem.status()["ledger"]
    total = _entries(mem)
    assert first["ok"] and first["checked"] == first["total"] == total
    assert store_of(mem).get_meta(ledger_verify.CHECKPOINT_META).startswith(f"{total}:")
    mem.add("One more note after the checkpoint.", session_id="s")
    second = mem.status()["ledger"]
    assert second["ok"] and second["checked"] == _entries(mem) > total


def test_status_names_an_entry_changed_after_the_checkpoint(mem: Memory) -> None:
    mem.add("A note before the checkpoint.", session_id="s")
    assert mem.status()["ledger"]["ok"]
    mem.add("A note after the checkpoint.", session_id="s")
    last = _entries(mem)
    with store_of(mem).atomic() as conn:
        conn.execute("UPDATE ledger SET op = 'memory.retract' WHERE seq = ?", (last,))
    report = mem.status()["ledger"]
    assert not report["ok"] and report["first_bad_seq"] == last


def test_status_notices_when_the_checkpointed_entry_itself_was_replaced(mem: Memory) -> None:
    mem.add("A note that will be checkpointed.", session_id="s")
    assert mem.status()["ledger"]["ok"]
    seq = _entries(mem)
    with store_of(mem).atomic() as conn:
        conn.execute("UPDATE ledger SET hash = ? WHERE seq = ?", ("0" * 64, seq))
    report = mem.status()["ledger"]
    assert not report["ok"] and report["first_bad_seq"] == seq


def test_entries_cut_off_the_end_are_named_by_status(mem: Memory) -> None:
    for i in range(3):
        mem.add(f"Note {i} that will be cut off.", session_id="s")
    total = _entries(mem)
    with store_of(mem).atomic() as conn:
        conn.execute("DELETE FROM ledger WHERE seq = ?", (total,))
    report = mem.status()["ledger"]
    assert not report["ok"] and "cut off" in report["problem"]


def test_an_old_entry_changed_before_the_checkpoint_is_left_to_the_full_verify(mem: Memory) -> None:
    for i in range(3):
        mem.add(f"Old note {i}.", session_id="s")
    assert mem.status()["ledger"]["ok"]
    with store_of(mem).atomic() as conn:
        conn.execute("UPDATE ledger SET ts = '1999-01-01T00:00:00Z' WHERE seq = 1")
    assert mem.status()["ledger"]["ok"]  # status does not re-read what it verified before
    full = mem.verify()
    assert not full.ok and full.first_bad_seq == 1
