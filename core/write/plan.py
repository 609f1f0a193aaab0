"""What the write path plans for each candidate.

``Writer.derive`` (core/write/derive.py) turns each candidate whose quote was found into a
:class:`Planned` entry with the decision reconciliation proposed; the batch guards
(core/write/guards.py) may change that decision; core/write/versions.py applies it and reports each
memory it touched in the write's result (core/write/results.py); core/write/decisions.py records
both for the training export. These values are shared by those stages, so they live apart from all
of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from veramem_desktop.core.llm import Candidate, Decision
from veramem_desktop.core.protocols import Vectors
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.items import Evidence, MemoryItem


@dataclass
class Planned:
    candidate: Candidate
    episode: Episode
    evidence: Evidence
    authority: str
    text: str
    vector: Vectors
    neighbours: list[tuple[MemoryItem, float]]
    decision: Decision
    folded: bool = False  # a DELETE absorbed by an UPDATE of the same memory in this batch
    resembles: str | None = None  # the rejected memory this candidate paraphrases
    corrects: str | None = None  # the wrong value this candidate corrects (core/write/correction_targets.py)
    #: the plan of the same add whose memory this one corrects or retracts (core/write/same_add.py)
    revises: Planned | None = None
    made: MemoryItem | None = None  # the memory this plan wrote, once applied (new, or a new version)


def norm(text: str) -> str:
    """A value as the guards compare it: lower case, one space between words, no final full stop."""
    return " ".join(text.lower().split()).rstrip(".")


def said_alike(a: str, b: str) -> bool:
    """Whether two values are one said more or less fully: the same words, or the shorter's words leading
    the longer's ("iPhone" and "iPhone 14", "Octopus" and "Octopus Energy")."""
    x, y = sorted((norm(a).split(), norm(b).split()), key=len)
    return bool(x) and y[: len(x)] == x
