"""Replication of ledger entries with their payloads: export, apply, scrub, and the state hash.

Every local ledger entry becomes one event (its ``seq`` is the ledger seq, so a
device's events are numbered without gaps). The payload carries the entry itself
(so every device can verify every other device's hash chain) and, for entries this
device originated, ``data``: the row as it is now (built at export time; nothing if
the row was forgotten meanwhile). Entries this device wrote while applying another
device's events travel as chain links only, without data.

Apply runs inside one store transaction per batch: verify the sender's chain, feed
each clock through ``receive``, insert or merge rows (same ids, idempotent), write
this device's own ledger entries for what changed (with the origin in the details),
record tombstones. Erasing what a tombstone names happens right after the
transaction through ``core.forget`` (see :func:`enforce_tombstones`); a tombstone
recorded but not yet enforced is enforced on the next run, so a crash in between
loses nothing and resurrects nothing. Tombstones name memories, episodes, grants
(a forgotten user's) and rejections (``rejection:<memory id>``: a forgotten user's
rejected values).

Rejected values are never shipped: they are HMACs under a per-store secret. A device
that receives a memory marked rejected records the rejection itself, from the row.

The engine's rows are read and written through its repositories (core/storage/: item_rows,
episode_rows, grants, derivations, index_rows, ledger_feed, rejection_rows, and landing for a batch); the
SQL here is on sync's own tables only (``sync_tombstones``, ``sync_chains``, ``sync_outbox``
with ``sync_outbox_targets``).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from veramem_desktop.core.errors import NotFoundError
from veramem_desktop.core.lifecycle import forget as forget_mod
from veramem_desktop.core.storage import (
    derivations,
    episode_rows,
    grants,
    index_rows,
    item_rows,
    ledger,
    ledger_feed,
    rejection_rows,
)
from veramem_desktop.core.storage.canonical import GENESIS_HASH, canonical_json, chain_hash
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.items import content_of_row, row_to_item
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.trust import admission
from veramem_desktop.core.vocabulary import Kind, Trust
from veramem_desktop.sync import heads, registry, rows
from veramem_desktop.sync.batch_rows import BatchRows
from veramem_desktop.sync.canonical_fast import canonical_plain
from veramem_desktop.sync.envelope import event_for_sealing
from veramem_desktop.sync.errors import RejectReason, SyncRejected
from veramem_desktop.sync.hlc import HLC, ClockError
from veramem_desktop.sync.keys import DevicePublic

ORIGIN = "origin"  # ledger details key naming the device an applied entry came from
MAX_BATCH_EVENTS = 500


class ChainProblem(SyncRejected):
    """A peer's ledger chain does not continue where it left off (forked or cut short)."""

    title = "Device chain broken"

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(RejectReason.MALFORMED, message)
        self.chain_reason = reason

    @property
    def reason_code(self) -> str:
        return self.chain_reason


@dataclass
class Applied:
    events: int = 0
    changed: int = 0
    tombstones: list[str] = field(default_factory=list)
    devices_changed: bool = False
    removed: list[str] = field(default_factory=list)


class Clock:
    """The device clock during one transaction: ticks for local stamps, receives remote ones."""

    def __init__(self, conn: Connection, device: str, now_ms: int) -> None:
        self.conn = conn
        self.value = registry.clock(conn, device)
        self.now_ms = now_ms

    def tick(self) -> str:
        self.value = self.value.tick(self.now_ms)
        return self.value.encode()

    def receive(self, remote: HLC) -> None:
        self.value = self.value.receive(remote, self.now_ms)

    def save(self) -> None:
        registry.set_clock(self.conn, self.value)


# --- export ------------------------------------------------------------------------------


@dataclass
class Exported:
    events: list[dict[str, Any]]
    targets: set[str]
    last_seq: int
    local_forgets: list[str]


