"""Clearing a reserved batch from the outbox once its file is written (issue 17): what is freed is the
sealed file's own bytes, ciphertext, so the freed pages are not zeroed, and the store's secure delete
is on again for everything after it; after a forget no decrypted page or WAL frame of the exporting
store holds the text its outbox carried."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sync_e2e_helpers
from sync_e2e_helpers import Device, deliver, make_devices
from veramem_desktop.core.storage.store import Store
from veramem_desktop.sync import batchfile
from veramem_desktop.sync.replica import state_hash

from veramem_desktop.pages import plaintext_of_store

SECRET_TEXT = "The locker code is 7391 and only Mara knows it."


def _secure_delete(device: Device) -> int:
    return int(device.store.query("PRAGMA secure_delete")[0][0])


def test_the_bytes_an_outbox_clearing_frees_are_the_batch_files_ciphertext(
    pair: list[Device], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = pair
    a.add(SECRET_TEXT)

    def crash(*_args: object, **_kwargs: object) -> Path:
        raise OSError("simulated crash while writing the batch file")

    monkeypatch.setattr(batchfile, "write_batch", crash)
    with pytest.raises(OSError):
        a.service.run()
    monkeypatch.undo()
    reserved = [bytes(r[0]) for r in a.store.query("SELECT sealed FROM sync_outbox ORDER BY batch_seq")]
    assert reserved and all(SECRET_TEXT.encode() not in s and b"7391" not in s for s in reserved)
    a.service.run()
    files = [batchfile.read_batch(r.path) for r in batchfile.list_batches(a.folder, a.id)]
    assert files[: len(reserved)] == reserved  # the freed bytes are exactly what the folder holds
    assert a.store.query("SELECT count(*) FROM sync_outbox WHERE sealed IS NOT NULL")[0][0] == 0
    deliver(a, b)
    b.service.run()
    assert state_hash(a.store) == state_hash(b.store)


def test_secure_delete_is_on_again_after_an_exchange_clears_the_outbox(pair: list[Device]) -> None:
    a, _ = pair
    assert _secure_delete(a) == 1
    a.add(SECRET_TEXT)
    report = a.service.run()
    assert report.exported_batches >= 1
    assert a.store.query("SELECT count(*) FROM sync_outbox WHERE sealed IS NOT NULL")[0][0] == 0
    assert _secure_delete(a) == 1


def test_after_a_forget_no_page_of_the_exporting_store_holds_the_text_its_outbox_carried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keys: dict[str, bytes] = {}
    real_open = Store.open

    class Recording:
        @staticmethod
        def open(path: Path, key: bytes, **kwargs: Any) -> Store:
            keys[str(path)] = key
            return real_open(path, key, **kwargs)

    monkeypatch.setattr(sync_e2e_helpers, "Store", Recording)
    a, b = make_devices(tmp_path, ["a", "b"])
    monkeypatch.undo()
    try:
        memory_id = a.add("My locker code is qxzoutboxmarker and I keep it secret.")
        a.service.run()  # reserved (sealed into the outbox), written, then cleared without zeroing
        deliver(a, b)
        b.service.run()
        db = tmp_path / "a.db"
        assert b"qxzoutboxmarker" in plaintext_of_store(db, keys[str(db)]).lower()  # the scan sees live rows
        a.forget(memory_id)
        a.service.run()  # the key rotates, files carrying it are rewritten, the old key is erased
        a.store.checkpoint()
        assert b"qxzoutboxmarker" not in plaintext_of_store(db, keys[str(db)]).lower()
    finally:
        a.store.close()
        b.store.close()
