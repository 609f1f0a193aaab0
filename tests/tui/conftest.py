"""Fixtures for the terminal-app tests; helpers live in ``tui_support`` (importable from here)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
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


@pytest.fixture
def anyio_backend() -> str:
    """Async tests here run on asyncio, Textual's loop."""
    return "asyncio"