def export_events(
    conn: Connection, me: str, now_ms: int, *, limit: int = MAX_BATCH_EVENTS
) -> Exported | None:
    """The next events of this device, after the export cursor (inside the caller's transaction)."""
    after = int(registry.get_meta(conn, registry.META_EXPORTED) or 0)
    entries = ledger_feed.entry_dicts_after(conn, after, limit)  # each as LedgerEntry.to_dict() gives it
    if not entries:
        return None
    clock = Clock(conn, me, now_ms)
    out = Exported([], set(), entries[-1]["seq"], [])
    for entry in entries:
        stamp = clock.tick()  # the clock of this event, encoded (making the payload may tick it further)
        payload: dict[str, Any] = {"entry": entry}
        op, target = entry["op"], entry["target"]
        if op == "forget":
            _note_forget(conn, target, entry["kind"], me, stamp, out)
            marks = admission.shared_marks(conn, target) if entry["kind"] == "episode" else []
            if marks:  # what another device needs to refuse the same episode (older devices ignore it)
                payload["marks"] = [list(m) for m in marks]
        elif ORIGIN not in entry["details"]:
            data = _payload(conn, entry, me, clock)
            if data is not None:
                payload["data"] = data
                out.targets |= _ids_in(data) | {target}
        out.events.append(event_for_sealing(me, entry["seq"], stamp, op, payload))  # checked by seal_batch
    clock.save()
    registry.set_meta(conn, registry.META_EXPORTED, str(out.last_seq))
    return out


def _note_forget(conn: Connection, target: str, kind: str, me: str, stamp: str, out: Exported) -> None:
    known = conn.execute("SELECT 1 FROM sync_tombstones WHERE target_id = ?", (target,)).fetchone()
    if known is None:  # forgotten here first (not applied from another device)
        conn.execute(
            "INSERT INTO sync_tombstones(target_id, kind, origin, hlc, created_at) VALUES (?,?,?,?,?)",
            (target, kind, me, stamp, now_iso()),
        )
        out.local_forgets.append(target)
    mark_dirty(conn, [target])
    rows.forget_state(conn, target)


def mark_dirty(conn: Connection, targets: Sequence[str]) -> None:
    """Flag this device's written batches that carry a payload of ``targets`` for rewriting."""
    for target in targets:
        conn.execute(
            "UPDATE sync_outbox SET dirty = 1 WHERE batch_seq IN "
            "(SELECT batch_seq FROM sync_outbox_targets WHERE target_id = ?)",
            (target,),
        )


def _payload(conn: Connection, entry: dict[str, Any], me: str, clock: Clock) -> dict[str, Any] | None:
    """The data of a ledger entry (as ``LedgerEntry.to_dict()`` gives it) this device originated."""
    op, target = entry["op"], entry["target"]
    if op.startswith("memory.") and entry["kind"] == "memory":
        return _memory_payload(conn, target, me, clock)
    if op == "episode.add":
        row = episode_rows.row(conn, target)
        return None if row is None else _episode_payload(conn, row)
    if op in ("grant.add", "grant.revoke"):
        grant = grants.row(conn, target)
        if grant is None:
            return None
        state = rows.capture(conn, target, grant, rows.GRANT_LWW, clock.tick)
        return {"grant": grant, "fields": state}
    if op == admission.KEY_OP:  # sealed like every payload; the receiving device keeps it
        key = admission.shared_key_payload(conn, target)
        return None if key is None else {"admission_key": key}
    if op in ("device.add", "device.remove"):
        found = [d for d in registry.devices(conn) if d.public.device_id == target]
        if not found:
            return None
        return {"device": found[0].public.to_json(), "upto": entry["details"].get("upto")}
    return None  # other entries travel as chain links only


