"""What a write returns: the episodes it stored and what was derived from them, each memory with the
reason for what happened to it.

One type for every path that derives memories: ``Memory.add`` and ``Memory.add_document`` return it,
``Writer.derive`` (core/write/derive.py) fills it in as it applies each plan (core/write/versions.py),
and an import derives its batches into it before counting them (services/import_derive.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from veramem_desktop.core.storage.episodes import Episode


class Entry(TypedDict):
    """One line of a write's result: a memory it wrote or touched, or a candidate it turned away, and why.

    An entry naming a memory has its ``id``, ``kind`` and ``authority`` (and, for an update, the
    ``previous`` version); a candidate turned away, or one folded into another plan, has the
    ``episode_id`` it came from and, when its quote was the trouble, the ``quote``.
    """

    text: str
    reason: str
    id: NotRequired[str]
    kind: NotRequired[str]
    authority: NotRequired[str]
    previous: NotRequired[str]
    episode_id: NotRequired[str]
    quote: NotRequired[str]


#: the lists of a result that name memories and candidates, in the order they are reported
ENTRY_LISTS = ("added", "updated", "retracted", "unchanged", "rejected")


@dataclass
class AddResult:
    """What a write stored and derived, each with its reason."""

    episodes: list[Episode] = field(default_factory=list)
    added: list[Entry] = field(default_factory=list)
    updated: list[Entry] = field(default_factory=list)
    retracted: list[Entry] = field(default_factory=list)
    unchanged: list[Entry] = field(default_factory=list)
    rejected: list[Entry] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    #: messages the admission gate refused because they are episodes a person forgot (core/trust/admission.py)
    forgotten: int = 0

    def extend(self, other: AddResult) -> None:
        """Add ``other``'s memories, candidates and notices to this result's (a batch derived in parts)."""
        for name in ENTRY_LISTS:
            getattr(self, name).extend(getattr(other, name))
        self.notices.extend(other.notices)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "episodes": [
                {
                    "id": e.id,
                    "role": e.role,
                    "session_id": e.session_id,
                    "event_time": e.event_time,
                    "sha256": e.sha256,
                }
                for e in self.episodes
            ],
            "added": self.added,
            "updated": self.updated,
            "retracted": self.retracted,
            "unchanged": self.unchanged,
            "rejected": self.rejected,
            "notices": self.notices,
        }
        if self.forgotten:
            out["skipped_forgotten"] = self.forgotten
        return out
