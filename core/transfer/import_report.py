"""What an import read, stored, skipped (and why) and derived (``Memory.import_history``): an
:class:`ImportReport`, filled batch by batch by the importer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from veramem_desktop.core.transfer.records import Problem

#: problems listed one by one in a report (all are counted)
PROBLEMS_LISTED = 1_000


@dataclass
class ImportReport:
    """What an import read, stored, skipped (and why), and derived."""

    path: str
    format: str
    dry_run: bool = False
    read: int = 0
    stored: int = 0
    already_stored: int = 0
    before_since: int = 0
    empty: int = 0
    bad: int = 0
    problems: list[dict[str, str]] = field(default_factory=list)
    sessions: int = 0
    memories: dict[str, int] = field(
        default_factory=lambda: {"added": 0, "updated": 0, "retracted": 0, "unchanged": 0, "rejected": 0}
    )
    notices: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def per_s(self) -> float:
        return round(self.stored / self.seconds, 1) if self.seconds else 0.0

    def counts(self) -> dict[str, int]:
        return {
            "read": self.read,
            "stored": self.stored,
            "already_stored": self.already_stored,
            "before_since": self.before_since,
            "empty": self.empty,
            "bad": self.bad,
        }

    def problem(self, p: Problem) -> None:
        if p.kind == "empty":
            self.empty += 1
            return
        self.bad += 1
        if len(self.problems) < PROBLEMS_LISTED:
            self.problems.append(p.to_dict())

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "format": self.format,
            "dry_run": self.dry_run,
            **self.counts(),
            "problems": self.problems,
            "sessions": self.sessions,
            "memories": self.memories,
            "notices": self.notices,
            "seconds": round(self.seconds, 2),
            "per_s": self.per_s,
        }
