"""A key's versions as the write path left them, for tests of change recognition."""

from __future__ import annotations

from typing import Any

from veramem_desktop.core.storage.items import MemoryItem

from veramem_desktop.memory import Memory


def say(mem: Memory, content: str, time: str) -> Any:
    """Add one user message said at ``time``."""
    return mem.add([{"role": "user", "content": content, "time": time}])


def versions(mem: Memory, subject: str, predicate: str) -> list[MemoryItem]:
    """Every memory of one key, oldest first."""
    found = [
        m for m in mem.memories(status=None, limit=500) if (m.subject, m.predicate) == (subject, predicate)
    ]
    return sorted(found, key=lambda m: (m.valid_from, m.id))


def current(mem: Memory, subject: str, predicate: str) -> list[str | None]:
    """The values of the key's active memories."""
    return [m.value for m in versions(mem, subject, predicate) if m.status == "active"]
