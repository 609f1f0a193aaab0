"""Sync orchestration: init, join, approve, devices, remove, run, daemon, status.

One exchange (:meth:`SyncService.run`):

1. finish approvals whose confirmation arrived, pick up key grants addressed here;
2. write batches of local ledger entries not yet exported (each batch number is
   reserved in the store, with the sealed bytes, before its file is written, so a
   restart after a crash writes the same file again);
3. read the other devices' batches in order (skipping those already applied),
   apply each in one transaction together with its cursor, then erase what
   arrived tombstones name; read the other devices' signed ledger heads and report a
   ledger (theirs or this one) that was rolled back or rewritten (sync/heads.py);
4. export again (what applying produced), rotate the key if this device forgot
   something or removed a device, rewrite its own files that carry forgotten
   payloads or an old key, erase keys no file uses any more, and publish this
   device's signed ledger head.

Refused files are recorded with their reason for ``status``; files that are normal
while a file-sync engine is still copying (partial, out of order, key or device not
known yet) are listed as waiting and retried on every run.

The SQL here is on sync's own tables only (``sync_outbox``, ``sync_outbox_targets``,
``sync_refusals``, ``sync_chains``); the engine's tables are reached through core.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from veramem_desktop.core.errors import InvalidInputError, NotFoundError, SyncError
from veramem_desktop.core.storage import ledger, ledger_feed
from veramem_desktop.core.storage.actor import Actor
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.store import Store
from veramem_desktop.sync import (
    batchfile,
    gc_pause,
    heads,
    pairing,
    pairing_flow,
    registry,
    replica,
    wal_fold,
)
from veramem_desktop.sync.envelope import HEADER_SIZE, BatchHeader, open_batch, read_header, seal_batch
from veramem_desktop.sync.errors import RejectReason, SyncRejected
from veramem_desktop.sync.keys import (
    AccountKey,
    DeviceIdentity,
    check_device_id,
    open_key_grant,
    seal_key_grant,
)

log = logging.getLogger(__name__)

# Refusals listed as "waiting": the file-sync engine is still copying, or a key or
# a device record has not arrived yet. Everything else is "refused".
WAITING = frozenset(
    {RejectReason.TRUNCATED, RejectReason.GAP, RejectReason.UNKNOWN_EPOCH, RejectReason.UNKNOWN_DEVICE}
)
DEFAULT_SCAN_S = 30.0
#: batches reserved (sealed into the outbox) per export transaction
EXPORT_BATCHES_PER_COMMIT = 20


def wall_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class RunReport:
    exported_events: int = 0
    exported_batches: int = 0
    applied_events: int = 0
    applied_batches: int = 0
    erased: int = 0
    rotated: bool = False
    rewritten: int = 0
    refused: list[dict[str, Any]] = field(default_factory=list)
    waiting: list[dict[str, Any]] = field(default_factory=list)
    paired: list[dict[str, Any]] = field(default_factory=list)
    #: ledgers found rolled back or rewritten from the signed heads (a peer's, or this device's own)
    ledger_heads: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class SyncService:
    """Sync for one open store. ``ledger_device`` is the id the store's ledger entries carry."""

    def __init__(self, store: Store, ledger_device: str, *, now_ms: Callable[[], int] = wall_ms) -> None:
        self.store = store
        self.ledger_device = ledger_device
        self.now_ms = now_ms
        self._run_lock = threading.Lock()

    # ------------------------------------------------------------------ setup
    def init(self, folder: Path | str, name: str = "") -> dict[str, Any]:
        """Make this the first device of a new sync account, using ``folder``."""
        self._refuse_if_set_up()
        identity = DeviceIdentity.generate(_device_name(name))
        pairing_flow.first_device(self.store, Path(folder).resolve(), identity, self.ledger_device)
        return {"device": identity.device_id, "name": identity.name, "folder": str(Path(folder).resolve())}

    def start_join(self, folder: Path | str, name: str = "") -> pairing.JoinerSession:
        """Write a join request; show ``session.code.display()`` to the person. Keep the session in memory."""
        self._refuse_if_set_up()
        return pairing_flow.start(
            Path(folder).resolve(), DeviceIdentity.generate(_device_name(name)), self.now_ms()
        )

    def finish_join(
        self,
        folder: Path | str,
        session: pairing.JoinerSession,
        *,
        timeout_s: float = 600.0,
        stop: Callable[[], bool] = lambda: False,
    ) -> dict[str, Any]:
        """Wait for a trusted device to approve, then keep the keys it handed over and exchange once."""
        result = pairing_flow.wait_for_approval(
            self.store, Path(folder).resolve(), session, self.now_ms, timeout_s=timeout_s, stop=stop
        )
        report = self.run()
        return {
            "device": session.identity.device_id,
            "approved_by": result.approver_id,
            "devices": len(result.grant.devices) + 1,
            "applied_events": report.applied_events,
        }

    def approve(self, code: str, *, wait_s: float = 30.0, poll_s: float = 0.25) -> dict[str, Any]:
        """Approve the new device showing ``code``; waits up to ``wait_s`` for it to confirm
        (a later ``run`` finishes the approval if the confirmation comes later)."""
        identity, folder = registry.load_identity(self.store)
        info = pairing_flow.approve(self.store, Path(folder), identity, code, self.now_ms())
        deadline = time.monotonic() + wait_s
        while True:
            done = [
                d
                for d in pairing_flow.complete_pending(
                    self.store, Path(folder), self.ledger_device, self.now_ms()
                )
                if d["request_id"] == info["request_id"]
            ]
            if done:
                info.update(done[0])
                if done[0]["status"] == "added":
                    self.run()
                break
            if time.monotonic() > deadline:
                info["status"] = "waiting for the new device to confirm; `veramem sync run` finishes it"
                break
            time.sleep(poll_s)
        return info

    def _refuse_if_set_up(self) -> None:
        if registry.has_identity(self.store):
            identity, folder = registry.load_identity(self.store)
            raise InvalidInputError(
                f"This device is already set up for sync as {identity.device_id} "
                f"(folder {folder}). Nothing was changed."
            )

    # ---------------------------------------------------------------- devices
    def devices(self) -> list[dict[str, Any]]:
        identity, _ = registry.load_identity(self.store)
        seen = registry.seen(self.store)
        out = []
        for d in registry.devices(self.store):
            row = d.to_dict()
            row["this_device"] = d.public.device_id == identity.device_id
            row["batches_applied"] = seen.get(d.public.device_id, 0)
            out.append(row)
        return out

    def remove(self, device_id: str) -> dict[str, Any]:
        """Remove a device: its later batches are refused, and the sync key rotates without it."""
        identity, folder = registry.load_identity(self.store)
        device_id = check_device_id(device_id)
        if device_id == identity.device_id:
            raise InvalidInputError("A device cannot remove itself; remove it from another trusted device.")
        known = {d.public.device_id: d for d in registry.devices(self.store)}
        if device_id not in known or known[device_id].removed:
            raise NotFoundError(f"No trusted device {device_id}; `veramem sync devices` lists them.")
        upto = registry.seen(self.store).get(device_id, 0)
        with self.store.atomic() as conn:
            registry.mark_removed(conn, device_id, upto)
            ledger.append(
                conn,
                op="device.remove",
                target_kind="device",
                target_id=device_id,
                commitment_hex=ledger.commit_to(conn, device_id, known[device_id].public.to_json()),
                device=self.ledger_device,
                details={"upto": upto},
            )
        self._drop_grants_to(Path(folder), identity, device_id)
        self._rotate(identity, Path(folder))
        report = self.run()
        return {
            "removed": device_id,
            "last_batch_applied": upto,
            "epoch": registry.current_key(self.store).epoch,
            "rewritten": report.rewritten,
        }

    # -------------------------------------------------------------------- run
    def run(self) -> RunReport:
        """Exchange once with the folder, as the system (channel sync) in the ledger."""
        with self._run_lock, self.store.acting.scope(Actor.system("sync", "sync"), system=True):
            started = time.monotonic()
            with wal_fold.deferred_checkpoints(self.store):
                report = self._exchange()
            # The exchange's last commit, durable: it makes every commit before it durable too (the WAL is
            # synced in order), and folds the WAL once if the exchange left it past SQLite's threshold.
            with self.store.atomic() as conn:
                registry.set_meta(conn, registry.META_LAST_EXCHANGE, now_iso())
            report.seconds = round(time.monotonic() - started, 4)
            return report

    def _exchange(self) -> RunReport:
        """The steps of :meth:`run` (see the module docstring) before its last commit."""
        identity, folder_text = registry.load_identity(self.store)
        folder = Path(folder_text)
        batchfile.check_folder(folder)
        report = RunReport()
        report.paired = pairing_flow.complete_pending(self.store, folder, self.ledger_device, self.now_ms())
        pairing_flow.cleanup_own_request(self.store, folder, self.now_ms())
        self._read_grants(identity, folder)
        # Rows named by tombstones recorded earlier but not yet erased (a crash in between).
        report.erased += replica.enforce_tombstones(self.store, self.ledger_device)
        rotate = self._export(identity, folder, report)
        removed = self._import(identity, folder, report)
        report.ledger_heads = [p.to_dict() for p in heads.check(self.store, folder, identity.device_id)]
        rotate |= self._export(identity, folder, report)
        for device_id in removed:
            self._drop_grants_to(folder, identity, device_id)
            current = registry.current_key(self.store)
            if any(g.epoch >= current.epoch for g in batchfile.list_grants(folder, device_id)):
                rotate = True  # another device handed the current key to it before it knew
        if rotate:
            self._rotate(identity, folder)
            report.rotated = True
        self._ensure_grants(identity, folder)
        report.rewritten = self._rewrite(identity, folder)
        self._retire_keys(identity, folder)
        self._write_head(identity, folder)
        return report

    # ----------------------------------------------------------------- export
    def _export(self, identity: DeviceIdentity, folder: Path, report: RunReport) -> bool:
        """Seal every unexported ledger entry into batches; True if a local forget needs a key rotation."""
        me = identity.device_id
        rotate = False
        self._flush_outbox(identity, folder)
        more = True
        while more:
            # Up to EXPORT_BATCHES_PER_COMMIT batches are reserved in one transaction, then written.
            with gc_pause.paused(), self.store.atomic() as conn:
                for _ in range(EXPORT_BATCHES_PER_COMMIT):
                    exported = replica.export_events(conn, me, self.now_ms())
                    if exported is None:
                        more = False
                        break
                    key = registry.current_key(conn)
                    batch_seq = int(registry.get_meta(conn, registry.META_NEXT_BATCH) or 1)
                    sealed = seal_batch(identity, key, batch_seq, exported.events)
                    conn.execute(
                        "INSERT INTO sync_outbox(batch_seq, epoch, key_id, first_seq, last_seq, sealed) "
                        "VALUES (?,?,?,?,?,?)",
                        (
                            batch_seq,
                            key.epoch,
                            key.key_id.hex(),
                            exported.events[0]["seq"],
                            exported.last_seq,
                            sealed,
                        ),
                    )
                    conn.executemany(
                        "INSERT OR IGNORE INTO sync_outbox_targets(target_id, batch_seq) VALUES (?, ?)",
                        [(t, batch_seq) for t in sorted(exported.targets)],
                    )
                    registry.set_meta(conn, registry.META_NEXT_BATCH, str(batch_seq + 1))
                    rotate |= bool(exported.local_forgets)
                    report.exported_events += len(exported.events)
                    report.exported_batches += 1
            self._flush_outbox(identity, folder)
        return rotate

    def _flush_outbox(self, identity: DeviceIdentity, folder: Path) -> None:
        """Write the files of reserved batches (again, after a crash); a file already there is kept
        if it holds the same bytes and replaced if something else was put under our name. Once
        the files are on disk (the folder synced once for all of them), one transaction marks them all
        written."""
        written: list[tuple[int]] = []
        try:
            for batch_seq, epoch, sealed in self.store.query(
                "SELECT batch_seq, epoch, sealed FROM sync_outbox WHERE sealed IS NOT NULL ORDER BY batch_seq"
            ):
                data = bytes(sealed)
                path = batchfile.batch_path(folder, identity.device_id, int(epoch), int(batch_seq))
                try:
                    batchfile.write_batch(
                        folder, identity.device_id, int(epoch), int(batch_seq), data, sync_dir=False
                    )
                except SyncError:
                    if not path.exists() or batchfile.read_batch(path) != data:
                        batchfile.atomic_write(path, data, sync_dir=False)
                written.append((int(batch_seq),))
        finally:
            if written:
                batchfile.fsync_dir(batchfile.device_dir(folder, identity.device_id))
                with self.store.atomic() as conn:
                    # What this frees is ciphertext, the very bytes now in the folder's files: zeroing the
                    # freed pages (half the page writes of an export) would hide nothing, so FAST here
                    # (cells on b-tree pages are still zeroed; freed overflow pages are not rewritten).
                    conn.execute("PRAGMA secure_delete = FAST")
                    try:
                        conn.executemany("UPDATE sync_outbox SET sealed = NULL WHERE batch_seq = ?", written)
                    finally:
                        conn.execute("PRAGMA secure_delete = ON")

    # ----------------------------------------------------------------- import
    def _import(self, identity: DeviceIdentity, folder: Path, report: RunReport) -> list[str]:
        me = identity.device_id
        removed_now: list[str] = []
        by_device: dict[str, list[batchfile.BatchRef]] = {}
        for ref in batchfile.list_batches(folder):
            if ref.device_id != me:
                by_device.setdefault(ref.device_id, []).append(ref)
        live_paths: set[str] = set()
        for device_id, refs in sorted(by_device.items()):
            live_paths |= {str(r.path) for r in refs}
            removed_now += self._import_device(identity, device_id, refs, report)
        # Refusals of files that are gone (replaced, rewritten, deleted) are no longer news.
        with self.store.atomic() as conn:
            stale = [
                path
                for (path,) in conn.execute("SELECT path FROM sync_refusals").fetchall()
                if path not in live_paths and not Path(path).exists()
            ]
            registry.clear_refusals(conn, stale)
        return removed_now

    def _import_device(
        self, identity: DeviceIdentity, device_id: str, refs: list[batchfile.BatchRef], report: RunReport
    ) -> list[str]:
        removed_now: list[str] = []
        while True:
            seen = registry.seen(self.store)
            next_seq = seen.get(device_id, 0) + 1
            removed = registry.removed_ids(self.store)
            if device_id in removed and removed[device_id] is None:
                self._note(
                    report,
                    refs[0],
                    device_id,
                    RejectReason.REMOVED_DEVICE,
                    f"Device {device_id} was removed; its batches wait for the removal record.",
                    True,
                )
                return removed_now
            candidates = sorted((r for r in refs if r.batch_seq == next_seq), key=lambda r: -r.epoch)
            if not candidates:
                later = [r for r in refs if r.batch_seq > next_seq]
                if later:
                    self._note(
                        report,
                        later[0],
                        device_id,
                        RejectReason.GAP,
                        f"Batch {later[0].batch_seq} of device {device_id} waits for batch {next_seq}.",
                        True,
                    )
                return removed_now
            applied = False
            for ref in candidates:
                try:
                    with gc_pause.paused():  # the batch's events are many small objects with no cycles
                        result = self._apply_file(identity, ref, seen, removed)
                except SyncRejected as exc:
                    self._note(
                        report,
                        ref,
                        device_id,
                        exc.reason_code,
                        exc.message,
                        exc.reason in WAITING and not isinstance(exc, replica.ChainProblem),
                    )
                    continue
                except SyncError as exc:  # unreadable file (permissions, vanished)
                    self._note(report, ref, device_id, "unreadable", exc.message, True)
                    continue
                applied = True
                report.applied_batches += 1
                report.applied_events += result.events
                removed_now += result.removed
                if result.tombstones:
                    report.erased += replica.enforce_tombstones(self.store, self.ledger_device)
                break
            if not applied:
                return removed_now

    def _apply_file(
        self,
        identity: DeviceIdentity,
        ref: batchfile.BatchRef,
        seen: dict[str, int],
        removed: dict[str, int | None],
    ) -> replica.Applied:
        data = batchfile.read_batch(ref)
        header = read_header(data)
        key = registry.key_for(self.store, header.epoch, header.key_id)
        keys = {key.epoch: key} if key is not None else {}
        devices = registry.devices(self.store)
        trusted = {d.public.device_id: d.public.verify_key for d in devices}
        gone = {d for d, upto in removed.items() if upto is not None and seen.get(d, 0) >= upto}
        opened = open_batch(data, keys, trusted, gone, seen, expected_device=ref.device_id)
        if opened.batch_seq != ref.batch_seq or opened.epoch != ref.epoch:
            raise SyncRejected(
                RejectReason.MISPLACED,
                f"A batch of device {ref.device_id} was stored under "
                f"another batch's name ({ref.path.name}); it was refused.",
            )
        # Committed without waiting for the disk: a batch whose commit a power cut took is applied again
        # from its file (its 'seen' mark goes with it), and the exchange ends with a durable commit, which
        # makes this one durable too (the WAL is written and synced in order). See Store.atomic.
        with self.store.atomic(durable=False) as conn:
            if registry.seen(conn).get(ref.device_id, 0) >= opened.batch_seq:  # another process applied it
                return replica.Applied()
            try:
                result = replica.apply_events(
                    conn,
                    identity.device_id,
                    self.ledger_device,
                    ref.device_id,
                    opened.events,
                    self.now_ms(),
                    opened.clocks,
                )
            except replica.ChainProblem as exc:
                problem: str | None = exc.message
                failure: SyncRejected | None = exc
            else:
                problem, failure = None, None
                registry.set_seen(conn, ref.device_id, opened.batch_seq)
                registry.clear_refusals(conn, [str(ref.path)])
        if failure is not None:
            with self.store.atomic() as conn:
                conn.execute(
                    "INSERT INTO sync_chains(device_id, seq, hash, problem) VALUES (?, 0, '', ?) "
                    "ON CONFLICT(device_id) DO UPDATE SET problem = excluded.problem",
                    (ref.device_id, problem),
                )
            raise failure
        return result

    def _note(
        self,
        report: RunReport,
        ref: batchfile.BatchRef,
        device_id: str,
        reason: str,
        message: str,
        waiting: bool,
    ) -> None:
        entry = {"file": str(ref.path), "device": device_id, "reason": str(reason), "message": message}
        (report.waiting if waiting else report.refused).append(entry)
        with self.store.atomic() as conn:
            registry.record_refusal(conn, str(ref.path), device_id, str(reason), message, waiting)

    def _write_head(self, identity: DeviceIdentity, folder: Path) -> None:
        """Sign and publish where this device's ledger ends and where it saw each peer's end."""
        with self.store.atomic() as conn:
            head = heads.build(conn, identity.device_id, self.now_ms())
            key = registry.current_key(conn)
        heads.write(folder, identity.device_id, heads.seal(identity, key, head))

    # ------------------------------------------------------------------- keys
    def _read_grants(self, identity: DeviceIdentity, folder: Path) -> None:
        trusted = {d.device_id: d for d in registry.active_devices(self.store)}
        for ref in batchfile.list_grants(folder, identity.device_id):
            try:
                key = open_key_grant(batchfile.read_grant(ref), identity, trusted)
            except SyncRejected as exc:
                with self.store.atomic() as conn:
                    registry.record_refusal(
                        conn,
                        str(ref.path),
                        ref.sender_id,
                        exc.reason_code,
                        exc.message,
                        exc.reason in WAITING,
                    )
                continue
            with self.store.atomic() as conn:
                registry.add_key(conn, key)
                registry.clear_refusals(conn, [str(ref.path)])

    def _rotate(self, identity: DeviceIdentity, folder: Path) -> AccountKey:
        """A fresh key for the next epoch, granted to every remaining device."""
        with self.store.atomic() as conn:
            top = max(k.epoch for k in registry.keys(conn))
            new = AccountKey.generate(top + 1)
            registry.add_key(conn, new)
        self._ensure_grants(identity, folder)
        return new

    def _ensure_grants(self, identity: DeviceIdentity, folder: Path) -> None:
        """Every active device has a grant of the current key from this device (written again after a crash,
        or replaced when a concurrent rotation elsewhere picked another key for the epoch)."""
        current = registry.current_key(self.store)
        for device in registry.active_devices(self.store):
            if device.device_id == identity.device_id:
                continue
            name = f"{current.epoch:06d}-{device.device_id}{batchfile.GRANT_SUFFIX}"
            path = batchfile.device_dir(folder, identity.device_id) / batchfile.GRANTS_DIR / name
            if path.exists() and path.read_bytes()[9:17] == current.key_id:
                continue
            batchfile.write_grant(
                folder,
                identity.device_id,
                device.device_id,
                current.epoch,
                seal_key_grant(identity, device, current),
            )

    def _drop_grants_to(self, folder: Path, identity: DeviceIdentity, device_id: str) -> None:
        grants = batchfile.device_dir(folder, identity.device_id) / batchfile.GRANTS_DIR
        if grants.is_dir():
            for path in grants.glob(f"*-{device_id}{batchfile.GRANT_SUFFIX}"):
                path.unlink(missing_ok=True)

    def _rewrite(self, identity: DeviceIdentity, folder: Path) -> int:
        """Re-seal this device's batches that carry a forgotten payload or use an old key."""
        current = registry.current_key(self.store)
        todo = self.store.query(
            "SELECT batch_seq FROM sync_outbox WHERE sealed IS NULL AND (dirty = 1 OR key_id != ?) "
            "ORDER BY batch_seq",
            (current.key_id.hex(),),
        )
        if not todo:
            return 0
        mine: dict[int, list[batchfile.BatchRef]] = {}
        for ref in batchfile.list_batches(folder, identity.device_id):
            mine.setdefault(ref.batch_seq, []).append(ref)
        trusted = {identity.device_id: identity.verify_key}
        done = 0
        for (batch_seq,) in todo:
            refs = mine.get(int(batch_seq), [])
            events = None
            for ref in refs:
                try:
                    data = batchfile.read_batch(ref)
                    header = read_header(data)
                    key = registry.key_for(self.store, header.epoch, header.key_id)
                    if key is None:
                        continue
                    events = open_batch(
                        data,
                        {key.epoch: key},
                        trusted,
                        set(),
                        {},
                        expected_device=identity.device_id,
                        require_contiguous=False,
                    ).events
                    break
                except (SyncRejected, SyncError):
                    continue
            if events is not None:
                with self.store.read() as conn:
                    clean = replica.scrub(conn, list(events))
                target = batchfile.batch_path(folder, identity.device_id, current.epoch, int(batch_seq))
                batchfile.atomic_write(target, seal_batch(identity, current, int(batch_seq), clean))
                for ref in refs:
                    if ref.path != target:
                        batchfile.remove_batch(ref)
                done += 1
            with self.store.atomic() as conn:
                conn.execute(
                    "UPDATE sync_outbox SET dirty = 0, epoch = ?, key_id = ? WHERE batch_seq = ?",
                    (current.epoch, current.key_id.hex(), batch_seq),
                )
        return done

    def _retire_keys(self, identity: DeviceIdentity, folder: Path) -> None:
        """Erase keys that no batch file in the folder and no pending batch uses any more."""
        current = registry.current_key(self.store)
        in_use = {(current.epoch, current.key_id)}
        for ref in batchfile.list_batches(folder):
            header = _peek_header(ref.path)
            if header is not None:
                in_use.add((header.epoch, header.key_id))
        for epoch, key_id in self.store.query(
            "SELECT epoch, key_id FROM sync_outbox WHERE sealed IS NOT NULL"
        ):
            in_use.add((int(epoch), bytes.fromhex(key_id)))
        old = [k for k in registry.keys(self.store) if (k.epoch, k.key_id) not in in_use]
        if not old:
            return
        with self.store.atomic() as conn:
            for key in old:
                registry.erase_key(conn, key)
        grants = batchfile.device_dir(folder, identity.device_id) / batchfile.GRANTS_DIR
        kept = {k.epoch for k in registry.keys(self.store)}
        if grants.is_dir():
            for path in grants.glob(f"*{batchfile.GRANT_SUFFIX}"):
                if path.name[:6].isdigit() and int(path.name[:6]) not in kept:
                    path.unlink(missing_ok=True)

    # ------------------------------------------------------------- daemon
    def daemon(
        self,
        stop: threading.Event,
        *,
        scan_s: float = DEFAULT_SCAN_S,
        on_run: Callable[[RunReport], None] = lambda _r: None,
        on_error: Callable[[Exception], None] = lambda _e: None,
    ) -> None:
        """Exchange whenever files arrive (watchdog) and every ``scan_s`` seconds, until ``stop`` is set."""
        from watchdog.events import FileSystemEvent, FileSystemEventHandler
        from watchdog.observers import Observer

        _, folder = registry.load_identity(self.store)
        root = batchfile.check_folder(Path(folder))
        arrived = threading.Event()

        class _Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                if not os.path.basename(str(event.src_path)).startswith("."):
                    arrived.set()

        observer = Observer()
        observer.schedule(_Handler(), str(root), recursive=True)
        observer.start()
        try:
            arrived.set()  # one exchange at start
            while not stop.is_set():
                arrived.wait(scan_s)
                if stop.is_set():
                    break
                arrived.clear()
                try:
                    on_run(self.run())
                except Exception as exc:  # keep watching; the error is reported to the caller
                    log.warning("sync run failed: %s", type(exc).__name__)
                    on_error(exc)
        finally:
            observer.stop()
            observer.join(timeout=5)

    # ------------------------------------------------------------- status
    def status(self) -> dict[str, Any]:
        """Devices, last exchange, pending events, refused and waiting files, broken chains."""
        if not registry.has_identity(self.store):
            return {"set_up": False}
        identity, folder = registry.load_identity(self.store)
        exported = int(registry.get_meta(self.store, registry.META_EXPORTED) or 0)
        with self.store.read() as conn:
            last_seq, _ = ledger_feed.head(conn)
        found = registry.refusals(self.store)
        current = registry.current_key(self.store)
        strays: list[str] = []
        if Path(folder).is_dir():
            strays = [str(p) for p in batchfile.unrecognised_files(Path(folder))]
        return {
            "set_up": True,
            "device": {"id": identity.device_id, "name": identity.name},
            "folder": folder,
            "epoch": current.epoch,
            "keys_held": len(registry.keys(self.store)),
            "devices": self.devices(),
            "last_exchange": registry.get_meta(self.store, registry.META_LAST_EXCHANGE),
            "pending_events": max(0, last_seq - exported),
            "refused": [r for r in found if not r["waiting"]],
            "waiting": [r for r in found if r["waiting"]],
            "chains": [
                {"device": device_id, "entries": int(seq), "problem": problem}
                for device_id, seq, problem in self.store.query(
                    "SELECT device_id, seq, problem FROM sync_chains ORDER BY device_id"
                )
            ],
            # what a paired device found wrong with this device's own ledger (its signed head; sync/heads.py)
            "own_chain_problem": heads.own_problem(self.store),
            "pending_approvals": len(registry.pending(self.store)),
            "unrecognised_files": strays,
        }


def _peek_header(path: Path) -> BatchHeader | None:
    try:
        with open(path, "rb") as handle:
            head = handle.read(HEADER_SIZE)
        return BatchHeader.unpack(head) if len(head) == HEADER_SIZE and head[:4] == b"VMS1" else None
    except (OSError, ValueError):
        return None


def _device_name(name: str) -> str:
    import socket

    text = (name or socket.gethostname() or "device").strip()[:64]
    return "".join(c for c in text if c.isprintable()) or "device"
