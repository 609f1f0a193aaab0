"""Two paired devices that compute vectors differently (one keeps float32 compute, one computes in
int8) each find the other's memories by meaning after a sync, with no command: each device's
organiser makes the landed vectors again with its own model. Nothing of that is sent back, so the
exchange after it is quiet."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fixtures import PASSPHRASE
from support.internals import engine_of
from veramem_desktop.core.storage.access import Caller
from veramem_desktop.models.embedder import DEFAULT_MODEL_ID, FLOAT32_MODEL_ID

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

CAT = "My sister adopted a small grey cat last winter."
PASSPORT = "I keep my passport in the blue drawer of the desk."


def _config(compute: str) -> Config:
    config = Config()
    config.llm.backend = "rule-based"
    config.embedder.compute = compute  # empty: the store's vectors decide (int8 for a new store)
    return config


def _device(home: Path, compute: str) -> Memory:
    mem, _ = Memory.create(home, passphrase=PASSPHRASE, use_keyring=False, config=_config(compute))
    return mem


def _pair(laptop: Memory, phone: Memory, folder: Path) -> None:
    folder.mkdir(exist_ok=True)
    laptop.sync.init(folder, "laptop")
    code = phone.sync.join_start(folder, "phone")
    joined: dict[str, Any] = {}
    joiner = threading.Thread(target=lambda: joined.update(phone.sync.join_finish(timeout_s=60)))
    joiner.start()
    assert laptop.sync.approve(code, wait_s=30)["status"] == "added"
    joiner.join(60)
    assert joined.get("approved_by"), joined


@pytest.fixture
def paired(tmp_path: Path) -> Iterator[tuple[Memory, Memory]]:
    """A laptop computing in float32 and a phone computing in int8, paired through one folder."""
    laptop = _device(tmp_path / "laptop", "float32")
    phone = _device(tmp_path / "phone", "int8")
    try:
        _pair(laptop, phone, tmp_path / "shared")
        yield laptop, phone
    finally:
        laptop.close()
        phone.close()


def _settle(laptop: Memory, phone: Memory) -> None:
    """Exchange until a round moves nothing (the linkers' entries travel once), then check that the
    next round is quiet too: re-embedding wrote no ledger entry, so nothing travels back and forth,
    and no vector is made again."""
    for _ in range(6):
        for mem in (laptop, phone):
            assert mem.organiser.wait_for_links(60) and mem.organiser.wait_for_vectors(60)
        vectors = (laptop.measuring.vector_models(), phone.measuring.vector_models())
        reports = [mem.sync.run() for mem in (laptop, phone, laptop, phone)]
        if not any(r.exported_events or r.applied_events for r in reports):
            break
    else:
        raise AssertionError(f"the devices still exchange after 6 rounds: {reports}")
    assert laptop.organiser.wait_for_vectors(60) and phone.organiser.wait_for_vectors(60)
    assert (laptop.measuring.vector_models(), phone.measuring.vector_models()) == vectors
    assert laptop.organiser.vectors_behind() == {} and phone.organiser.vectors_behind() == {}
    assert laptop.sync.state_hash() == phone.sync.state_hash()
    assert laptop.verify().ok and phone.verify().ok


def _dense(mem: Memory, query: str) -> list[str]:
    _, scores, _ = engine_of(mem).rank(query, Caller("me"), route="facts", channels=("dense",))
    return sorted(scores, key=lambda i: -scores[i])


def _memory_id(mem: Memory, words: str) -> str:
    return next(m.id for m in mem.memories(user_id="me") if words in m.text)


def test_devices_computing_differently_each_find_the_others_memories_by_meaning_after_a_sync(
    paired: tuple[Memory, Memory],
) -> None:
    laptop, phone = paired
    assert laptop.embedder_name == FLOAT32_MODEL_ID and phone.embedder_name == DEFAULT_MODEL_ID
    laptop.add(CAT, user_id="me")
    phone.add(PASSPORT, user_id="me")
    for mem in (laptop, phone, laptop):  # the laptop's events reach the phone, then the phone's the laptop
        mem.sync.run()
    assert laptop.organiser.wait_for_vectors(60) and phone.organiser.wait_for_vectors(60)
    cat, passport = _memory_id(laptop, "cat"), _memory_id(phone, "passport")
    assert _memory_id(phone, "cat") == cat and _memory_id(laptop, "passport") == passport

    # by meaning, with no word in common: each device's dense channel finds the other's memory
    assert _dense(phone, "pet kitten")[0] == cat
    assert _dense(laptop, "where are my travel documents")[0] == passport
    assert laptop.organiser.vectors_behind() == {} and phone.organiser.vectors_behind() == {}

    _settle(laptop, phone)


def test_a_new_device_paired_to_a_float32_store_ends_on_one_model_and_finds_everything_by_meaning(
    tmp_path: Path,
) -> None:
    with _device(tmp_path / "laptop", "float32") as old:  # a store made before int8 compute
        old.add(CAT, user_id="me")
    laptop = Memory(tmp_path / "laptop", passphrase=PASSPHRASE, config=_config(""))
    phone = _device(tmp_path / "phone", "")
    try:
        assert laptop.embedder_name == FLOAT32_MODEL_ID and phone.embedder_name == DEFAULT_MODEL_ID
        _pair(laptop, phone, tmp_path / "shared")
        phone.add(PASSPORT, user_id="me")
        for mem in (laptop, phone, laptop):
            mem.sync.run()
        assert laptop.organiser.wait_for_vectors(60) and phone.organiser.wait_for_vectors(60)
        cat, passport = _memory_id(laptop, "cat"), _memory_id(phone, "passport")
        assert _dense(phone, "pet kitten")[0] == cat
        assert _dense(laptop, "where are my travel documents")[0] == passport
        _settle(laptop, phone)
        phone.close()
        # Opened again, the phone computes as its store's first vector was made: the laptop's older
        # message, float32. Its first exchange looks once, and its own int8-only messages and memories
        # get float32 vectors too, so the two devices end on one model and nothing needs making again.
        phone = Memory(tmp_path / "phone", passphrase=PASSPHRASE, config=_config(""))
        assert phone.embedder_name == FLOAT32_MODEL_ID
        assert phone.organiser.vectors_behind()
        assert phone.sync.run().applied_events == 0  # nothing new arrives: the first exchange looks anyway
        assert phone.organiser.wait_for_vectors(60) and phone.organiser.vectors_behind() == {}
        assert _dense(phone, "pet kitten")[0] == cat
        assert _dense(phone, "where are my travel documents")[0] == passport
        _settle(laptop, phone)
    finally:
        laptop.close()
        phone.close()


def test_the_sync_daemon_makes_landed_vectors_of_another_model_searchable_by_meaning(
    paired: tuple[Memory, Memory],
) -> None:
    laptop, phone = paired
    stop = threading.Event()
    daemon = threading.Thread(target=lambda: phone.sync.daemon(stop, scan_s=0.2), daemon=True)
    daemon.start()
    try:
        laptop.add(CAT, user_id="me")
        laptop.sync.run()
        cat = _memory_id(laptop, "cat")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
            phone.memories(user_id="me")
            and phone.organiser.wait_for_vectors(1)
            and phone.organiser.vectors_behind() == {}
        ):
            time.sleep(0.2)
        assert phone.organiser.vectors_behind() == {}, phone.organiser.vectors_behind()
        assert _dense(phone, "pet kitten")[0] == cat
    finally:
        stop.set()
        daemon.join(30)
    assert not daemon.is_alive()
