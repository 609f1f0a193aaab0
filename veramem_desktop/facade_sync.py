"""The sync part of the ``Memory`` facade: ``sync_*`` methods over :mod:`veramem_desktop.sync.service`.

Pairing a new device takes two calls on it, so the one-time code can be shown in
between: ``sync_join_start`` (returns the code; the session stays in this object's
memory only) and ``sync_join_finish`` (waits for the approval).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veramem_desktop.core.errors import InvalidInputError

if TYPE_CHECKING:
    from veramem_desktop.core.storage.store import Store

    from .sync.pairing import JoinerSession
    from .sync.service import RunReport, SyncService


class SyncMixin:
    """Mixed into ``Memory``; needs ``store`` and ``device_id`` from it."""

    if TYPE_CHECKING:

        @property
        def store(self) -> Store: ...

        @property
        def device_id(self) -> str: ...

    _sync_service: SyncService | None = None
    _sync_join: tuple[Path, JoinerSession] | None = None

    @property
    def sync(self) -> SyncService:
        store = self.store
        if self._sync_service is None or self._sync_service.store is not store:  # reopened since
            from .sync.service import SyncService

            self._sync_service = SyncService(store, self.device_id)
        return self._sync_service

    def sync_init(self, folder: str | Path, name: str = "") -> dict[str, Any]:
        """Make this the first device of a sync account using ``folder`` (a folder a file-sync engine replicates)."""
        return self.sync.init(folder, name)

    def sync_join_start(self, folder: str | Path, name: str = "") -> str:
        """Ask to join through ``folder``; returns the one-time code to type on a trusted device."""
        session = self.sync.start_join(folder, name)
        self._sync_join = (Path(folder), session)
        return session.code.display()

    def sync_pairing_code(self) -> str | None:
        """The code of the join started by ``sync_join_start`` and not finished yet, if any."""
        return None if self._sync_join is None else self._sync_join[1].code.display()

    def sync_join_finish(
        self, *, timeout_s: float = 600.0, stop: Callable[[], bool] = lambda: False
    ) -> dict[str, Any]:
        """Wait for the approval of the join started by ``sync_join_start``, then exchange once."""
        if self._sync_join is None:
            raise InvalidInputError("No join in progress; start one with `veramem sync join FOLDER`.")
        folder, session = self._sync_join
        try:
            return self.sync.finish_join(folder, session, timeout_s=timeout_s, stop=stop)
        finally:
            self._sync_join = None

    def sync_approve(self, code: str, *, wait_s: float = 30.0) -> dict[str, Any]:
        """Approve the new device showing ``code`` (a human act: CLI or TUI only)."""
        return self.sync.approve(code, wait_s=wait_s)

    def sync_devices(self) -> list[dict[str, Any]]:
        return self.sync.devices()

    def sync_remove(self, device_id: str) -> dict[str, Any]:
        """Remove a device and rotate the sync key so it cannot read anything written after."""
        return self.sync.remove(device_id)

    def sync_run(self) -> RunReport:
        """Exchange once with the sync folder."""
        return self.sync.run()

    def sync_daemon(
        self,
        stop: threading.Event,
        *,
        scan_s: float = 30.0,
        on_run: Callable[[RunReport], None] = lambda _r: None,
        on_error: Callable[[Exception], None] = lambda _e: None,
    ) -> None:
        """Exchange whenever files arrive and every ``scan_s`` seconds until ``stop`` is set (blocks)."""
        self.sync.daemon(stop, scan_s=scan_s, on_run=on_run, on_error=on_error)

    def sync_status(self) -> dict[str, Any]:
        """Devices, last exchange, pending events, refused and waiting files with reasons, broken chains."""
        return self.sync.status()

    def sync_state_hash(self) -> str:
        """A hash of the replicated state; equal on devices that have exchanged everything."""
        from .sync.replica import state_hash

        return state_hash(self.store)
