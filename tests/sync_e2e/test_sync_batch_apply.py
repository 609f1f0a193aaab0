"""A batch of events lands set-based (sync/batch_rows.py): what it names is read up front and written
table by table. These tests hold it to the event-by-event result and to its guards."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.fake_embedder import HashEmbedder
from sync_e2e_helpers import OTHER_USER, USER, Device, deliver, make_devices
from veramem_desktop.core.storage import ledger_verify
from veramem_desktop.core.storage.canonical import GENESIS_HASH, chain_hash
from veramem_desktop.core.storage.episodes import EpisodeInput, Scope
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.write.ingest import store_episodes
from veramem_desktop.sync import batchfile, registry, replica
from veramem_desktop.sync.envelope import make_event, open_batch, read_header, seal_batch
from veramem_desktop.sync.hlc import HLC
from veramem_desktop.sync.keys import DeviceIdentity
from veramem_desktop.sync.service import SyncService


def _twin(root: Path, name: str, identity: DeviceIdentity, trusted: Sequence[Device]) -> Device:
    """A second store with the same device identity as another (so both stamp the same clocks)."""
    folder = root / f"folder-{name}"
    folder.mkdir(parents=True)
    batchfile.init_folder(folder)
    store = Store.open(root / f"{name}.db", os.urandom(32), create=True)
    key = registry.current_key(trusted[0].store)
    with store.atomic() as conn:
        registry.save_identity(conn, identity, str(folder))
        registry.add_key(conn, key)
        for other in trusted:
            registry.add_device(conn, other.identity.public)
    return Device(name, identity, store, folder, SyncService(store, "dev_b"))


def _landed(device: Device) -> dict[str, Any]:
    """Everything an apply writes, without what differs between two stores by design
    (per-item secrets and what they commit, wall-clock times of local rows, rowids)."""
    q = device.store.query
    state = replica.canonical_state(device.store)
    state.update(
        {
            "sync_rows": q("SELECT row_id, state FROM sync_rows ORDER BY row_id"),
            "sync_counters": q("SELECT * FROM sync_counters ORDER BY memory_id, device_id"),
            "withheld": q(
                "SELECT owner_kind, owner_id, reason, memory_id FROM withheld ORDER BY owner_kind, owner_id"
            ),
            "rejected": q(
                "SELECT memory_id, scope, count(*) FROM rejected_values GROUP BY memory_id, scope "
                "ORDER BY memory_id, scope"
            ),
            "ledger": q("SELECT seq, device, op, target_kind, target_id, details FROM ledger ORDER BY seq"),
            "entities": q(
                "SELECT owner_kind, owner_id, entity FROM entities ORDER BY owner_kind, owner_id, entity"
            ),
            "embeddings": q(
                "SELECT owner_kind, owner_id, model, vector FROM embeddings ORDER BY owner_kind, owner_id"
            ),
            "fts": {
                word: q(
                    "SELECT r.owner_kind, r.owner_id FROM episode_fts f JOIN fts_rows r ON r.rowid = f.rowid "
                    "WHERE episode_fts MATCH ? UNION ALL SELECT r.owner_kind, r.owner_id FROM memory_fts f "
                    "JOIN fts_rows r ON r.rowid = f.rowid WHERE memory_fts MATCH ? ORDER BY 1, 2",
                    (word, word),
                )
                for word in ("lisbon", "bike", "dentist", "where", "token")
            },
            "sync_tombstones": q(
                "SELECT target_id, kind, origin, hlc FROM sync_tombstones ORDER BY target_id"
            ),
        }
    )
    return state


def _one_by_one(original: Any) -> Any:
    def apply(
        conn: Any,
        me: str,
        ledger_device: str,
        sender: str,
        events: Sequence[dict[str, Any]],
        now_ms: int,
        clocks: Sequence[HLC] = (),
    ) -> replica.Applied:
        del clocks  # the reference reads each event's clock itself, as a single event's apply does
        total = replica.Applied()
        for event in events:
            part = original(conn, me, ledger_device, sender, [event], now_ms)
            total.events += part.events
            total.changed += part.changed
            total.tombstones += part.tombstones
            total.removed += part.removed
            total.devices_changed |= part.devices_changed
        return total

    return apply


def _session_add(device: Device, texts: list[str], session: str) -> None:
    """Turns of one session through the ingest path (vectors from a fake embedder)."""
    store_episodes(
        device.store,
        HashEmbedder(),
        [EpisodeInput(content=t) for t in texts],
        Scope(user_id=USER, session_id=session),
        device=device.ledger_device,
    )


step = st.one_of(
    st.tuples(st.just("add"), st.integers(0, 1)),
    st.tuples(st.just("add_other"), st.integers(0, 1)),
    st.tuples(st.just("session"), st.integers(0, 1), st.integers(1, 4)),
    st.tuples(st.just("grant"), st.integers(0, 1)),
    st.tuples(st.just("update"), st.integers(0, 1), st.integers(0, 30)),
    st.tuples(st.just("feedback"), st.integers(0, 1), st.integers(0, 30), st.sampled_from([1.0, 0.5, -0.25])),
    st.tuples(st.just("retract"), st.integers(0, 1), st.integers(0, 30)),
    st.tuples(st.just("reject"), st.integers(0, 1), st.integers(0, 30)),
    st.tuples(st.just("forget"), st.integers(0, 1), st.integers(0, 30)),
    st.tuples(st.just("forget_user"), st.integers(0, 1)),
    st.tuples(
        st.just("exchange"),
    ),  # a and c run and see each other's files
)


#: the steps a device takes on its own: (device, the step's number, the step) -> None
_UNTARGETED: dict[str, Callable[[Device, int, tuple[Any, ...]], object]] = {
    "add": lambda d, n, _: d.add(f"fact {n}: the token{n:03d} bike is in Lisbon"),
    "add_other": lambda d, n, _: d.add(f"other user's fact {n}: the dentist token{n:03d}", user=OTHER_USER),
    "session": lambda d, n, action: _session_add(
        d, [f"where is token{n:03d}{i}? It is in Lisbon" for i in range(action[2])], f"s{n}"
    ),
    "grant": lambda d, n, _: d.grant(OTHER_USER, f"agent-{n}"),
    "forget_user": lambda d, n, _: d.forget_user(OTHER_USER),
}
#: the steps on one of the device's memories: (device, memory id, the step's number, the step) -> None
_TARGETED: dict[str, Callable[[Device, str, int, tuple[Any, ...]], object]] = {
    "update": lambda d, target, n, _: d.update(target, f"revised {n}: the token{n:03d} bike moved to Lisbon"),
    "feedback": lambda d, target, n, action: d.feedback(target, action[3]),
    "retract": lambda d, target, n, _: d.retract(target),
    "reject": lambda d, target, n, _: d.reject(target),
    "forget": lambda d, target, n, _: d.forget(target),
}


def _exchange(a: Device, c: Device) -> None:
    """a and c run and see each other's files."""
    for src, dst in ((a, c), (c, a)):
        src.service.run()
        deliver(src, dst)
        dst.service.run()


