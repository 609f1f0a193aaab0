"""Driving Textual apps in tests: wait for the work a key press started."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until every worker has finished and its result message has been handled."""
    from textual.worker import WorkerCancelled, WorkerFailed

    for _ in range(4):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerFailed:
            pass  # a failed call is reported by the app; the test checks what the person sees
        except WorkerCancelled:
            pass  # an exclusive worker replaced by a newer one: the newer one is awaited next round
        await pilot.pause()


__all__ = ["settle"]
