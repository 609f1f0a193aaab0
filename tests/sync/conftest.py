"""Devices and keys shared by the sync tests."""

from __future__ import annotations

import pytest
from veramem_desktop.sync.keys import AccountKey, DeviceIdentity


@pytest.fixture
def laptop() -> DeviceIdentity:
    return DeviceIdentity.generate("laptop")


@pytest.fixture
def phone() -> DeviceIdentity:
    return DeviceIdentity.generate("phone")


@pytest.fixture
def mallory() -> DeviceIdentity:
    """A party that can read and write the sync folder but was never paired."""
    return DeviceIdentity.generate("mallory")


@pytest.fixture
def key1() -> AccountKey:
    return AccountKey.generate(1)
