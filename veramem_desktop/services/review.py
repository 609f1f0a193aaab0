"""Review of one open store, a person's act only (CLI and TUI; never offered to agents): the queue of
what needs a person, approval and rejection (core/curation/review.py)."""

from __future__ import annotations

from veramem_desktop.core.curation import review as review_mod
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.storage.store import Store


class Review:
    """The review queue of one open store, and approvals and rejections recorded as made on ``device``."""

    def __init__(self, store: Store, *, device: str) -> None:
        self.store = store
        self.device = device

    def queue(self, *, user_id: str | None = None) -> list[review_mod.ReviewItem]:
        """Active candidates that need a person (of ``user_id``, or anyone's): conflicts first, then
        lower-authority claims."""
        return review_mod.queue(self.store, user_id=user_id)

    def approve(self, memory_id: str) -> MemoryItem:
        """Mark a memory verified. For people only: never exposed to agents (MCP/REST)."""
        return review_mod.approve(self.store, memory_id, device=self.device)

    def reject(self, memory_id: str, reason: str = "") -> review_mod.Rejection:
        """Reject a memory: it, the memories saying the same and the messages holding its value are hidden
        from every recall, its value can never return, and an earlier version it replaced is current again."""
        return review_mod.reject(self.store, memory_id, device=self.device, reason=reason)