def _do(steps: list[tuple[Any, ...]], a: Device, c: Device) -> None:
    counter = 0
    for action in steps:
        if action[0] == "exchange":
            _exchange(a, c)
            continue
        d = (a, c)[action[1]]
        ids = d.memory_ids()
        target = ids[action[2] % len(ids)] if len(action) > 2 and ids else None
        counter += 1
        if action[0] in _UNTARGETED:
            _UNTARGETED[action[0]](d, counter, action)
        elif target is not None:  # a step on a memory when the device holds none is skipped
            _TARGETED[action[0]](d, target, counter, action)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, min_size=3, max_size=14))
def test_a_batch_lands_the_same_rows_as_its_events_applied_one_by_one(steps: list[tuple[Any, ...]]) -> None:
    """Two devices work and exchange (concurrent changes, counters from both, rejections, forgets);
    then two stores with one identity and one clock apply all their files: one batch at a time, and
    one event at a time (each event read fresh from the store). They end with the same rows."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        a, c, b = make_devices(root, ["a", "c", "b"])
        twin = _twin(root, "b2", b.identity, [a, c, b])
        try:
            _do(steps, a, c)
            a.service.run()
            c.service.run()
            now = int(time.time() * 1000) + 60_000
            for target in (b, twin):
                target.service.now_ms = lambda: now
                for src in (a, c):
                    deliver(src, target)
            b.service.run()
            mp = pytest.MonkeyPatch()
            mp.setattr(replica, "apply_events", _one_by_one(replica.apply_events))
            try:
                twin.service.run()
            finally:
                mp.undo()
            assert _landed(b) == _landed(twin)
            assert ledger_verify.verify(b.store).ok and ledger_verify.verify(twin.store).ok
        finally:
            for d in (a, c, b, twin):
                d.store.close()


def test_a_device_that_only_receives_ends_with_the_senders_rows(pair: list[Device]) -> None:
    """Rows changed after they were written (feedback counters, a retraction, a new version, a rejection)
    arrive in one batch together with their first write, and land as the sender has them."""
    a, b = pair
    first = a.add("My bike is in the blue shed.")
    second = a.add("My dentist is on Rua Augusta.")
    third = a.add("My sister lives in Faro.")
    assert a.feedback(first, 1.0) and a.feedback(first, -0.25) and a.feedback(second, 0.5)
    assert a.retract(second)
    assert a.update(first, "My bike is in the green shed now.")
    assert a.reject(third)
    _session_add(a, ["Where is the spare key?", "Under the third flowerpot."], "s1")
    a.service.run()
    deliver(a, b)
    assert b.service.run().applied_batches == 1
    assert replica.state_hash(b.store) == replica.state_hash(a.store)
    assert b.store.query("SELECT uses, successes, failures FROM memory_items WHERE id = ?", (first,)) == [
        (2, 1.0, 0.25)
    ]
    assert b.unrecorded_rejections() == []
    assert ledger_verify.verify(b.store).ok


def test_applying_a_batch_reads_each_table_a_few_times_not_once_per_event(pair: list[Device]) -> None:
    a, b = pair
    for i in range(60):
        a.add(f"Fact {i}: the spare key number {i} is under pot {i}.")
    a.service.run()
    deliver(a, b)
    statements: list[str] = []
    b.store.conn.set_trace_callback(lambda sql: statements.append(sql))
    try:
        report = b.service.run()
    finally:
        b.store.conn.set_trace_callback(None)
    assert report.applied_events == 120
    mine = [s for s in statements if not s.startswith("--")]  # not FTS5's own statements
    selects = [s for s in mine if s.lstrip().upper().startswith("SELECT")]
    # Before: ~22 statements per event, 12 of them reads (a memory row five times, a tombstone
    # lookup per id, the ledger head per entry). Now the reads are per batch, the writes per row.
    assert len(selects) < 60, sorted(selects)[:20]
    assert len(mine) / report.applied_events < 12
    assert ledger_verify.verify(b.store).ok


def _resealed(a: Device, events: list[dict[str, Any]], batch_seq: int) -> bytes:
    """``events`` as a's batch ``batch_seq``: the chain of their ledger entries recomputed, then signed."""
    prev, out = GENESIS_HASH, []
    for seq, event in enumerate(events, start=1):
        entry = dict(event["payload"]["entry"])
        entry.update(seq=seq, prev_hash=prev)
        body = {k: entry[k] for k in ("seq", "ts", "device", "op", "kind", "target", "commit", "details")}
        entry["hash"] = prev = chain_hash(prev, body)
        payload = {**event["payload"], "entry": entry}
        out.append(make_event(a.id, seq, HLC.parse(event["hlc"]), entry["op"], payload))
    return seal_batch(a.identity, registry.current_key(a.store), batch_seq, out)


