"""Finding, making and opening the store of one home: its file, its key information and the settings.

A store that was made here (its file, its key information or the settings say so) is opened or
refused with the reason (damaged, emptied, a missing file), never replaced by a new empty one;
only ``veramem init --force`` starts again, and keeps the old files aside first. The key is
loaded (keyring, passphrase or recovery code) and checked against the key information before
the file is opened, so a file that then does not decrypt is reported as damaged, not as a
wrong key.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veramem_desktop.core.errors import (
    InvalidInputError,
    NotInitialisedError,
    StoreDamagedError,
    WrongKeyError,
)
from veramem_desktop.core.storage import ledger_verify, stats
from veramem_desktop.core.storage.ids import new_id
from veramem_desktop.core.storage.store import Store, file_problem

from ..config import Config, Paths, save_config
from ..keys import KeyManager, NewKey

if TYPE_CHECKING:
    from .head_start import HeadStart


class Opening:
    """The store at ``paths`` (or the settings' ``store_path``), opened with the keys of ``keys``."""

    def __init__(
        self, paths: Paths, config: Config, keys: KeyManager, head_start: HeadStart | None = None
    ) -> None:
        self.paths = paths
        self.config = config
        self.keys = keys
        self.head_start = head_start  # the key may have been loaded already (services/head_start.py)

    @property
    def store_path(self) -> Path:
        return Path(self.config.store_path) if self.config.store_path else self.paths.store

    def evidence(self) -> list[str]:
        """What says a store was made here (file names and settings), empty for a fresh home."""
        found = [str(p) for p in (self.store_path, self.paths.keyinfo) if p.exists()]
        if self.config.llm.detected:  # recorded by `veramem init` only
            found.append(f"the settings ({self.paths.config_file}), written by `veramem init`")
        if self.config.sync_folder:
            found.append(f"the sync set-up ({self.config.sync_folder})")
        return found

    def missing_part(self) -> str:
        """Why a store that was made here cannot be opened as files stand, or "" when both files are there."""
        if self.store_path.exists() and self.paths.keyinfo.exists():
            return ""
        if self.paths.keyinfo.exists():
            return f"its file {self.store_path} is missing, though its key information {self.paths.keyinfo} is there"
        if self.store_path.exists():
            return (
                f"its key information {self.paths.keyinfo} is missing (`veramem unlock --recovery-code` "
                "writes it again)"
            )
        said = " and ".join(e for e in self.evidence())
        return (
            f"its file {self.store_path} and its key information are missing, though {said} say so "
            "(is the folder on a drive that is not mounted?)"
        )

    def create(
        self, *, passphrase: str | None, use_keyring: bool | None, force: bool
    ) -> tuple[Store, NewKey]:
        """A new store, open, with its recovery code; see ``Memory.create`` (``force`` keeps old files aside)."""
        if self.evidence() and not force:
            missing = self.missing_part()
            problem = file_problem(self.store_path) if not missing else ""
            if not missing and not problem:
                raise InvalidInputError(f"A store already exists at {self.store_path}. Nothing was changed.")
            raise StoreDamagedError(
                f"A store was made here before, but {missing or f'{self.store_path} is damaged ({problem})'}. "
                "Nothing was changed. Restore it from a backup (`veramem restore PATH`) or a synced device, or run "
                "`veramem init --force` "
                "to start a new empty store (the old files are kept aside)."
            )
        self.paths.ensure()
        if force:
            self.keep_aside()
        new_key = self.keys.create(passphrase=passphrase, use_keyring=use_keyring)
        store = Store.open(self.store_path, new_key.key, create=True)
        store.set_meta("device_id", new_id("dev"))
        store.set_meta("store_id", self.keys.describe()["store_id"])
        save_config(self.paths, self.config)
        return store, new_key

    def keep_aside(self) -> list[Path]:
        """Rename the store's files (and its WAL) to ``<name>.replaced-<UTC time>``; returns the new names."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        moved = []
        wal, shm = (self.store_path.with_name(self.store_path.name + s) for s in ("-wal", "-shm"))
        for path in (self.store_path, wal, shm, self.paths.keyinfo):
            if path.exists():
                target = path.with_name(f"{path.name}.replaced-{stamp}")
                path.rename(target)
                moved.append(target)
        return moved

    def open(self, passphrase: str | None) -> Store:
        """The store made here, opened with its key (NotInitialisedError, StoreDamagedError or a key error
        saying why not)."""
        if not self.evidence():
            raise NotInitialisedError(
                f"There is no VeraMem store at {self.store_path}. Run `veramem init` to create one."
            )
        missing = self.missing_part()
        if missing:
            raise StoreDamagedError(
                f"A store was made here, but {missing}. Nothing was changed. Restore it from a backup "
                "(`veramem restore PATH`) or a "
                "synced device, or run `veramem init --force` to start a new empty store."
            )
        key = self._early_key() if not passphrase else None
        if key is None:
            key = self.keys.load(passphrase=passphrase)
        try:
            return Store.open(self.store_path, key)
        except WrongKeyError:
            # The key was confirmed against the key information, so the file is at fault.
            raise StoreDamagedError(
                f"{self.store_path} is not a VeraMem store or is damaged: the key is right but the file "
                "does not decrypt. Nothing was changed. Restore it from a backup (`veramem restore PATH`) "
                "or a synced device."
            ) from None

    def _early_key(self) -> bytes | None:
        """The key the head start loaded (as ``keys.load()`` loads it with no passphrase given), or None."""
        early = self.head_start.key if self.head_start is not None else None
        return early.key_for(self.paths.keyinfo) if early is not None else None

    def recover(self, code: str, *, new_passphrase: str | None) -> bytes:
        """The store's key from its recovery code (its key information written again); see
        ``Memory.unlock_with_recovery_code``."""

        def open_store(key: bytes) -> str:  # confirms the code when the key information is damaged
            store = Store.open(self.store_path, key)
            try:
                return store.get_meta("store_id") or str(uuid.uuid4())
            finally:
                store.close()

        return self.keys.recover(code, new_passphrase=new_passphrase, open_store=open_store)

    def open_with(self, key: bytes) -> Store:
        """The store opened with ``key`` (one that :meth:`recover` gave)."""
        return Store.open(self.store_path, key)

    def status(self, opened: Callable[[], tuple[Store, str]]) -> dict[str, Any]:
        """Where the store is, what it holds, and whether its ledger verifies (incrementally, from its
        checkpoint: ``verify`` re-checks everything). ``opened`` opens it and gives its device id, asked for
        only when a store was made here; for a fresh home the report says it does not exist."""
        if not self.evidence():
            return {"store": str(self.store_path), "exists": False}
        store, device_id = opened()
        counts = stats.status_counts(store)
        report = ledger_verify.verify_from_checkpoint(store)  # incremental; `verify` re-checks everything
        return {
            "store": str(self.store_path),
            "exists": True,
            "key": self.keys.describe()["mode"],
            "schema_version": store.schema_version(),
            "size_bytes": os.path.getsize(self.store_path),
            "counts": counts,
            "ledger": report.to_dict(),
            "device_id": device_id,
        }
