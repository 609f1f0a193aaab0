"""What an import read, stored, skipped (and why) and derived (``Memory.import_history``): an
:class:`ImportReport`, filled batch by batch by the importer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from veramem_desktop.core.transfer.records import Problem

#: problems listed one by one in a report (all are counted)
PROBLEMS_LISTED = 1_000
#: the message counts of :meth:`ImportReport.counts`, in the order they are reported
COUNTS = ("read", "stored", "already_stored", "before_since", "empty", "bad", "forgotten")


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
    #: messages skipped because they are episodes a person forgot (core/trust/admission.py), and when
    forgotten: int = 0
    forgotten_on: list[str] = field(default_factory=list)

    @property
    def per_s(self) -> float:
        return round(self.stored / self.seconds, 1) if self.seconds else 0.0

    def counts(self) -> dict[str, int]:
        return self._fields(*COUNTS)

    def note_forgotten(self, dates: list[str]) -> None:
        """Count messages the admission gate refused as forgotten, and say so in one notice."""
        if not dates:
            return
        self.forgotten += len(dates)
        self.forgotten_on = sorted({*self.forgotten_on, *(d[:10] for d in dates)})
        notice = (
            f"{self.forgotten} skipped: you forgot {'it' if self.forgotten == 1 else 'them'} on "
            + ", ".join(self.forgotten_on)
        )
        self.notices[:] = [n for n in self.notices if " skipped: you forgot " not in n] + [notice]

    def problem(self, p: Problem) -> None:
        if p.kind == "empty":
            self.empty += 1
            return
        self.bad += 1
        if len(self.problems) < PROBLEMS_LISTED:
            self.problems.append(p.to_dict())

    def to_dict(self) -> dict[str, Any]:
        """What was imported, the counts, what came of it, and how fast: fields as they are but the time."""
        return {
            **self._fields("path", "format", "dry_run"),
            **self.counts(),
            **self._fields("problems", "sessions", "memories", "notices"),
            "seconds": round(self.seconds, 2),
            "per_s": self.per_s,
        }

    def _fields(self, *names: str) -> dict[str, Any]:
        return {name: getattr(self, name) for name in names}
