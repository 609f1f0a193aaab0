"""Fixtures for the terminal-app tests; helpers live in ``tui_support`` (importable from here)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import UTC, datetime, tzinfo
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from veramem_desktop.memory import Memory  # noqa: E402


@pytest.fixture
def demo_mem(mem: Memory) -> Iterator[Memory]:
    """The suite's store with the demo conversations added."""
    from veramem_desktop.demo import load_demo

    load_demo(mem)
    yield mem


class _Counter:
    """Stands in for ``os`` inside ``veramem_desktop.core.storage.ids``: random bytes from a counter."""

    def __init__(self) -> None:
        self.n = 0

    def urandom(self, size: int) -> bytes:
        self.n += 1
        return self.n.to_bytes(size, "big")


@pytest.fixture
def frozen_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ids and timestamps from a fixed clock and a counter, so snapshot screens do not change run to run.

    The clock stands still at 2024-11-01 09:00 UTC (a ticking one would depend on how many
    times other threads read it); ids stay ordered by their counter part.
    """
    from veramem_desktop.core.storage import ids

    moment = datetime(2024, 11, 1, 9, 0, tzinfo=UTC)

    class FrozenDatetime(datetime):
        @classmethod
        def now(cls, tz: tzinfo | None = None) -> datetime:  # type: ignore[override]
            return moment if tz is not None else moment.replace(tzinfo=None)

    monkeypatch.setattr(ids, "datetime", FrozenDatetime)
    monkeypatch.setattr(ids, "os", _Counter())


@pytest.fixture
def anyio_backend() -> str:
    """Async tests here run on asyncio, Textual's loop."""
    return "asyncio"
