"""Pairing through the folder with real stores: the happy path, an outsider without the code,
and a join request swapped for another device's keys."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from veramem_desktop.core.storage.store import Store
from veramem_desktop.sync import batchfile, pairing, registry
from veramem_desktop.sync.batchfile import PairingKind
from veramem_desktop.sync.errors import PairingFailed, PairingFailure
from veramem_desktop.sync.keys import DeviceIdentity, canonical_json
from veramem_desktop.sync.service import SyncService


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shared = tmp_path / "shared"
    shared.mkdir()
    return shared


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[dict[str, Store]]:
    opened = {
        n: Store.open(tmp_path / f"{n}.db", os.urandom(32), create=True)
        for n in ("laptop", "phone", "mallory")
    }
    yield opened
    for s in opened.values():
        s.close()


def _join_in_background(
    service: SyncService, folder: Path, session: pairing.JoinerSession, out: dict[str, Any]
) -> threading.Thread:
    def work() -> None:
        try:
            out["result"] = service.finish_join(folder, session, timeout_s=20)
        except PairingFailed as exc:
            out["error"] = exc

    thread = threading.Thread(target=work)
    thread.start()
    return thread


def test_a_new_device_joins_with_the_code_and_receives_the_history(
    folder: Path, stores: dict[str, Store]
) -> None:
    laptop = SyncService(stores["laptop"], "dev_laptop")
    phone = SyncService(stores["phone"], "dev_phone")
    laptop.init(folder, "laptop")
    session = phone.start_join(folder, "phone")
    out: dict[str, Any] = {}
    thread = _join_in_background(phone, folder, session, out)
    info = laptop.approve(session.code.display(), wait_s=20)
    thread.join(30)
    assert info["status"] == "added" and "result" in out, (info, out)
    ids = {d["id"] for d in laptop.devices()}
    assert (
        ids
        == {d["id"] for d in phone.devices()}
        == {registry.load_identity(stores["laptop"])[0].device_id, session.identity.device_id}
    )
    assert registry.current_key(stores["phone"]) == registry.current_key(stores["laptop"])
    # Pairing files are gone once both sides are done.
    laptop.run()
    phone.run()
    assert batchfile.list_pairing(folder, PairingKind.JOIN) == {}
    assert batchfile.list_pairing(folder, PairingKind.APPROVAL) == {}
    assert batchfile.list_pairing(folder, PairingKind.CONFIRM) == {}


def test_someone_who_can_read_and_write_the_folder_but_never_saw_the_code_cannot_join(
    folder: Path, stores: dict[str, Store]
) -> None:
    laptop = SyncService(stores["laptop"], "dev_laptop")
    laptop.init(folder, "laptop")
    mallory = SyncService(stores["mallory"], "dev_mallory")
    session = mallory.start_join(folder, "mallory")
    # The person never sees Mallory's code; the tag is public, so a code someone types may still
    # point at her request, but its secret part is not hers: the approver cannot tell and answers.
    typed = pairing.PairingCode(session.code.tag, "0" * pairing.SECRET_CHARS)
    assert typed.secret != session.code.secret
    info = laptop.approve(typed.display(), wait_s=0)
    assert info["status"] != "added"
    # That answer is useless to her: her side of the exchange fails and she receives no key.
    out: dict[str, Any] = {}
    _join_in_background(mallory, folder, session, out).join(30)
    assert isinstance(out.get("error"), PairingFailed)
    assert out["error"].reason is PairingFailure.CONFIRMATION_FAILED
    assert registry.keys(stores["mallory"]) == []
    laptop.run()
    assert [d["name"] for d in laptop.devices()] == ["laptop"]


def test_an_approved_join_cannot_be_swapped_for_another_devices_key(
    folder: Path, stores: dict[str, Store]
) -> None:
    laptop = SyncService(stores["laptop"], "dev_laptop")
    laptop.init(folder, "laptop")
    phone = SyncService(stores["phone"], "dev_phone")
    session = phone.start_join(folder, "phone")
    # Mallory replaces the phone's request with one carrying her keys, same id and tag, signed by her.
    mallory = DeviceIdentity.generate("mallory")
    theirs = pairing.start_join(mallory, session.request.created_ms)
    swapped = pairing.JoinRequest(
        session.request.request_id,
        session.code.tag,
        mallory.public,
        theirs.request.spake_msg,
        session.request.created_ms,
        session.request.expires_ms,
        b"",
    )
    signed = pairing.JoinRequest(
        **{
            **swapped.__dict__,
            "signature": mallory.sign(pairing._REQUEST_SIG_CONTEXT + canonical_json(swapped.signed_part())),
        }
    )
    batchfile.write_pairing(folder, PairingKind.JOIN, session.request.request_id, signed.to_bytes())
    laptop.approve(session.code.display(), wait_s=0)  # the person types the phone's real code
    out: dict[str, Any] = {}
    _join_in_background(phone, folder, session, out).join(30)
    assert isinstance(out.get("error"), PairingFailed)  # the phone notices the transcript changed
    # Mallory cannot open the approval either: it is sealed to her box key but under a session key
    # derived from the phone's code, which her SPAKE2 message does not share.
    approval = pairing.Approval.from_bytes(
        batchfile.list_pairing(folder, PairingKind.APPROVAL)[session.request.request_id]
    )
    with pytest.raises(PairingFailed):
        pairing.finish_join(
            theirs,
            pairing.Approval(
                theirs.request.request_id,
                approval.approver,
                approval.spake_msg,
                approval.confirm,
                approval.sealed,
            ),
            session.request.created_ms + 1,
        )
    laptop.run()
    assert [d["name"] for d in laptop.devices()] == ["laptop"]
    assert mallory.device_id not in {d["id"] for d in laptop.devices()}