def _memory_payload(conn: Connection, memory_id: str, me: str, clock: Clock) -> dict[str, Any] | None:
    row = item_rows.row(conn, memory_id)
    if row is None:
        return None
    evidence = item_rows.evidence_rows(conn, memory_id)
    episodes = []
    for episode_id in sorted({e["episode_id"] for e in evidence}):
        ep = episode_rows.row(conn, episode_id)
        if ep is not None:  # shipped along: the memory may arrive before the episode's own event
            episodes.append(_episode_payload(conn, ep))
    sources = derivations.sources_of(conn, memory_id)
    fields = rows.capture(conn, memory_id, row, rows.MEMORY_LWW, clock.tick)
    counters = rows.own_counters(conn, memory_id, me, row, clock.tick)
    return {
        "memory": row,
        "evidence": evidence,
        "episodes": episodes,
        "derived_from": sources,
        "vectors": _vectors_of(conn, memory_id),
        "fields": fields,
        "counters": {me: counters},
    }


def _episode_payload(conn: Connection, row: dict[str, Any]) -> dict[str, Any]:
    """An episode as it travels; ``override`` when a person let it in although it had been forgotten
    (``import --include-forgotten``), so the other devices' admission gates let it in too."""
    payload: dict[str, Any] = {"episode": row, "vectors": _vectors_of(conn, row["id"])}
    if admission.overridden(conn, row["id"]):
        payload["override"] = True
    return payload


def _vectors_of(conn: Connection, owner_id: str) -> list[list[str]]:
    """The owner's vectors as they travel: [vector kind, model, base64 of the blob]."""
    return [
        [kind, model, base64.b64encode(blob).decode("ascii")]
        for kind, model, blob in index_rows.vectors_of(conn, owner_id)
    ]


def _ids_in(data: dict[str, Any]) -> set[str]:
    found = {e["episode"]["id"] for e in data.get("episodes", [])}
    found |= {e["episode_id"] for e in data.get("evidence", [])}
    return found


# --- apply -------------------------------------------------------------------------------


def apply_events(
    conn: Connection,
    me: str,
    ledger_device: str,
    sender: str,
    events: Sequence[dict[str, Any]],
    now_ms: int,
    clocks: Sequence[HLC] = (),
) -> Applied:
    """Apply one opened batch of ``sender`` (inside the caller's transaction).

    What the events name is read up front in a few queries (sync/batch_rows.py); the events
    then apply in order, each with the same guards as ever. When the sender's chain breaks
    part-way, what applied before the break is written (and kept by the caller's commit).
    ``clocks`` are the events' clocks as opening the batch read them (``OpenedBatch.clocks``);
    without them each event's clock is read here."""
    clock = Clock(conn, me, now_ms)
    result = Applied()
    chain = conn.execute(
        "SELECT seq, hash, problem FROM sync_chains WHERE device_id = ?", (sender,)
    ).fetchone()
    head_seq, head_hash = (0, GENESIS_HASH) if chain is None else (int(chain[0]), str(chain[1]))
    batch = BatchRows(conn, events, device=ledger_device, me=me)
    try:
        for i, event in enumerate(events):
            entry = _check_entry(event, sender, head_seq, head_hash)
            head_seq, head_hash = entry.seq, entry.hash
            try:
                clock.receive(clocks[i] if clocks else HLC.parse(event["hlc"]))
            except ClockError as exc:
                raise SyncRejected(RejectReason.MALFORMED, exc.message) from None
            data = event["payload"].get("data")
            result.events += 1
            if entry.op == "forget":
                _apply_tombstone(batch, entry, sender, event["hlc"], result)
                if admission.receive_marks(conn, entry.target_id, event["payload"].get("marks")):
                    batch.marks_received()
            elif (
                isinstance(data, dict)
                and ORIGIN not in entry.details
                and _apply_data(batch, entry, data, sender, me, ledger_device, clock, result)
            ):
                result.changed += 1
    except ChainProblem:
        batch.finish()
        raise
    batch.finish()
    conn.execute(
        "INSERT INTO sync_chains(device_id, seq, hash, problem) VALUES (?,?,?,NULL) ON CONFLICT(device_id) "
        "DO UPDATE SET seq = excluded.seq, hash = excluded.hash, problem = NULL",
        (sender, head_seq, head_hash),
    )
    if events:  # a ledger head the sender signs later is judged against this (sync/heads.py)
        heads.note_applied(conn, sender, str(events[-1]["hlc"]))
    clock.save()
    return result


