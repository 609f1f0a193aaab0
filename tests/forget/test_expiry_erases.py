"""Pins and expiry: `add --until/--for` erases like a forget once the time passes; a pin keeps a memory."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from support.fixtures import init_store, run_cli
from support.internals import store_of
from veramem_desktop.core.errors import InvalidInputError, NotFoundError
from veramem_desktop.core.lifecycle import expiry

from veramem_desktop.keys import KeyManager
from veramem_desktop.pages import plaintext_of_store

LATER = timedelta(days=8)


def _plaintext(mem: Any) -> bytes:
    return plaintext_of_store(mem.store_path, KeyManager(mem.paths.keyinfo).load()).lower()


def test_an_expired_memory_leaves_no_byte_in_the_decrypted_pages(mem: Any) -> None:
    gone = mem.add("My gate code is qxzexpiregate this week.", session_id="a", expires_in="7d")
    keep = mem.add("I like green tea in the morning.", session_id="b")
    assert mem.search("qxzexpiregate gate code").results  # a trace holds the query too
    assert b"qxzexpiregate" in _plaintext(mem)

    report = mem.curation.expire(datetime.now(UTC) + LATER)

    assert report.memories == [gone.added[0]["id"]] and report.erased_episodes == 1
    assert b"qxzexpiregate" not in _plaintext(mem), (
        "the expired text survives in a decrypted page or WAL frame"
    )
    assert b"green tea" in _plaintext(mem)
    with pytest.raises(NotFoundError):
        mem.get(gone.added[0]["id"])
    assert mem.get(keep.added[0]["id"]).status == "active"
    tombs = [e for e in mem.reading.ledger_entries() if e.op == "forget"]
    assert {t.target_id for t in tombs} >= {gone.added[0]["id"], gone.episodes[0].id}
    assert all(t.details["reason"] == "expired" and t.actor["id"] == "expiry" for t in tombs)
    assert mem.verify().ok


def test_nothing_expires_before_its_time(mem: Any) -> None:
    added = mem.add("My gate code is 5521.", until=(datetime.now(UTC) + timedelta(days=3)).isoformat())
    assert mem.curation.expire(datetime.now(UTC) + timedelta(days=2)).memories == []
    assert mem.get(added.added[0]["id"]).metadata["expires_at"]
    assert mem.curation.expire(datetime.now(UTC) + timedelta(days=4)).memories == [added.added[0]["id"]]


def test_a_date_keeps_the_memory_through_that_whole_day() -> None:
    now = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    assert expiry.resolve("2026-03-06", None, now) == "2026-03-07T00:00:00.000000Z"
    assert expiry.resolve(None, "12h", now) == "2026-03-03T00:00:00.000000Z"
    for bad in [("2026-03-01", None), (None, "7 parsecs"), (None, "0d"), ("2026-03-06", "7d")]:
        with pytest.raises(InvalidInputError):
            expiry.resolve(*bad, now)


def test_an_episode_another_memory_cites_is_kept_when_a_memory_expires(mem: Any) -> None:
    first = mem.add("I live in Porto.", session_id="s")
    lasting = first.added[0]["id"]
    again = mem.add("I live in Porto. My wifi password is qxzwifitemp.", session_id="s", expires_in="1d")
    expiring = [a["id"] for a in again.added]
    assert expiring
    with store_of(mem).atomic() as conn:  # the same message is also evidence for the lasting memory
        conn.execute(
            "INSERT INTO evidence(memory_id, episode_id, quote, span_start, span_end, score, role, "
            "created_at) VALUES (?, ?, 'I live in Porto.', 0, 16, 1.0, 'user', '2026-01-01')",
            (lasting, again.episodes[0].id),
        )
    mem.curation.expire(datetime.now(UTC) + LATER)
    assert mem.reading.episode(again.episodes[0].id) is not None, (
        "an episode a surviving memory cites was erased"
    )
    assert mem.get(lasting).status == "active"
    for mid in expiring:
        with pytest.raises(NotFoundError):
            mem.get(mid)


def test_a_pinned_memory_does_not_expire_and_unpinning_lets_it(mem: Any) -> None:
    mid = mem.add("My gate code is 5521.", expires_in="1d").added[0]["id"]
    assert mem.curation.set_pinned(mid, True).pinned
    assert mem.curation.expire(datetime.now(UTC) + LATER).memories == []
    assert mem.get(mid).pinned and not mem.curation.set_pinned(mid, False).pinned
    assert mem.curation.expire(datetime.now(UTC) + LATER).memories == [mid]
    ops = [e.op for e in mem.reading.ledger_entries()]
    assert "memory.pin" in ops and "memory.unpin" in ops


def test_search_erases_what_has_expired_before_it_looks(mem: Any) -> None:
    mid = mem.add("My locker code is qxzlockerpast.", expires_in="1d").added[0]["id"]
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    with store_of(mem).atomic() as conn:  # as if the day had passed
        expiry.mark(
            conn, [mid], expiry.resolve(past, None, datetime.now(UTC) - timedelta(hours=1)) or "", device="d"
        )
    assert expiry.due(store_of(mem), datetime.now(UTC))
    result = mem.search("qxzlockerpast locker", route="dual", k=50)
    assert not [h for h in result.results if "qxzlockerpast" in h.text.lower()]
    with pytest.raises(NotFoundError):
        mem.get(mid)
    assert not expiry.due(store_of(mem), datetime.now(UTC))


def test_review_lists_what_expires_soon_soonest_first(mem: Any) -> None:
    late = mem.add("I am at the Lisbon office this month.", expires_in="20d").added[0]["id"]
    soon = mem.add("My parking spot is B12 today.", expires_in="12h").added[0]["id"]
    mid = mem.add("My sister Ana is visiting me this week.", expires_in="5d").added[0]["id"]
    listed = [e["id"] for e in mem.curation.expiring(timedelta(days=7))]
    assert listed == [soon, mid] and late not in listed


def test_pin_unpin_and_expiry_through_the_cli() -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    shown = run_cli("add", "My locker at the gym is 88.", "--for", "2d")
    assert shown.returncode == 0 and "Kept until" in shown.stdout
    out = run_cli("add", "My hotel room is 4312 until Friday.", "--for", "3d", "--json")
    assert out.returncode == 0, out.stderr
    mid = json.loads(out.stdout)["added"][0]["id"]
    review = run_cli("review")
    assert "Expiring within 7d" in review.stdout and mid in review.stdout
    listed = json.loads(run_cli("review", "--expiring", "--json").stdout)
    assert mid in [e["id"] for e in listed] and len(listed) == 2
    pinned = json.loads(run_cli("pin", mid, "--json").stdout)
    assert pinned["pinned"] is True and pinned["expires_at"]
    assert "pinned" in run_cli("history", mid).stdout
    assert json.loads(run_cli("unpin", mid, "--json").stdout)["pinned"] is False
    bad = run_cli("add", "Something.", "--until", "2001-01-01")
    assert bad.returncode != 0 and "not in the future" in bad.stderr and "Traceback" not in bad.stderr
    missing = run_cli("pin", "mem_nothing")
    assert missing.returncode != 0 and "Traceback" not in missing.stderr
    until = run_cli(
        "add",
        "I am in Berlin.",
        "--until",
        (datetime.now(UTC) + timedelta(days=2)).date().isoformat(),
        "--json",
    )
    assert until.returncode == 0, until.stderr


def test_expiry_through_the_sdk_sets_the_time_on_the_memory_and_its_episode(mem: Any) -> None:
    when = datetime.now(UTC) + timedelta(days=2)
    result = mem.add("I am in Berlin this week.", until=when)
    assert mem.get(result.added[0]["id"]).metadata["expires_at"] == result.episodes[0].metadata["expires_at"]
    assert store_of(mem).get_meta(expiry.META_NEXT) == result.episodes[0].metadata["expires_at"]


def test_a_message_nothing_was_derived_from_expires_too(mem: Any) -> None:
    said = mem.add("Okay qxzokaythanks.", expires_in="1h")
    assert not said.added
    report = mem.curation.expire(datetime.now(UTC) + timedelta(hours=2))
    assert report.episodes == [said.episodes[0].id]
    assert mem.reading.episode(said.episodes[0].id) is None
    assert b"qxzokaythanks" not in _plaintext(mem)
