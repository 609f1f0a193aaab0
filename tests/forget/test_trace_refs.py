"""``trace_refs``: the ids each trace names, indexed, so forget finds a trace without reading them all."""

from __future__ import annotations

import json
import re

from support.internals import store_of
from veramem_desktop.core.lifecycle import forget as forget_mod
from veramem_desktop.core.storage.schema import latest_version
from veramem_desktop.core.storage.store import Store

from veramem_desktop.memory import Memory

#: what an id looks like (core/storage/ids.py: a short prefix, "_", then Crockford base32)
ID = re.compile(r"^[a-z]+_[0-9A-Z]{26}$")


def _named(store: Store) -> set[tuple[str, str]]:
    """(ref_id, trace_id) for every id a trace names, read from the trace rows themselves."""
    pairs = set()
    for tid, returned, cited in store.query("SELECT id, returned_ids, cited_ids FROM traces"):
        pairs |= {(ref, tid) for ref in [*json.loads(returned), *json.loads(cited)]}
    return pairs


def _refs(store: Store) -> set[tuple[str, str]]:
    return {(r[0], r[1]) for r in store.query("SELECT ref_id, trace_id FROM trace_refs")}


def _insert_trace(store: Store, tid: str, returned: list[str], kind: str = "write") -> None:
    with store.atomic() as conn:
        conn.execute(
            "INSERT INTO traces(id, kind, created_at, user_id, query, route, returned_ids) "
            "VALUES (?, ?, '2026-01-01T00:00:00Z', 'me', 'q', 'write', ?)",
            (tid, kind, json.dumps(returned)),
        )


def test_every_trace_writer_leaves_exactly_the_ids_it_names_in_trace_refs(mem: Memory) -> None:
    mem.add("I live in Lisbon. My sister is called Marta.", session_id="s")  # write decisions
    mem.add("I moved to Porto.", session_id="s")
    found = mem.search("where do I live")  # a search trace
    answer = mem.answer("Where do I live?")  # an answer trace, with cited ids
    mem.feedback(found.trace_id, 1.0, cited_ids=[found.results[0].id])  # feedback rewrites cited_ids
    kinds = {r[0] for r in store_of(mem).query("SELECT DISTINCT kind FROM traces")}
    assert {"write", "answer"} <= kinds and len(kinds) >= 3
    assert answer.trace_id in {t for _, t in _refs(store_of(mem))}
    assert _refs(store_of(mem)) == _named(store_of(mem)) and _refs(store_of(mem))


def test_trace_refs_hold_only_ids_never_text(mem: Memory) -> None:
    mem.add("My locker code is qxzrefslocker and my dog is called Bolinha.", session_id="s")
    mem.search("qxzrefslocker locker code")
    mem.answer("What is my locker code?")
    columns = [r[1] for r in store_of(mem).query("PRAGMA table_info(trace_refs)")]
    assert columns == ["ref_id", "trace_id"]
    rows = store_of(mem).query("SELECT ref_id, trace_id FROM trace_refs")
    assert rows
    for ref_id, trace_id in rows:
        assert ID.match(ref_id) and ID.match(trace_id), (ref_id, trace_id)
        assert "qxz" not in (ref_id + trace_id).lower()


def test_refs_go_with_their_trace_and_follow_a_change_of_its_ids(mem: Memory) -> None:
    _insert_trace(store_of(mem), "wd_A", ["mem_1", "ep_1"])
    _insert_trace(store_of(mem), "wd_B", ["mem_1"])
    with store_of(mem).atomic() as conn:
        conn.execute("UPDATE traces SET cited_ids = ? WHERE id = 'wd_B'", (json.dumps(["mem_2"]),))
        conn.execute("UPDATE traces SET returned_ids = '[]' WHERE id = 'wd_A'")
    assert _refs(store_of(mem)) == {("mem_1", "wd_B"), ("mem_2", "wd_B")}
    with store_of(mem).atomic() as conn:
        conn.execute("DELETE FROM traces WHERE id = 'wd_B'")
    assert _refs(store_of(mem)) == set()


