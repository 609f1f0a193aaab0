"""End to end through a real file-sync engine: two Syncthing instances on loopback carry the
pairing messages and the batches between two stores."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from veramem_desktop.sync import batchfile
from veramem_desktop.sync.batchfile import PairingKind

from veramem_desktop.memory import Memory

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

HOP_S = 90  # one file carried from one instance to the other


@pytest.fixture
def syncthings(tmp_path: Path) -> Iterator[tuple[Any, Any]]:
    if shutil.which("syncthing") is None:
        if os.environ.get("CI") == "true":
            pytest.fail(
                "syncthing is not installed, and CI must run the real-engine sync test "
                "(apt-get install -y syncthing)."
            )
        pytest.skip(
            "syncthing is not installed (apt-get install -y syncthing); the real-engine sync test needs it"
        )
    from sync_e2e_syncthing import make_pair, wait_for

    a, b = make_pair(tmp_path / "engines")
    try:
        wait_for(
            lambda: a.connected_to(b) and b.connected_to(a), HOP_S, "the two Syncthing instances to connect"
        )
        yield a, b
    finally:
        a.stop()
        b.stop()


def test_an_add_and_a_forget_travel_through_syncthing_and_both_ledgers_verify(
    syncthings: tuple[Any, Any], tmp_path: Path
) -> None:
    from sync_e2e_syncthing import wait_for

    st_a, st_b = syncthings
    laptop, _ = Memory.create(
        tmp_path / "laptop-home", passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder()
    )
    phone, _ = Memory.create(
        tmp_path / "phone-home", passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder()
    )
    try:
        laptop.sync.init(st_a.folder, "laptop")
        wait_for(
            lambda: (st_b.folder / batchfile.SYNC_DIR / batchfile.FORMAT_FILE).exists(),
            HOP_S,
            "the sync folder layout to reach the phone",
        )

        code = phone.sync.join_start(st_b.folder, "phone")
        joined: dict[str, Any] = {}
        joiner = threading.Thread(target=lambda: joined.update(phone.sync.join_finish(timeout_s=4 * HOP_S)))
        joiner.start()
        wait_for(
            lambda: batchfile.list_pairing(st_a.folder, PairingKind.JOIN),
            HOP_S,
            "the join request to reach the laptop",
        )
        approved = laptop.sync.approve(code, wait_s=3 * HOP_S)
        joiner.join(5 * HOP_S)
        assert approved["status"] == "added", approved
        assert joined.get("approved_by") == laptop.sync.status()["device"]["id"], joined

        laptop.add("My bicycle is locked in the courtyard behind the bakery.", user_id="me")
        laptop.sync.run()

        def found_on_phone() -> bool:
            phone.sync.run()
            hits = phone.search("where is my bicycle locked", user_id="me").results
            return any("courtyard" in h.text for h in hits)

        wait_for(
            found_on_phone, 2 * HOP_S, "the laptop's memory to be found by search on the phone", every=1.0
        )
        memory_id = next(m.id for m in laptop.memories(user_id="me") if "courtyard" in m.text)
        assert phone.get(memory_id).text == laptop.get(memory_id).text

        laptop.forget(memory_id)
        laptop.sync.run()

        def gone_from_phone() -> bool:
            phone.sync.run()
            return (
                not phone.memories(user_id="me")
                and not phone.search("bicycle courtyard", user_id="me").results
            )

        wait_for(gone_from_phone, 2 * HOP_S, "the forget to reach the phone", every=1.0)
        assert laptop.verify().ok and phone.verify().ok
        for mem in (laptop, phone):
            status = mem.sync.status()
            assert status["refused"] == [], status
            assert all(c["problem"] is None for c in status["chains"])
    finally:
        laptop.close()
        phone.close()