def _check_entry(event: dict[str, Any], sender: str, head_seq: int, head_hash: str) -> ledger.LedgerEntry:
    raw = event["payload"].get("entry")
    try:
        entry = ledger.LedgerEntry(
            seq=raw["seq"],
            ts=raw["ts"],
            device=raw["device"],
            op=raw["op"],
            target_kind=raw["kind"],
            target_id=raw["target"],
            commitment=raw["commit"],
            details=raw["details"],
            prev_hash=raw["prev_hash"],
            hash=raw["hash"],
        )
        valid = (
            isinstance(entry.details, dict)
            and entry.seq == event["seq"]
            and entry.op == event["op"]
            and isinstance(entry.target_id, str)
            and chain_hash(entry.prev_hash, entry.body(), canonical_plain) == entry.hash
        )
    except (KeyError, TypeError, ValueError):
        valid = False
    if not valid:
        raise SyncRejected(
            RejectReason.MALFORMED, f"An event of device {sender} carries a malformed ledger entry."
        )
    if entry.seq <= head_seq:
        raise ChainProblem(
            "chain_fork",
            f"Device {sender} sent ledger entry {entry.seq} again with other content "
            f"after entry {head_seq}: its ledger was forked or restored from an old backup.",
        )
    if entry.seq != head_seq + 1:
        raise ChainProblem(
            "chain_gap",
            f"Device {sender}'s ledger jumps from entry {head_seq} to {entry.seq}: "
            "entries are missing (its chain was cut short).",
        )
    if entry.prev_hash != head_hash:
        raise ChainProblem(
            "chain_fork",
            f"Device {sender}'s ledger entry {entry.seq} does not follow entry "
            f"{head_seq}: its chain was rewritten.",
        )
    return entry


def _tombstoned(conn: Connection, ids: Sequence[str | None]) -> set[str]:
    wanted = [i for i in ids if i]
    if not wanted:
        return set()
    marks = ",".join("?" * len(wanted))
    return {
        target_id
        for (target_id,) in conn.execute(
            f"SELECT target_id FROM sync_tombstones WHERE target_id IN ({marks})", wanted
        ).fetchall()
    }


def _apply_tombstone(
    batch: BatchRows, entry: ledger.LedgerEntry, sender: str, stamp: str, result: Applied
) -> None:
    batch.add_tombstone(entry.target_id, entry.target_kind, sender, stamp, batch.now)
    mark_dirty(batch.conn, [entry.target_id])
    batch.forget_state(entry.target_id)
    result.tombstones.append(entry.target_id)


def _record(
    batch: BatchRows, entry: ledger.LedgerEntry, sender: str, ledger_device: str, kind: str, content: Any
) -> None:
    first = entry.actor  # who acted on the sending device: kept, with the channel it came through here
    actor = {**first, "channel": "sync", "origin_channel": first.get("channel")} if first else None
    batch.record(
        op=entry.op,
        kind=kind,
        target=entry.target_id,
        content=content,
        device=ledger_device,
        details={ORIGIN: sender, "origin_seq": entry.seq, **({"actor": actor} if actor else {})},
    )


