"""Devices for the sync tests: real encrypted stores, each with its own copy of the sync folder,
and a transport that copies files between those copies the way a file-sync engine would
(in any order, more than once, late, deletions included)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from veramem_desktop.core.curation import review
from veramem_desktop.core.errors import NotFoundError
from veramem_desktop.core.lifecycle import forget as forget_mod
from veramem_desktop.core.storage import episodes, grants, items, rejections
from veramem_desktop.core.storage.episodes import EpisodeInput, Scope
from veramem_desktop.core.storage.items import Evidence, MemoryItem
from veramem_desktop.core.storage.store import Store
from veramem_desktop.sync import batchfile, registry
from veramem_desktop.sync.envelope import open_batch, read_header
from veramem_desktop.sync.keys import AccountKey, DeviceIdentity
from veramem_desktop.sync.service import SyncService

USER = "u1"
OTHER_USER = "u2"  # a secondary user, the one the tests forget


@dataclass
class Device:
    name: str
    identity: DeviceIdentity
    store: Store
    folder: Path
    service: SyncService

    @property
    def id(self) -> str:
        return self.identity.device_id

    @property
    def ledger_device(self) -> str:
        return self.service.ledger_device

    # --- what a person does on this device (through the engine, no model needed) ---------
    def add(self, text: str, user: str = USER) -> str:
        with self.store.atomic() as conn:
            ep = episodes.insert(
                conn, [EpisodeInput(content=text)], Scope(user_id=user), device=self.ledger_device
            )[0]
            item = items.insert(
                conn,
                MemoryItem(id="", kind="fact", text=text, authority="authorized", user_id=user),
                [Evidence(ep.id, text, 0, len(text), 1.0, "user")],
                device=self.ledger_device,
            )
        return item.id

    def update(self, memory_id: str, text: str) -> str | None:
        with self.store.atomic() as conn:
            row = conn.execute(
                f"SELECT {items.ITEM_COLUMNS} FROM memory_items WHERE id = ?", (memory_id,)
            ).fetchone()
            if row is None or row[10] != "active":
                return None
            old = items.row_to_item(row)
            ep = episodes.insert(
                conn, [EpisodeInput(content=text)], Scope(user_id=USER), device=self.ledger_device
            )[0]
            new = MemoryItem(id="", kind="fact", text=text, authority="authorized", user_id=USER)
            return items.new_version(
                conn, old, new, [Evidence(ep.id, text, 0, len(text), 1.0, "user")], device=self.ledger_device
            ).id

    def feedback(self, memory_id: str, reward: float) -> bool:
        with self.store.atomic() as conn:
            row = conn.execute(
                "SELECT uses, successes, failures FROM memory_items WHERE id = ?", (memory_id,)
            ).fetchone()
            if row is None:
                return False
            items.set_fields(
                conn,
                memory_id,
                device=self.ledger_device,
                op="memory.outcome",
                uses=int(row[0]) + 1,
                successes=float(row[1]) + max(reward, 0.0),
                failures=float(row[2]) + max(-reward, 0.0),
            )
        return True

    def retract(self, memory_id: str) -> bool:
        with self.store.atomic() as conn:
            if (
                conn.execute(
                    "SELECT 1 FROM memory_items WHERE id = ? AND status = 'active'", (memory_id,)
                ).fetchone()
                is None
            ):
                return False
            items.set_fields(
                conn,
                memory_id,
                device=self.ledger_device,
                op="memory.retract",
                status="retracted",
                valid_to="2030-01-01T00:00:00.000000Z",
            )
        return True

    def forget(self, memory_id: str) -> list[str]:
        """Forget a memory; returns the texts that must disappear everywhere."""
        if self.store.query_one("SELECT 1 FROM memory_items WHERE id = ?", (memory_id,)) is None:
            return []
        plan = forget_mod.plan(self.store, memory_id)
        texts = [
            r[0]
            for r in self.store.query(
                f"SELECT text FROM memory_items WHERE id IN ({','.join('?' * len(plan.memories))})",
                plan.memories,
            )
        ]
        texts += [
            r[0]
            for r in self.store.query(
                f"SELECT content FROM episodes WHERE id IN ({','.join('?' * len(plan.episodes)) or 'NULL'})",
                plan.episodes,
            )
        ]
        forget_mod.forget(self.store, memory_id, device=self.ledger_device)
        return texts

    def reject(self, memory_id: str) -> bool:
        """A person rejects the memory (the review path: trust "rejected" plus the rejected-value ledger)."""
        if self.store.query_one("SELECT 1 FROM memory_items WHERE id = ?", (memory_id,)) is None:
            return False
        review.reject(self.store, memory_id, device=self.ledger_device, reason="wrong")
        return True

    def grant(self, user: str, agent: str) -> str:
        with self.store.atomic() as conn:
            return grants.grant(conn, "user_agent", user, agent, device=self.ledger_device).id

    def forget_user(self, user: str) -> list[str]:
        """Forget a whole user; returns the texts that must disappear everywhere."""
        texts = [r[0] for r in self.store.query("SELECT text FROM memory_items WHERE user_id = ?", (user,))]
        texts += [r[0] for r in self.store.query("SELECT content FROM episodes WHERE user_id = ?", (user,))]
        try:
            forget_mod.forget(self.store, f"user:{user}", device=self.ledger_device)
        except NotFoundError:  # nothing stored for that user here
            return []
        return texts

    def user_leftovers(self, user: str) -> dict[str, int]:
        """How many rows of ``user`` remain, per table that holds them."""
        return {
            "memories": self.store.query_one("SELECT count(*) FROM memory_items WHERE user_id = ?", (user,))[
                0
            ],
            "episodes": self.store.query_one("SELECT count(*) FROM episodes WHERE user_id = ?", (user,))[0],
            "grants": self.store.query_one(
                "SELECT count(*) FROM grants WHERE subject = ? OR object = ?", (user, user)
            )[0],
            "rejected_values": self.store.query_one(
                "SELECT count(*) FROM rejected_values WHERE user_id = ?", (user,)
            )[0],
        }

    def unrecorded_rejections(self) -> list[str]:
        """Memories here marked rejected whose value the rejected-value ledger does not know."""
        out = []
        with self.store.read() as conn:
            rows = conn.execute(
                f"SELECT {items.ITEM_COLUMNS} FROM memory_items WHERE trust = 'rejected'"
            ).fetchall()
            for row in rows:
                item = items.row_to_item(row)
                if not rejections.is_rejected(conn, item, item, item.text):
                    out.append(item.id)
        return out

    def memory_ids(self) -> list[str]:
        return [r[0] for r in self.store.query("SELECT id FROM memory_items ORDER BY id")]


def make_devices(root: Path, names: list[str]) -> list[Device]:
    """Devices already paired (pairing itself is tested on its own): one account key, every
    device trusts every other, each with its own copy of the sync folder."""
    identities = [DeviceIdentity.generate(n) for n in names]
    key = AccountKey.generate(1)
    out = []
    for name, identity in zip(names, identities, strict=True):
        folder = root / f"folder-{name}"
        folder.mkdir(parents=True)
        batchfile.init_folder(folder)
        store = Store.open(root / f"{name}.db", os.urandom(32), create=True)
        with store.atomic() as conn:
            registry.save_identity(conn, identity, str(folder))
            registry.add_key(conn, key)
            for other in identities:
                registry.add_device(conn, other.public)
        out.append(Device(name, identity, store, folder, SyncService(store, f"dev_{name}")))
    return out


def own_files(device: Device) -> list[Path]:
    """The files this device wrote in its copy of the folder (batches and grants)."""
    base = batchfile.device_dir(device.folder, device.id)
    return sorted(p for p in base.rglob("*") if p.is_file() and not p.name.startswith("."))


def deliver(src: Device, dst: Device, files: list[Path] | None = None) -> int:
    """Copy ``src``'s files into ``dst``'s copy of the folder; with ``files=None`` mirror them
    (deletions included). Returns how many files were copied."""
    base = batchfile.device_dir(src.folder, src.id)
    target_base = batchfile.device_dir(dst.folder, src.id)
    chosen = own_files(src) if files is None else files
    copied = 0
    for path in chosen:
        if not path.exists():
            continue
        target = target_base / path.relative_to(base)
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".~copy-{target.name}")
        shutil.copyfile(path, temp)
        os.replace(temp, target)
        copied += 1
    if files is None and target_base.is_dir():
        wanted = {p.relative_to(base) for p in own_files(src)}
        for path in list(target_base.rglob("*")):
            if path.is_file() and path.relative_to(target_base) not in wanted:
                path.unlink()
    return copied


def converge(devices: list[Device], rounds: int = 8) -> None:
    """Exchange, deliver everything everywhere, and repeat until an exchange after a full
    delivery moves nothing any more."""
    for d in devices:
        d.service.run()
    for _ in range(rounds):
        for src in devices:
            for dst in devices:
                if src is not dst:
                    deliver(src, dst)
        moved = 0
        for d in devices:
            report = d.service.run()
            moved += report.applied_events + report.exported_events + report.rewritten + int(report.rotated)
        if moved == 0:
            return
    raise AssertionError(f"the devices still exchange after {rounds} rounds")


def all_rows_text(store: Store) -> str:
    """Every row of every table of a store, as text (to look for erased content)."""
    parts = []
    for (name,) in store.query("SELECT name FROM sqlite_master WHERE type = 'table'"):
        try:
            parts.append(repr(store.query(f'SELECT * FROM "{name}"')))
        except Exception:  # FTS shadow tables that cannot be read directly
            continue
    return "\n".join(parts)


def folder_plaintext(device: Device) -> Iterator[str]:
    """The opened events of every batch file in ``device``'s copy of the folder, with its keys."""
    trusted = {d.public.device_id: d.public.verify_key for d in registry.devices(device.store)}
    for ref in batchfile.list_batches(device.folder):
        data = batchfile.read_batch(ref)
        header = read_header(data)
        key = registry.key_for(device.store, header.epoch, header.key_id)
        assert key is not None, f"{ref.path.name} is sealed with a key {device.name} no longer holds"
        opened = open_batch(data, {key.epoch: key}, trusted, set(), {}, require_contiguous=False)
        yield repr(opened.events)
