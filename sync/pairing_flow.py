"""Pairing through the folder, wired to the store: join, approve, complete.

The joining device keeps its :class:`JoinerSession` in memory only (the code is
never written anywhere); the approver keeps its pending approval in the store until
the confirmation arrives or the deadline passes. Each side removes the pairing
files it wrote once pairing succeeded or expired.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from veramem_desktop.core.storage import ledger
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.sync import batchfile, pairing, registry
from veramem_desktop.sync.batchfile import PairingKind
from veramem_desktop.sync.errors import PairingFailed, PairingFailure
from veramem_desktop.sync.keys import AccountKey, DeviceIdentity, DevicePublic

NowMs = Callable[[], int]


def record_device_added(conn: Connection, device: DevicePublic, ledger_device: str) -> None:
    """Trust ``device`` and append the ledger entry that carries it to the other devices."""
    if registry.add_device(conn, device):
        ledger.append(
            conn,
            op="device.add",
            target_kind="device",
            target_id=device.device_id,
            commitment_hex=ledger.commit_to(conn, device.device_id, device.to_json()),
            device=ledger_device,
        )


def start(folder: Path, identity: DeviceIdentity, now_ms: int) -> pairing.JoinerSession:
    batchfile.check_folder(folder)
    session = pairing.start_join(identity, now_ms)
    batchfile.write_pairing(folder, PairingKind.JOIN, session.request.request_id, session.request.to_bytes())
    return session


def wait_for_approval(
    store: Store,
    folder: Path,
    session: pairing.JoinerSession,
    now_ms: NowMs,
    *,
    timeout_s: float,
    poll_s: float = 0.25,
    stop: Callable[[], bool] = lambda: False,
) -> pairing.JoinResult:
    """Wait for the approval, check it, confirm, and keep the keys and devices it hands over."""
    request_id = session.request.request_id
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            found = batchfile.list_pairing(folder, PairingKind.APPROVAL).get(request_id)
            if found is not None:
                result = pairing.finish_join(session, pairing.Approval.from_bytes(found), now_ms())
                break
            if now_ms() >= session.request.expires_ms:
                raise PairingFailed(
                    PairingFailure.EXPIRED,
                    "No device approved this join before the code expired; start `veramem sync join` again.",
                )
            if time.monotonic() > deadline or stop():
                raise PairingFailed(
                    PairingFailure.EXPIRED, "Stopped waiting for the approval; start the join again."
                )
            time.sleep(poll_s)
    except PairingFailed:
        batchfile.remove_pairing(folder, PairingKind.JOIN, request_id)
        raise
    batchfile.write_pairing(folder, PairingKind.CONFIRM, request_id, result.confirmation.to_bytes())
    grant = result.grant
    with store.atomic() as conn:
        registry.save_identity(conn, session.identity, str(folder))
        for key in grant.keys:
            registry.add_key(conn, key)
        registry.add_device(conn, session.identity.public)
        for device in grant.devices:
            registry.add_device(conn, device)
        for removed in grant.removed:
            registry.mark_removed(conn, removed, None)
        registry.set_meta(
            conn,
            registry.META_OWN_REQUEST,
            json.dumps({"id": request_id, "expires_ms": session.request.expires_ms}),
        )
    return result


def approve(
    store: Store, folder: Path, identity: DeviceIdentity, code_text: str, now_ms: int
) -> dict[str, Any]:
    """Answer the join request the code points at; the new device is trusted once it confirms."""
    code = pairing.PairingCode.parse(code_text)
    requests, _bad = pairing.pending_requests(list(batchfile.list_pairing(folder, PairingKind.JOIN).values()))
    request = pairing.find_request(requests, code, now_ms)
    grant = pairing.AccountGrant(
        tuple(registry.keys(store)),
        tuple(registry.active_devices(store)),
        frozenset(registry.removed_ids(store)),
    )
    pending, approval = pairing.approve_join(request, code, identity, grant, now_ms)
    batchfile.write_pairing(folder, PairingKind.APPROVAL, request.request_id, approval.to_bytes())
    with store.atomic() as conn:
        registry.save_pending(conn, request.request_id, pending.to_json())
    return {"request_id": request.request_id, "device": request.device.device_id, "name": request.device.name}


def complete_pending(store: Store, folder: Path, ledger_device: str, now_ms: int) -> list[dict[str, Any]]:
    """Finish approvals whose confirmation arrived; drop the expired or failed ones."""
    done: list[dict[str, Any]] = []
    confirmations = batchfile.list_pairing(folder, PairingKind.CONFIRM)
    for request_id, state in registry.pending(store).items():
        waiting = pairing.PendingApproval.from_json(state)
        outcome: dict[str, Any] = {
            "request_id": request_id,
            "device": waiting.joiner.device_id,
            "name": waiting.joiner.name,
        }
        data = confirmations.get(request_id)
        if data is None and now_ms <= waiting.deadline_ms:
            continue
        try:
            if data is None:
                raise PairingFailed(PairingFailure.EXPIRED, "The new device did not confirm in time.")
            joiner = pairing.complete_approval(waiting, pairing.Confirmation.from_bytes(data), now_ms)
            with store.atomic() as conn:
                record_device_added(conn, joiner, ledger_device)
                registry.drop_pending(conn, request_id)
            outcome["status"] = "added"
        except PairingFailed as exc:
            with store.atomic() as conn:
                registry.drop_pending(conn, request_id)
            outcome.update(status="failed", reason=exc.reason_code, message=exc.message)
        batchfile.remove_pairing(folder, PairingKind.APPROVAL, request_id)
        done.append(outcome)
    return done


def cleanup_own_request(store: Store, folder: Path, now_ms: int) -> None:
    """The joined device removes its join request and confirmation once the approver is done."""
    text = registry.get_meta(store, registry.META_OWN_REQUEST)
    if not text:
        return
    info = json.loads(text)
    approval_gone = info["id"] not in batchfile.list_pairing(folder, PairingKind.APPROVAL)
    if approval_gone or now_ms > int(info["expires_ms"]) + pairing.CONFIRM_GRACE_MS:
        batchfile.remove_pairing(folder, PairingKind.JOIN, info["id"])
        batchfile.remove_pairing(folder, PairingKind.CONFIRM, info["id"])
        with store.atomic() as conn:
            registry.delete_meta(conn, registry.META_OWN_REQUEST)


def first_device(store: Store, folder: Path, identity: DeviceIdentity, ledger_device: str) -> AccountKey:
    """``sync init``: this device becomes the first trusted device with a fresh account key."""
    batchfile.init_folder(folder)
    key = AccountKey.generate(1)
    with store.atomic() as conn:
        registry.save_identity(conn, identity, str(folder))
        registry.add_key(conn, key)
        record_device_added(conn, identity.public, ledger_device)
    return key
