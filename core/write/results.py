"""What an add returns (``Memory.add``, ``Memory.add_document``): the episodes stored and what was
derived from them, each memory with the reason for what happened to it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from veramem_desktop.core.storage.episodes import Episode


@dataclass
class AddResult:
    """What an add stored and derived, each with its reason."""

    episodes: list[Episode] = field(default_factory=list)
    added: list[dict[str, Any]] = field(default_factory=list)
    updated: list[dict[str, Any]] = field(default_factory=list)
    retracted: list[dict[str, Any]] = field(default_factory=list)
    unchanged: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    #: messages the admission gate refused because they are episodes a person forgot (core/trust/admission.py)
    forgotten: int = 0

    def to_dict(self) -> dict[str, Any]:
        out = {
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
