"""The encrypted store, the ledger and episodes, tried the way an attacker or a crash would."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.internals import store_of
from veramem_desktop.core.errors import InvalidInputError, NotAStoreError, WrongKeyError
from veramem_desktop.core.storage import episodes, ledger, ledger_verify
from veramem_desktop.core.storage.episodes import EpisodeInput, Scope
from veramem_desktop.core.storage.store import Store

from veramem_desktop.memory import Memory


def _all_bytes(folder: Path) -> list[tuple[Path, bytes]]:
    return [(p, p.read_bytes()) for p in folder.rglob("*") if p.is_file()]


def test_marker_is_in_no_byte_of_any_file_yet_reads_back(mem: Memory, isolated_home: Path) -> None:
    marker = "ZEBRA-MARKER-7f3a9c"
    result = mem.add(f"My locker code is {marker}, please remember it.", session_id="s1")
    # Keep the connection open so the WAL and shared-memory files exist while we look.
    files = _all_bytes(isolated_home)
    names = {p.name for p, _ in files}
    assert "veramem.db" in names and "veramem.db-wal" in names
    for variant in (marker.encode(), marker.encode("utf-16-le"), marker.lower().encode()):
        for path, data in files:
            assert variant not in data, f"plaintext marker found in {path}"
    assert marker in mem.reading.episode(result.episodes[0].id).content


def test_wrong_passphrase_is_refused_and_the_store_is_untouched(mem: Memory, isolated_home: Path) -> None:
    mem.add("something to keep")
    mem.close()
    before = hashlib.sha256(mem.store_path.read_bytes()).hexdigest()
    other = Memory(isolated_home, passphrase="not the passphrase")
    with pytest.raises(WrongKeyError, match="Wrong passphrase"):
        _ = store_of(other)
    assert hashlib.sha256(mem.store_path.read_bytes()).hexdigest() == before


def test_a_file_that_is_not_a_store_is_named_as_such(mem: Memory, isolated_home: Path) -> None:
    path = mem.store_path
    mem.close()
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(NotAStoreError, match="not a VeraMem store"):
        _ = store_of(Memory(isolated_home))


def test_raw_open_with_a_wrong_key_fails_at_once(mem: Memory) -> None:
    mem.close()
    with pytest.raises(WrongKeyError):
        Store.open(mem.store_path, b"\x01" * 32)


def _ledger_with_entries(mem: Memory, n: int = 6) -> Store:
    mem.add([f"message number {i}" for i in range(n)], session_id="t")
    report = mem.verify()
    assert report.ok and report.checked >= n
    return store_of(mem)


def test_verify_catches_a_payload_edited_in_place(mem: Memory) -> None:
    store = _ledger_with_entries(mem)
    with store.atomic() as conn:
        conn.execute('UPDATE ledger SET details = \'{"session":"forged"}\' WHERE seq = 3')
    report = mem.verify()
    assert not report.ok and report.first_bad_seq == 3 and "altered" in (report.problem or "")


def test_verify_catches_a_middle_entry_deleted(mem: Memory) -> None:
    store = _ledger_with_entries(mem)
    with store.atomic() as conn:
        conn.execute("DELETE FROM ledger WHERE seq = 4")
    report = mem.verify()
    assert not report.ok and report.first_bad_seq == 5 and "missing" in (report.problem or "")


def test_verify_catches_two_entries_swapped(mem: Memory) -> None:
    store = _ledger_with_entries(mem)
    with store.atomic() as conn:
        rows = {
            r[0]: r for r in conn.execute("SELECT seq, target_id, commitment FROM ledger WHERE seq IN (2, 3)")
        }
        conn.execute(
            "UPDATE ledger SET target_id = ?, commitment = ? WHERE seq = 2", (rows[3][1], rows[3][2])
        )
        conn.execute(
            "UPDATE ledger SET target_id = ?, commitment = ? WHERE seq = 3", (rows[2][1], rows[2][2])
        )
    report = mem.verify()
    assert not report.ok and report.first_bad_seq == 2


def test_verify_catches_entries_cut_off_the_end(mem: Memory) -> None:
    store = _ledger_with_entries(mem)
    with store.atomic() as conn:
        conn.execute("DELETE FROM ledger WHERE seq = (SELECT max(seq) FROM ledger)")
    assert not mem.verify().ok


def test_an_episode_cannot_be_altered(mem: Memory) -> None:
    ep = mem.add("the original words").episodes[0]
    with pytest.raises(Exception, match="immutable"), store_of(mem).atomic() as conn:
        conn.execute("UPDATE episodes SET content = 'rewritten' WHERE id = ?", (ep.id,))
    assert mem.reading.episode(ep.id).content == "the original words"
    assert mem.reading.episode(ep.id).sha256 == hashlib.sha256(b"the original words").hexdigest()


def test_ledger_entries_hold_no_content(mem: Memory) -> None:
    mem.add("my secret is PINEAPPLE42")
    for entry in mem.reading.ledger_entries():
        assert "PINEAPPLE42" not in str(entry.to_dict())


def test_migrations_are_idempotent(mem: Memory) -> None:
    store = store_of(mem)
    version = store.schema_version()
    assert store.migrate() == 0
    assert store.schema_version() == version


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ([], "Nothing to add"),
        ([EpisodeInput("   ")], "empty"),
        ([EpisodeInput("hi", role="wizard")], "role"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(inputs: list[EpisodeInput], message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        episodes.validate(inputs)


def test_odd_text_round_trips(mem: Memory) -> None:
    odd = ["nul\x00inside", "emoji 🧠 and RTL \u202e text", "lone \udcff surrogate", "x" * 2_000_000]
    result = mem.add(odd)
    back = [mem.reading.episode(e.id).content for e in result.episodes]
    assert back[0] == "nul\x00inside"
    assert back[1] == odd[1]
    assert back[2] == "lone \ufffd surrogate"
    assert any("not valid Unicode" in n for n in result.notices)
    assert len(back[3]) == 2_000_000


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(min_size=1, max_size=300).filter(
        lambda t: t.strip() and not any(0xD800 <= ord(c) <= 0xDFFF for c in t)
    )
)
def test_any_text_round_trips_exactly_with_its_hash(mem: Memory, text: str) -> None:
    with store_of(mem).atomic() as conn:
        ep = episodes.insert(conn, [EpisodeInput(text)], Scope(user_id="u"), device="d")[0]
    back = mem.reading.episode(ep.id)
    assert back.content == text
    assert back.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert ledger_verify.verify(store_of(mem)).ok


# ----------------------------------------------------------- state bound to the ledger (issue 16)
def _memory_id(mem: Memory) -> str:
    added = mem.add("I live in Porto.").added
    assert added
    return str(added[0]["id"])


def test_editing_memory_text_with_the_key_makes_verify_exit_7_naming_the_row(isolated_home: Path) -> None:
    from support.fixtures import run_cli

    assert run_cli("init").returncode == 0
    assert run_cli("add", "I live in Porto.").returncode == 0
    assert run_cli("add", "My dentist is Dr Lee.").returncode == 0
    mem = Memory(isolated_home)
    [target] = [m.id for m in mem.memories() if "Porto" in m.text]
    with store_of(mem).atomic() as conn:  # someone holding the key edits the row, not the ledger
        conn.execute("UPDATE memory_items SET text = 'User lives in Lisbon.' WHERE id = ?", (target,))
    mem.close()
    result = run_cli("verify")
    assert result.returncode == 7, (result.stdout, result.stderr)
    assert target in result.stdout and "changed outside VeraMem" in result.stdout
    data = run_cli("verify", "--json")
    report = json.loads(data.stdout)
    assert data.returncode == 7 and report["bad_row"] == target and not report["ok"]


@pytest.mark.parametrize(
    ("column", "value"),
    [("status", "archived"), ("trust", "verified"), ("authority", "attested"), ("value", "Lisbon")],
)
def test_editing_a_memory_field_the_ledger_commits_to_is_named(mem: Memory, column: str, value: str) -> None:
    target = _memory_id(mem)
    assert mem.verify().ok and mem.verify().rows_checked >= 2
    with store_of(mem).atomic() as conn:
        conn.execute(f"UPDATE memory_items SET {column} = ? WHERE id = ?", (value, target))
    report = mem.verify()
    last = [e.seq for e in mem.reading.ledger_entries(target_id=target) if e.target_id == target][-1]
    assert not report.ok and report.bad_row == target and report.first_bad_seq == last


def test_counters_and_strength_are_not_content_and_do_not_break_verify(mem: Memory) -> None:
    target = _memory_id(mem)
    with store_of(mem).atomic() as conn:  # what sync merges without a content change
        conn.execute("UPDATE memory_items SET uses = 3, retrieval_strength = 0.2 WHERE id = ?", (target,))
    assert mem.verify().ok


def test_a_memory_row_with_no_ledger_entry_is_named(mem: Memory) -> None:
    target = _memory_id(mem)
    with store_of(mem).atomic() as conn:
        conn.execute("DELETE FROM ledger WHERE target_id = ?", (target,))
        conn.execute("DELETE FROM meta WHERE key = 'ledger_head'")
        # the chain itself is rebuilt consistently, as a key holder could
        prev = "0" * 64
        for row in conn.execute("SELECT seq FROM ledger ORDER BY seq").fetchall():
            conn.execute("UPDATE ledger SET seq = -seq WHERE seq = ?", row)
        for new_seq, (old,) in enumerate(
            conn.execute("SELECT seq FROM ledger ORDER BY seq DESC").fetchall(), 1
        ):
            conn.execute("UPDATE ledger SET seq = ? WHERE seq = ?", (new_seq, old))
        for entry in [
            ledger.row_to_entry(r)
            for r in conn.execute(
                "SELECT seq, ts, device, op, target_kind, target_id, commitment, details, prev_hash, hash "
                "FROM ledger ORDER BY seq"
            ).fetchall()
        ]:
            body = {**entry.body(), "seq": entry.seq}
            digest = ledger.chain_hash(prev, body)
            conn.execute("UPDATE ledger SET prev_hash = ?, hash = ? WHERE seq = ?", (prev, digest, entry.seq))
            prev = digest
    report = mem.verify()
    assert (
        report.checked > 0
        and not report.ok
        and report.bad_row == target
        and "no ledger entry" in report.problem
    )


def test_editing_an_episode_with_the_key_is_named(mem: Memory) -> None:
    ep = mem.add("the original words").episodes[0]
    with store_of(mem).atomic() as conn:  # the immutability trigger is no lock against the key holder
        conn.execute("DROP TRIGGER episodes_are_immutable")
        conn.execute("UPDATE episodes SET content = 'rewritten words' WHERE id = ?", (ep.id,))
    report = mem.verify()
    assert not report.ok and report.bad_row == ep.id and "sha256" in (report.problem or "")
    with store_of(mem).atomic() as conn:  # the hash recomputed too: the ledger's commitment still differs
        conn.execute(
            "UPDATE episodes SET sha256 = ? WHERE id = ?",
            (hashlib.sha256(b"rewritten words").hexdigest(), ep.id),
        )
    report = mem.verify()
    assert not report.ok and report.bad_row == ep.id and "ledger entry" in (report.problem or "")


def test_every_write_path_leaves_a_store_whose_rows_match_their_ledger(mem: Memory) -> None:
    mem.add(["I live in Porto.", "My dentist is Dr Lee.", "I like green tea."], session_id="s1")
    mem.add("Actually I moved to Lisbon.", session_id="s1")
    first = mem.memories()[0]
    mem.review.approve(first.id)
    mem.curation.mark_shareable(first.id)
    trace = mem.search("where do I live").trace_id
    mem.feedback(trace, -1.0)
    mem.consolidate()
    mem.forget(mem.memories()[-1].id)
    report = mem.verify()
    assert report.ok, report.problem
    assert report.rows_checked == (
        len(store_of(mem).query("SELECT id FROM memory_items"))
        + len(store_of(mem).query("SELECT id FROM episodes"))
    )