def test_forget_erases_every_trace_naming_the_item_among_many_that_do_not(mem: Memory) -> None:
    item = mem.add("My bike lock combination is 4-4-1-9.", session_id="s")
    mid, eid = item.added[0]["id"], item.episodes[0].id
    trace = mem.search("bike lock combination").trace_id
    # write records of other memories, and two that name the item only in the middle of their list
    with store_of(mem).atomic() as conn:
        conn.executemany(
            "INSERT INTO traces(id, kind, created_at, query, route, returned_ids) "
            "VALUES (?, 'write', '2026-01-01T00:00:00Z', 'x', 'write', ?)",
            [(f"wd_other{i}", json.dumps([f"mem_o{i}", f"ep_o{i}"])) for i in range(2000)]
            + [
                ("wd_names_mem", json.dumps(["mem_a", mid, "mem_b"])),
                ("wd_names_ep", json.dumps(["ep_a", eid])),
            ],
        )
    plan = mem.forget_preview(mid)
    report = mem.forget(mid)
    left = {r[0] for r in store_of(mem).query("SELECT id FROM traces")}
    assert not {trace, "wd_names_mem", "wd_names_ep"} & left
    assert sum(1 for t in left if t.startswith("wd_other")) == 2000
    assert report.erased_traces == plan.traces >= 3
    assert not [r for r in _refs(store_of(mem)) if r[0] in (mid, eid)]
    assert _refs(store_of(mem)) == _named(store_of(mem))


def test_forget_looks_traces_up_by_the_index_not_by_reading_them() -> None:
    import sqlcipher3
    from veramem_desktop.core.storage.schema import MIGRATIONS
    from veramem_desktop.core.storage.store import _split_sql

    conn = sqlcipher3.connect(":memory:")
    for migration in MIGRATIONS:
        for statement in _split_sql(migration.sql):
            conn.execute(statement)
    sql = "SELECT DISTINCT trace_id FROM trace_refs WHERE ref_id IN (SELECT value FROM json_each(?))"
    plan = " | ".join(r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, ("[]",)))
    assert "SEARCH trace_refs USING PRIMARY KEY (ref_id=?)" in plan and "traces " not in plan + " "
    # a user forget and feedback's baseline (core/lifecycle/outcome.py) read a user's traces through an index too
    for by_user in (
        "SELECT id FROM traces WHERE user_id = ?",
        "SELECT count(*), avg(reward) FROM traces WHERE user_id IS ? AND reward IS NOT NULL AND id != ?",
    ):
        plan = " | ".join(
            r[3] for r in conn.execute("EXPLAIN QUERY PLAN " + by_user, ("u",) * by_user.count("?"))
        )
        assert plan.startswith("SEARCH traces USING INDEX traces_user (user_id=?"), plan
    conn.execute(
        "INSERT INTO traces(id, kind, created_at, query, route, returned_ids) "
        "VALUES ('t', 'write', 'now', 'q', 'write', '[\"mem_x\"]')"
    )
    assert forget_mod._traces_touching(conn, ["mem_x", "mem_y"]) == {"t"}


def test_the_migration_fills_trace_refs_from_traces_stored_before_it(mem: Memory) -> None:
    mem.add("I live in Lisbon.", session_id="s")
    mem.search("where do I live")
    # a store as it was before migration 5, with a trace whose list is not JSON
    with store_of(mem).atomic() as conn:
        for name in ("trace_refs_on_insert", "trace_refs_on_update", "trace_refs_on_delete"):
            conn.execute(f"DROP TRIGGER {name}")
        conn.execute("DROP TABLE trace_refs")
        conn.execute("DROP INDEX traces_user")
        conn.execute("DELETE FROM schema_migrations WHERE version = 5")
        # and before the migrations after it (6: forget marks, admission keys, pending derivations)
        for table in ("forget_marks", "admission_keys", "pending_derivations"):
            conn.execute(f"DROP TABLE {table}")
        conn.execute("DELETE FROM schema_migrations WHERE version > 5")
        conn.execute(
            "INSERT INTO traces(id, kind, created_at, query, route, returned_ids) "
            "VALUES ('tr_broken', 'search', 'now', 'q', 'dense', 'not json')"
        )
    expected = _named_valid(store_of(mem))
    assert store_of(mem).migrate() == latest_version() - 4
    assert _refs(store_of(mem)) == expected and expected
    assert store_of(mem).migrate() == 0


def _named_valid(store: Store) -> set[tuple[str, str]]:
    pairs = set()
    for tid, returned, cited in store.query(
        "SELECT id, returned_ids, cited_ids FROM traces WHERE id != 'tr_broken'"
    ):
        pairs |= {(ref, tid) for ref in [*json.loads(returned), *json.loads(cited)]}
    return pairs
