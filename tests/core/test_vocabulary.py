"""The engine's vocabularies (core/vocabulary.py) are their strings: a member prints, encodes, hashes,
binds and commits exactly as the plain string does, every member round-trips through a real SQLCipher
store, and the stored vocabularies are exactly what the store's own CHECK constraints allow."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import sqlcipher3
from veramem_desktop.core.storage import items
from veramem_desktop.core.storage.canonical import canonical_json
from veramem_desktop.core.storage.items import MemoryItem, content_of
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.vocabulary import (
    Authority,
    ForgetReason,
    Kind,
    State,
    Status,
    Trust,
    Vocabulary,
    Withheld,
)

VOCABULARIES: list[type[Vocabulary]] = Vocabulary.__subclasses__()
MEMBERS = [m for vocabulary in VOCABULARIES for m in vocabulary]


def test_every_vocabulary_is_known_to_these_tests() -> None:
    """A vocabulary added later is covered by the tests below by construction; this pins the list."""
    assert set(VOCABULARIES) == {Status, Trust, Authority, Kind, State, Withheld, ForgetReason}


@pytest.mark.parametrize("member", MEMBERS, ids=lambda m: f"{type(m).__name__}.{m.name}")
def test_a_member_prints_encodes_and_hashes_as_its_string(member: Vocabulary) -> None:
    plain = member.value
    assert type(plain) is str and member == plain and hash(member) == hash(plain)
    # percent formatting as logging and older messages use it
    assert str(member) == f"{member}" == "%s" % member == format(member, "<20").strip() == plain  # noqa: UP031
    assert type(str(member)) is str
    # repr too: a member reaching a message through !r, %r or a dataclass's repr prints as the string did
    assert repr(member) == repr(plain) == f"{member!r}" == "%r" % (member,)  # noqa: UP031
    assert repr([member]) == repr([plain])
    assert json.dumps(member) == json.dumps(plain)
    assert json.dumps({member: [member]}, indent=1) == json.dumps({plain: [plain]}, indent=1)
    assert canonical_json({member: member}) == canonical_json({plain: plain})
    assert {plain: 1}[member] == 1 and member in {plain} and plain in {member}
    assert type(member)(plain) is member


def test_each_vocabulary_binds_through_an_adapter_as_plain_text() -> None:
    """The store registers an adapter per vocabulary, so the driver binds a member without probing it."""
    for vocabulary in VOCABULARIES:
        adapter = sqlcipher3.adapters.get((vocabulary, sqlcipher3.PrepareProtocol))
        assert adapter is not None
        assert all(type(adapter(m)) is str and adapter(m) == m.value for m in vocabulary)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(tmp_path / "vocabulary.db", os.urandom(32), create=True)
    yield opened
    opened.close()


def test_every_member_round_trips_through_the_store_as_its_text(store: Store) -> None:
    with store.atomic() as conn:
        conn.execute("CREATE TABLE words(vocabulary TEXT, value TEXT)")
        conn.executemany("INSERT INTO words VALUES (?, ?)", [(type(m).__name__, m) for m in MEMBERS])
        for m in MEMBERS:
            conn.execute("INSERT INTO words VALUES (:v, :value)", {"v": "named", "value": m})
    rows = store.query("SELECT vocabulary, value, typeof(value) FROM words ORDER BY rowid")
    assert [(v, value) for v, value, _ in rows] == [(type(m).__name__, m.value) for m in MEMBERS] + [
        ("named", m.value) for m in MEMBERS
    ]
    assert {t for _, _, t in rows} == {"text"}
    for m in MEMBERS:  # a member matches the stored text in a WHERE clause, and the text the member
        found = store.query(
            "SELECT value FROM words WHERE value = ? AND vocabulary = ?", (m, type(m).__name__)
        )
        assert found == [(m.value,)] and found[0][0] == m and type(found[0][0]) is str


def _check_values(store: Store, table: str, column: str) -> set[str]:
    """The values the store's own schema lets ``table.column`` hold (its CHECK (column IN (...)))."""
    sql = store.query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,))[0][0]
    found = re.search(rf"CHECK \({column} IN \(([^)]*)\)\)", sql)
    assert found is not None, f"{table}.{column} has no CHECK list"
    return set(re.findall(r"'([^']*)'", found.group(1)))


def test_the_stored_vocabularies_are_what_the_schema_allows(store: Store) -> None:
    assert _check_values(store, "memory_items", "status") == set(Status)
    assert _check_values(store, "memory_items", "trust") == set(Trust) - {Trust.RAW}
    assert _check_values(store, "memory_items", "authority") == set(Authority)
    assert _check_values(store, "memory_items", "kind") == set(Kind)


def test_a_memory_written_with_members_is_stored_and_committed_as_with_strings(store: Store) -> None:
    """Every stored kind, authority, trust and status through the real write and read of a memory: the row
    reads back as plain strings equal to the members, and the ledger commits to the same bytes."""
    combos = [
        (kind, authority, trust, status)
        for kind in Kind
        for authority in Authority
        for trust in (Trust.CANDIDATE, Trust.VERIFIED, Trust.REJECTED)
        for status in Status
    ]
    written = []
    with store.atomic() as conn:
        for kind, authority, trust, status in combos:
            item = MemoryItem(
                id="",
                kind=kind,
                text=f"a {kind}",
                authority=authority,
                user_id="u",
                trust=trust,
                status=status,
            )
            written.append(items.insert(conn, item, [], device="d"))
    with store.read() as conn:
        for before, (kind, authority, trust, status) in zip(written, combos, strict=True):
            back = items.row_to_item(
                conn.execute(
                    f"SELECT {items.ITEM_COLUMNS} FROM memory_items WHERE id = ?", (before.id,)
                ).fetchone()
            )
            assert (back.kind, back.authority, back.trust, back.status) == (kind, authority, trust, status)
            assert {type(v) for v in (back.kind, back.authority, back.trust, back.status)} == {str}
            plain = replace(
                before, kind=kind.value, authority=authority.value, trust=trust.value, status=status.value
            )
            assert canonical_json(content_of(before)) == canonical_json(content_of(plain))
            assert canonical_json(content_of(back)) == canonical_json(content_of(plain))


def test_states_and_held_reasons_read_back_as_the_members(store: Store) -> None:
    """The unstored vocabularies bind and come back as their text on the real store too."""
    for m in [*State, *Withheld, *ForgetReason]:
        assert store.query("SELECT ?, typeof(?)", (m, m)) == [(m.value, "text")]
