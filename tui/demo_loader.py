"""Load the demonstration conversations through the facade (``memory.load_demo`` when it has one)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from veramem_desktop.memory import Memory


def load_demo_set(memory: Memory) -> list[Any]:
    """Add the demo conversations; returns one AddResult per conversation."""
    loader = getattr(memory, "load_demo", None)
    if callable(loader):
        result = loader()
        return list(result) if isinstance(result, (list, tuple)) else [result]
    from veramem_desktop.demo import load_demo

    return load_demo(memory)


def summarise(results: list[Any]) -> str:
    """'11 messages stored, 11 memories derived, 1 updated' from a list of AddResults."""
    episodes = sum(len(getattr(r, "episodes", []) or []) for r in results)
    added = sum(len(getattr(r, "added", []) or []) for r in results)
    updated = sum(len(getattr(r, "updated", []) or []) for r in results)
    text = f"{episodes} messages stored"
    if added:
        text += f", {added} memories derived"
    if updated:
        text += f", {updated} updated by a later message"
    return text