def test_a_tombstone_earlier_in_a_batch_keeps_a_later_payload_of_that_row_out(pair: list[Device]) -> None:
    a, b = pair
    kept = a.add("My bike is in the blue shed.")
    gone = a.add("My dentist is on Rua Augusta.")
    a.service.run()
    (ref,) = batchfile.list_batches(a.folder, a.id)
    data = ref.path.read_bytes()
    header = read_header(data)
    events = list(
        open_batch(
            data, {header.epoch: registry.current_key(a.store)}, {a.id: a.identity.verify_key}, set(), {}
        ).events
    )
    payloads = [e for e in events if e["payload"]["entry"]["target"] == gone]
    forget_entry = {**payloads[0]["payload"]["entry"], "op": "forget", "details": {}}
    forget_event = {**payloads[0], "op": "forget", "payload": {"entry": forget_entry}}
    # The forget of ``gone`` comes first, then the episodes and memories with their payloads.
    target = batchfile.batch_path(b.folder, a.id, header.epoch, 1)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(_resealed(a, [forget_event, *events], 1))
    report = b.service.run()
    assert report.applied_events == len(events) + 1 and not report.refused
    assert b.memory_ids() == [kept]
    assert b.store.query_one("SELECT 1 FROM sync_tombstones WHERE target_id = ?", (gone,)) is not None
    assert ledger_verify.verify(b.store).ok


def test_synced_turns_of_a_session_are_found_by_the_words_of_the_turn_before(pair: list[Device]) -> None:
    """Each turn is indexed with the previous turn of its session; in one batch the previous turn is
    not written yet when the next one is indexed, and is found all the same."""
    a, b = pair
    _session_add(
        a,
        [
            "Where did Maria move last spring?",
            "She went to Porto, near the river.",
            "And her brother stayed in Faro.",
        ],
        "s1",
    )
    a.service.run()
    deliver(a, b)
    b.service.run()

    def matching(device: Device, word: str) -> list[str]:
        return [
            r[0]
            for r in device.store.query(
                "SELECT e.content FROM episode_fts f JOIN fts_rows r ON r.rowid = f.rowid JOIN episodes e "
                "ON e.id = r.owner_id WHERE episode_fts MATCH ? ORDER BY e.turn_index",
                (word,),
            )
        ]

    assert matching(b, "maria") == ["Where did Maria move last spring?", "She went to Porto, near the river."]
    assert (
        matching(b, "porto")
        == matching(a, "porto")
        == ["She went to Porto, near the river.", "And her brother stayed in Faro."]
    )
    assert ledger_verify.verify(b.store).ok
