"""The encrypted store, the ledger and episodes, tried the way an attacker or a crash would."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from veramem_desktop.core import episodes, ledger
from veramem_desktop.core.episodes import EpisodeInput, Scope
from veramem_desktop.core.errors import InvalidInputError, NotAStoreError, WrongKeyError
from veramem_desktop.core.store import Store

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
    assert marker in mem.episode(result.episodes[0].id).content


def test_wrong_passphrase_is_refused_and_the_store_is_untouched(mem: Memory, isolated_home: Path) -> None:
    mem.add("something to keep")
    mem.close()
    before = hashlib.sha256(mem.store_path.read_bytes()).hexdigest()
    other = Memory(isolated_home, passphrase="not the passphrase")
    with pytest.raises(WrongKeyError, match="Wrong passphrase"):
        _ = other.store
    assert hashlib.sha256(mem.store_path.read_bytes()).hexdigest() == before


def test_a_file_that_is_not_a_store_is_named_as_such(mem: Memory, isolated_home: Path) -> None:
    path = mem.store_path
    mem.close()
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(NotAStoreError, match="not a VeraMem store"):
        _ = Memory(isolated_home).store


def test_raw_open_with_a_wrong_key_fails_at_once(mem: Memory) -> None:
    mem.close()
    with pytest.raises(WrongKeyError):
        Store.open(mem.store_path, b"\x01" * 32)


def _ledger_with_entries(mem: Memory, n: int = 6) -> Store:
    mem.add([f"message number {i}" for i in range(n)], session_id="t")
    report = mem.verify()
    assert report.ok and report.checked >= n
    return mem.store


def test_verify_catches_a_payload_edited_in_place(mem: Memory) -> None:
    store = _ledger_with_entries(mem)
    with store.atomic() as conn:
        conn.execute("UPDATE ledger SET details = '{\"session\":\"forged\"}' WHERE seq = 3")
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
        rows = {r[0]: r for r in conn.execute("SELECT seq, target_id, commitment FROM ledger WHERE seq IN (2, 3)")}
        conn.execute("UPDATE ledger SET target_id = ?, commitment = ? WHERE seq = 2", (rows[3][1], rows[3][2]))
        conn.execute("UPDATE ledger SET target_id = ?, commitment = ? WHERE seq = 3", (rows[2][1], rows[2][2]))
    report = mem.verify()
    assert not report.ok and report.first_bad_seq == 2


def test_verify_catches_entries_cut_off_the_end(mem: Memory) -> None:
    store = _ledger_with_entries(mem)
    with store.atomic() as conn:
        conn.execute("DELETE FROM ledger WHERE seq = (SELECT max(seq) FROM ledger)")
    assert not mem.verify().ok


def test_an_episode_cannot_be_altered(mem: Memory) -> None:
    ep = mem.add("the original words").episodes[0]
    with pytest.raises(Exception, match="immutable"), mem.store.atomic() as conn:
        conn.execute("UPDATE episodes SET content = 'rewritten' WHERE id = ?", (ep.id,))
    assert mem.episode(ep.id).content == "the original words"
    assert mem.episode(ep.id).sha256 == hashlib.sha256(b"the original words").hexdigest()


def test_ledger_entries_hold_no_content(mem: Memory) -> None:
    mem.add("my secret is PINEAPPLE42")
    for entry in mem.ledger_entries():
        assert "PINEAPPLE42" not in str(entry.to_dict())


def test_migrations_are_idempotent(mem: Memory) -> None:
    store = mem.store
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
    back = [mem.episode(e.id).content for e in result.episodes]
    assert back[0] == "nul\x00inside"
    assert back[1] == odd[1]
    assert back[2] == "lone \ufffd surrogate"
    assert any("not valid Unicode" in n for n in result.notices)
    assert len(back[3]) == 2_000_000


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(min_size=1, max_size=300).filter(lambda t: t.strip() and not any(0xD800 <= ord(c) <= 0xDFFF for c in t)))
def test_any_text_round_trips_exactly_with_its_hash(mem: Memory, text: str) -> None:
    with mem.store.atomic() as conn:
        ep = episodes.insert(conn, [EpisodeInput(text)], Scope(user_id="u"), device="d")[0]
    back = mem.episode(ep.id)
    assert back.content == text
    assert back.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert ledger.verify(mem.store).ok