def _apply_data(
    batch: BatchRows,
    entry: ledger.LedgerEntry,
    data: dict[str, Any],
    sender: str,
    me: str,
    ledger_device: str,
    clock: Clock,
    result: Applied,
) -> bool:
    try:
        if "memory" in data:
            changed = _apply_memory(batch, data, me, clock, sender)
            _record_shipped_episodes(batch, entry, data, sender, ledger_device)
            if changed:
                row = batch.memory(data["memory"]["id"])
                assert row is not None
                _record(batch, entry, sender, ledger_device, "memory", content_of_row(row))
            return changed
        if "episode" in data:
            changed = _apply_episode(batch, data, clock.value.encode(), sender)
            if changed:
                _record(
                    batch,
                    entry,
                    sender,
                    ledger_device,
                    "episode",
                    {"sha256": data["episode"]["sha256"], "role": data["episode"]["role"]},
                )
            return changed
        if "grant" in data:
            changed = _apply_grant(batch, data, clock)
            if changed:
                g = data["grant"]
                _record(batch, entry, sender, ledger_device, "grant", [g["kind"], g["subject"], g["object"]])
            return changed
        if "device" in data:
            return _apply_device(batch, entry, data, sender, ledger_device, result)
        if "admission_key" in data:
            return admission.receive_shared_key(batch.conn, data["admission_key"])
    except (KeyError, TypeError, ValueError) as exc:
        raise SyncRejected(
            RejectReason.MALFORMED,
            f"Event {entry.seq} of device {sender} has a malformed payload ({type(exc).__name__}).",
        ) from None
    return False


def _record_shipped_episodes(
    batch: BatchRows, entry: ledger.LedgerEntry, data: dict[str, Any], sender: str, ledger_device: str
) -> None:
    """Give each episode that arrived along with a memory (before its own event) its ledger entry here,
    so ``verify`` can bind it to the chain like every other episode."""
    for ep in data.get("episodes", []):
        row = ep["episode"]
        here = batch.episode(row["id"])
        if here is None or batch.episode_in_ledger(row["id"]):
            continue
        batch.record(
            op="episode.add",
            kind="episode",
            target=row["id"],
            content={"sha256": here[0], "role": here[1]},
            device=ledger_device,
            details={ORIGIN: sender, "origin_seq": entry.seq, "with": entry.target_id},
        )


def _apply_episode(batch: BatchRows, data: dict[str, Any], stamp: str, sender: str) -> bool:
    row = data["episode"]
    if batch.tombstoned([row["id"]]) or (not data.get("override") and batch.refuse_if_forgotten(row, stamp)):
        return False  # forgotten (under this id, or as the same episode under another): never brought back
    inserted = batch.insert_episode(row, data.get("vectors", []))
    if inserted and data.get("override"):
        batch.note_override(row["id"], sender)
    return inserted


def _doomed(tombstoned: Callable[[Sequence[str | None]], set[str]], data: dict[str, Any]) -> bool:
    """True when a memory must not (re)appear: it, its lineage, its sources or all its evidence were forgotten."""
    row = data["memory"]
    if tombstoned([row["id"], row["root_id"], *data.get("derived_from", [])]):
        return True
    evidence = data.get("evidence", [])
    gone = tombstoned([e["episode_id"] for e in evidence])
    left = [e for e in evidence if e["episode_id"] not in gone]
    return bool(evidence) and (not left or (bool(gone) and row["kind"] in (Kind.SUMMARY, Kind.EXPERIENCE)))


