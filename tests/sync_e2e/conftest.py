"""The sync end-to-end tests' helpers live in ``sync_e2e_helpers`` (importable from here); ``pair`` is two
paired devices, a and b, closed after the test."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from sync_e2e_helpers import Device, make_devices  # noqa: E402 (importable once the path is set)


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[list[Device]]:
    devices = make_devices(tmp_path, ["a", "b"])
    yield devices
    for d in devices:
        d.store.close()
