"""Fixtures of the invariant tests: the world (tests/invariants/world.py) in the test's own home."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from invariants import world as world_mod
from veramem_desktop.memory import Memory


@pytest.fixture
def world(isolated_home: Path) -> world_mod.World:
    """One row of each invariant case, written into this test's store (closed)."""
    return world_mod.build(isolated_home)


@pytest.fixture
def wmem(world: world_mod.World) -> Iterator[Memory]:
    """The world's store, open."""
    mem = world_mod.open_store(world.home)
    yield mem
    mem.close()