def _apply_memory(batch: BatchRows, data: dict[str, Any], me: str, clock: Clock, sender: str = "") -> bool:
    row = dict(data["memory"])
    memory_id = row["id"]
    for ep in data.get("episodes", []):  # the admission gate first: a refused episode dooms what cites it
        if not ep.get("override"):
            batch.refuse_if_forgotten(ep["episode"], clock.value.encode())
    if _doomed(batch.tombstoned, data):
        return False
    for ep in data.get("episodes", []):
        if batch.tombstoned([ep["episode"]["id"]]):
            continue
        if batch.insert_episode(ep["episode"], ep.get("vectors", [])) and ep.get("override"):
            batch.note_override(ep["episode"]["id"], sender)
    gone = batch.tombstoned([e["episode_id"] for e in data.get("evidence", [])])
    evidence = [e for e in data.get("evidence", []) if e["episode_id"] not in gone]
    current = batch.memory(memory_id)
    inserted = current is None
    if current is None:
        if row["supersedes"] and batch.tombstoned([row["supersedes"]]):
            row["supersedes"] = None
        for name in rows.COUNTERS:  # the sum of shares is set below
            row[name] = 0
        current = batch.insert_memory(row, data.get("vectors", []))
        batch.adopt_state(memory_id, data.get("fields", {}), rows.MEMORY_LWW)
    added = batch.add_evidence(memory_id, evidence)
    batch.add_derivations(memory_id, list(data.get("derived_from", [])))
    changed = batch.merge_fields(
        "memory", memory_id, current, data.get("fields", {}), rows.MEMORY_LWW, clock.tick
    )
    counters_before = [current[c] for c in rows.COUNTERS]
    current = batch.memory(memory_id)
    assert current is not None
    batch.merge_counters(memory_id, me, current, data.get("counters", {}), clock.tick)
    after = batch.memory(memory_id)
    assert after is not None
    counters_changed = counters_before != [after[c] for c in rows.COUNTERS]
    _record_rejection(batch, row, after)
    return inserted or changed or counters_changed or added > 0


def _record_rejection(batch: BatchRows, remote: dict[str, Any], local: dict[str, Any]) -> None:
    """A memory rejected on any device is recorded as rejected here too (keys computed locally), even when a
    later change elsewhere won its trust field: a rejection is a person's word and is never undone."""
    if Trust.REJECTED not in (remote["trust"], local["trust"]):
        return
    if batch.tombstoned([forget_mod.rejection_target(local["id"])]):
        return  # the user who rejected it was forgotten
    batch.record_rejection(row_to_item(list(local.values())))


def _apply_grant(batch: BatchRows, data: dict[str, Any], clock: Clock) -> bool:
    grant = data["grant"]
    if batch.tombstoned([grant["id"]]):
        return False
    current = batch.grant(grant["id"])
    inserted = current is None
    if current is None:
        current = batch.insert_grant(grant)
        batch.adopt_state(grant["id"], data.get("fields", {}), rows.GRANT_LWW)
    changed = batch.merge_fields(
        "grant", grant["id"], current, data.get("fields", {}), rows.GRANT_LWW, clock.tick
    )
    return inserted or changed


def _apply_device(
    batch: BatchRows,
    entry: ledger.LedgerEntry,
    data: dict[str, Any],
    sender: str,
    ledger_device: str,
    result: Applied,
) -> bool:
    conn = batch.conn
    device = DevicePublic.from_json(data["device"])
    if device.device_id != entry.target_id:
        raise SyncRejected(RejectReason.MALFORMED, f"A device event of {sender} names two different devices.")
    if entry.op == "device.add":
        changed = registry.add_device(conn, device)
    else:
        upto = data.get("upto")
        if not isinstance(upto, int) or isinstance(upto, bool) or upto < 0:
            raise SyncRejected(RejectReason.MALFORMED, f"A device removal of {sender} has no last batch.")
        before = registry.removed_ids(conn).get(device.device_id, -1)
        registry.mark_removed(conn, device.device_id, upto, device)
        changed = registry.removed_ids(conn).get(device.device_id, -1) != before
        if changed:
            result.removed.append(device.device_id)
    if changed:
        result.devices_changed = True
        _record(batch, entry, sender, ledger_device, "device", device.to_json())
    return changed


