"""Sync between the person's devices, for one open store (``Memory.sync``), over
:mod:`veramem_desktop.sync.service`.

Pairing a new device takes two calls on it, so the one-time code can be shown in
between: ``join_start`` (returns the code; the session stays in this object's memory
only) and ``join_finish`` (waits for the approval).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.storage.store import Store

if TYPE_CHECKING:
    from ..sync.pairing import JoinerSession
    from ..sync.service import RunReport, SyncService
    from .organiser import Organiser


class DeviceSync:
    """The sync service of one open store, and the join this device has started (if any)."""

    def __init__(self, store: Store, *, device: str, organiser: Organiser) -> None:
        """``organiser``: the open store's, which links and embeds what an exchange applied."""
        from ..sync.service import SyncService  # loaded only when sync is used

        self.store = store
        self.organiser = organiser
        self.service: SyncService = SyncService(store, device)
        self._join: tuple[Path, JoinerSession] | None = None

    def reopened(self, store: Store, *, device: str, organiser: Organiser) -> DeviceSync:
        """The same for ``store`` (the facade's store was closed and opened again), keeping a join in progress."""
        again = DeviceSync(store, device=device, organiser=organiser)
        again._join = self._join
        return again

    def init(self, folder: str | Path, name: str = "") -> dict[str, Any]:
        """Make this the first device of a sync account using ``folder`` (a folder a file-sync engine replicates)."""
        return self.service.init(folder, name)

    def approve(self, code: str, *, wait_s: float = 30.0) -> dict[str, Any]:
        """Approve the new device showing ``code`` (a human act: CLI or TUI only)."""
        return self.service.approve(code, wait_s=wait_s)

    def devices(self) -> list[dict[str, Any]]:
        """The devices of the sync account."""
        return self.service.devices()

    def remove(self, device_id: str) -> dict[str, Any]:
        """Remove a device and rotate the sync key so it cannot read anything written after."""
        return self.service.remove(device_id)

    def status(self) -> dict[str, Any]:
        """Devices, last exchange, pending events, refused and waiting files with reasons, broken chains."""
        return self.service.status()

    def join_start(self, folder: str | Path, name: str = "") -> str:
        """Ask to join through ``folder``; returns the one-time code to type on a trusted device."""
        session = self.service.start_join(folder, name)
        self._join = (Path(folder), session)
        return session.code.display()

    def pairing_code(self) -> str | None:
        """The code of the join started by ``join_start`` and not finished yet, if any."""
        return None if self._join is None else self._join[1].code.display()

    def join_finish(
        self, *, timeout_s: float = 600.0, stop: Callable[[], bool] = lambda: False
    ) -> dict[str, Any]:
        if self._join is None:
            raise InvalidInputError("No join in progress; start one with `veramem sync join FOLDER`.")
        folder, session = self._join
        try:
            return self.service.finish_join(folder, session, timeout_s=timeout_s, stop=stop)
        finally:
            self._join = None

    def run(self) -> RunReport:
        """Exchange once; the organiser links and embeds what was applied, in the background."""
        report = self.service.run()
        self.organiser.noticed_sync(report)
        return report

    def daemon(
        self,
        stop: threading.Event,
        *,
        scan_s: float = 30.0,
        on_run: Callable[[RunReport], None] = lambda _r: None,
        on_error: Callable[[Exception], None] = lambda _e: None,
    ) -> None:
        """Exchange whenever files arrive and every ``scan_s`` seconds until ``stop`` is set (blocks); the
        organiser's linker drains what earlier adds and applied events queued."""
        self.organiser.start_linker()
        self.service.daemon(stop, scan_s=scan_s, on_run=self.organiser.after_sync(on_run), on_error=on_error)

    def state_hash(self) -> str:
        """A hash of the replicated state; equal on devices that have exchanged everything."""
        from ..sync.replica import state_hash

        return state_hash(self.store)
