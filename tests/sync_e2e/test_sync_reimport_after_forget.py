"""Re-import after forget across two synced devices: the forgotten message comes back on neither.

Real encrypted stores and the real sync engine (``pair``: two paired devices, batches copied between
their folders as a file-sync engine would). Each device imports through the importer service, the
bulk write path ``veramem import`` runs. A forget on one device keeps content-free marks of the
episode; the same episode imported again on the other device under a new id is refused when it
arrives (and tombstoned, so the other device erases it too and keeps its own marks).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from support.fake_embedder import HashEmbedder
from sync_e2e_helpers import USER, Device, converge, deliver, make_devices
from veramem_desktop.core.lifecycle import forget as forget_mod
from veramem_desktop.core.storage import items
from veramem_desktop.core.storage.episodes import EpisodeInput, Scope
from veramem_desktop.core.storage.items import Evidence, MemoryItem
from veramem_desktop.core.storage.vectors import VectorIndex
from veramem_desktop.core.transfer.import_report import ImportReport
from veramem_desktop.core.write.derive import Writer
from veramem_desktop.core.write.ingest import store_episodes
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

from veramem_desktop.config import IdentitySettings
from veramem_desktop.services.importer import Importer

SECRET = "My locker code at the climbing gym is 4471."
OTHER = "We talked about the weather in Porto."


def _export(folder: Path) -> Path:
    """A ChatGPT export of one conversation: the secret, a reply, another message."""
    turns = [("user", SECRET), ("assistant", "Noted."), ("user", OTHER)]
    mapping: dict[str, dict[str, Any]] = {
        "root": {"id": "root", "message": None, "parent": None, "children": []}
    }
    parent = "root"
    for i, (role, text) in enumerate(turns):
        mapping[f"n{i}"] = {
            "id": f"n{i}",
            "parent": parent,
            "children": [],
            "message": {
                "id": f"m{i}",
                "author": {"role": role},
                "create_time": 1_700_000_000 + 60 * i,
                "content": {"content_type": "text", "parts": [text]},
            },
        }
        mapping[parent]["children"].append(f"n{i}")
        parent = f"n{i}"
    path = folder / "conversations.json"
    path.write_text(json.dumps([{"title": "gym", "mapping": mapping, "current_node": parent, "id": "c1"}]))
    return path


def _import(device: Device, path: Path, *, include_forgotten: bool = False) -> ImportReport:
    embedder = HashEmbedder()
    importer = Importer(
        device.store,
        embedder=lambda: embedder,
        writer=lambda: Writer(
            device.store,
            VectorIndex(embedder.name, embedder.dim).memory,
            embedder,
            RuleBasedLLM(),
            device=device.ledger_device,
        ),
        identity=IdentitySettings(user_id=USER),
        linking=False,
        device=device.ledger_device,
        organiser=cast(Any, None),  # linking is off: the organiser is never asked
    )
    return importer.import_history(path, include_forgotten=include_forgotten)


def _holding(device: Device, words: str) -> int:
    eps = device.store.query_one("SELECT count(*) FROM episodes WHERE content LIKE ?", (f"%{words}%",))[0]
    mems = device.store.query_one("SELECT count(*) FROM memory_items WHERE text LIKE ?", (f"%{words}%",))[0]
    return int(eps) + int(mems)


def _forget_secret(device: Device) -> None:
    [(episode_id,)] = device.store.query("SELECT id FROM episodes WHERE content LIKE '%locker code%'")
    forget_mod.forget(device.store, episode_id, device=device.ledger_device)


def test_forget_on_a_then_the_same_import_on_b_comes_back_on_neither(
    pair: list[Device], tmp_path: Path
) -> None:
    a, b = pair
    source = _export(tmp_path)
    assert _import(a, source).stored == 3
    _forget_secret(a)
    # b never saw the message: its import stores it under new ids
    assert _import(b, source).stored == 3 and _holding(b, "locker code") >= 1
    converge([a, b])
    assert _holding(a, "locker code") == 0 and _holding(b, "locker code") == 0
    assert _holding(a, "weather in Porto") >= 1 and _holding(b, "weather in Porto") >= 1
    # from now on both devices refuse it at the import and say so
    for device in (a, b):
        again = _import(device, source)
        assert again.stored == 0 and again.forgotten == 1
        assert any(n.startswith("1 skipped: you forgot it on ") for n in again.notices)
    converge([a, b])
    assert _holding(a, "locker code") == 0 and _holding(b, "locker code") == 0


def test_forget_on_a_after_a_sync_then_a_reimport_on_b_brings_nothing_back(
    pair: list[Device], tmp_path: Path
) -> None:
    a, b = pair
    source = _export(tmp_path)
    _import(a, source)
    converge([a, b])
    assert _holding(b, "locker code") >= 1
    _forget_secret(a)
    _import(b, source)  # before the forget reaches b
    converge([a, b])
    assert _holding(a, "locker code") == 0 and _holding(b, "locker code") == 0
    again = _import(b, source)
    assert again.stored == 0 and again.forgotten == 1


def test_a_device_that_never_held_the_message_refuses_its_import_once_the_forget_arrived(
    pair: list[Device], tmp_path: Path
) -> None:
    """The forget's tombstone carries the episode's marks under the key the devices share (sent, sealed,
    with the ledger entry that made it), so b refuses the import itself, with no round trip."""
    a, b = pair
    source = _export(tmp_path)
    _import(a, source)
    _forget_secret(a)
    converge([a, b])
    report = _import(b, source)
    assert (
        report.forgotten == 1 and report.already_stored == 2 and report.stored == 0
    )  # the rest came by sync
    assert _holding(b, "locker code") == 0 and _holding(b, "weather in Porto") >= 1
    shared = [k for (k,) in b.store.query("SELECT key_id FROM admission_keys") if k.startswith("shared:")]
    assert shared and shared == [
        k for (k,) in a.store.query("SELECT key_id FROM admission_keys") if k.startswith("shared:")
    ]


def test_the_same_words_typed_later_on_b_are_stored_and_synced(pair: list[Device], tmp_path: Path) -> None:
    a, b = pair
    source = _export(tmp_path)
    _import(a, source)
    _forget_secret(a)
    converge([a, b])
    embedder = HashEmbedder()
    store_episodes(
        b.store, embedder, [EpisodeInput(content=SECRET)], Scope(user_id=USER), device=b.ledger_device
    )
    converge([a, b])
    assert _holding(a, "locker code") == 1 and _holding(b, "locker code") == 1


def test_a_person_letting_it_back_in_on_a_is_kept_on_both_devices(pair: list[Device], tmp_path: Path) -> None:
    """--include-forgotten is a person's act: the other device's gate lets the episode in too."""
    a, b = pair
    source = _export(tmp_path)
    _import(a, source)
    _forget_secret(a)
    converge([a, b])
    assert _import(a, source, include_forgotten=True).stored == 1
    converge([a, b])
    assert _holding(a, "locker code") >= 1 and _holding(b, "locker code") >= 1


def test_an_override_travels_on_in_another_devices_memory(tmp_path: Path) -> None:
    """B lets the message in again. A, which received it from B, cites it in a memory of its own, and that
    memory's event ships the episode along: C (which hears only from A) lets it in, because A's event
    carries the override too, and B does not refuse its own episode coming back."""
    devices = make_devices(tmp_path / "three", ["a", "b", "c"])
    a, b, c = devices
    try:
        source = _export(tmp_path)
        _import(b, source)
        _forget_secret(b)
        converge(devices)
        assert _import(b, source, include_forgotten=True).stored == 1
        b.service.run()
        deliver(b, a)
        a.service.run()
        [(episode_id,)] = a.store.query("SELECT id FROM episodes WHERE content LIKE '%locker code%'")
        with a.store.atomic() as conn:
            items.insert(
                conn,
                MemoryItem(id="", kind="fact", text=SECRET, authority="authorized", user_id=USER),
                [Evidence(episode_id, SECRET, 0, len(SECRET), 1.0, "user")],
                device=a.ledger_device,
            )
        a.service.run()
        for other in (b, c):
            deliver(a, other)
            other.service.run()
        assert _holding(c, "locker code") >= 2, "C let the episode and the memory in"
        assert _holding(b, "locker code") >= 2, "B kept its own episode"
        converge(devices)
        for d in devices:
            assert _holding(d, "locker code") >= 2, d.name
    finally:
        for d in devices:
            d.store.close()