def enforce_tombstones(store: Store, ledger_device: str) -> int:
    """Erase every row a tombstone names that is still here, through ``core.forget``; returns how many."""
    erased = 0
    for target, kind in store.query("SELECT target_id, kind FROM sync_tombstones ORDER BY created_at"):
        if kind in ("grant", "rejection"):
            erased += _enforce_row_tombstone(store, target, kind, ledger_device)
            continue
        exists = {"memory": item_rows.exists, "episode": episode_rows.exists}.get(kind)
        if exists is None or not exists(store, target):
            continue
        try:
            plan = forget_mod.plan(store, target)
        except NotFoundError:  # erased meanwhile by another process
            continue
        with store.atomic() as conn:
            # What the forget here will also erase is named as coming from the same tombstone,
            # so this device does not rotate the key for it; its entries still travel as tombstones.
            origin = conn.execute(
                "SELECT origin, hlc FROM sync_tombstones WHERE target_id = ?", (target,)
            ).fetchone()
            for other_kind, ids in (("memory", plan.memories), ("episode", plan.episodes)):
                for other in ids:
                    conn.execute(
                        "INSERT OR IGNORE INTO sync_tombstones(target_id, kind, origin, hlc, created_at) "
                        "VALUES (?,?,?,?,?)",
                        (other, other_kind, origin[0], origin[1], now_iso()),
                    )
        try:
            forget_mod.forget(store, target, device=ledger_device)
        except NotFoundError:
            continue
        erased += 1
    return erased


def _enforce_row_tombstone(store: Store, target: str, kind: str, ledger_device: str) -> int:
    """Erase the grant, or the rejected values of the memory, a tombstone names (1 if something went)."""
    prefix = forget_mod.REJECTION_PREFIX
    probe: Callable[[Connection, str], bool]
    if kind == "grant":
        probe, key = grants.exists, target
    elif target.startswith(prefix):
        probe, key = rejection_rows.has_values_of, target[len(prefix) :]
    else:
        return 0
    with store.read() as conn:
        if not probe(conn, key):  # the usual case: erased already; no write lock taken
            return 0
    with store.atomic() as conn:
        if not probe(conn, key):  # erased meanwhile by another process
            return 0
        if kind == "grant":
            forget_mod.erase_grant(conn, key, device=ledger_device)
        else:
            forget_mod.erase_rejections(conn, key, device=ledger_device)
    return 1


# --- scrub -------------------------------------------------------------------------------


def scrub(conn: Connection, events: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events without any payload of a forgotten row (the ledger entries stay: chains verify)."""
    out = []

    def tombstoned(ids: Sequence[str | None]) -> set[str]:
        return _tombstoned(conn, ids)

    for event in events:
        payload = dict(event["payload"])
        data = payload.get("data")
        if isinstance(data, dict):
            target = payload["entry"]["target"]
            if _tombstoned(conn, [target, *data.get("derived_from", [])]) or (
                "memory" in data and _doomed(tombstoned, data)
            ):
                payload.pop("data")
            else:
                gone = _tombstoned(conn, sorted(_ids_in(data)))
                if gone:
                    data = dict(data)
                    data["episodes"] = [e for e in data.get("episodes", []) if e["episode"]["id"] not in gone]
                    data["evidence"] = [e for e in data.get("evidence", []) if e["episode_id"] not in gone]
                    payload["data"] = data
        out.append({**event, "payload": payload})
    return out


# --- the state every device must agree on ------------------------------------------------


def canonical_state(store: Store) -> dict[str, Any]:
    """The replicated state as plain data (local-only tables like traces and indexes left out)."""

    def table(found: Sequence[Sequence[Any]]) -> list[list[Any]]:
        return [[round(v, 6) if isinstance(v, float) else v for v in r] for r in found]

    return {
        "episodes": table(episode_rows.all_rows(store)),
        "memories": table(item_rows.all_rows(store)),
        "evidence": table(item_rows.all_evidence(store)),
        "grants": table(grants.all_rows(store)),
        "derivations": table(derivations.all_pairs(store)),
        "tombstones": table(store.query("SELECT target_id FROM sync_tombstones ORDER BY target_id")),
    }


def state_hash(store: Store) -> str:
    return hashlib.sha256(canonical_json(canonical_state(store))).hexdigest()


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
