"""An ending statement retracts the current value it ends.

A candidate keyed with ``ends`` ("I quit the climbing gym", "I handed in my notice", "gave up on
Italian", "our cat Miso died") says a value of an attribute stopped holding. Whatever the wording,
the key says which memory that is: the current memory of the same person and attribute whose value
the statement names (for a single-valued attribute, the one current value when it names none).
The write path retracts it (core/write/derive.py); when no such memory is stored, the statement is
kept as a memory without a key, so it never stands as the attribute's current value.
Pure functions over the memories the writer offers: no SQL, no model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from veramem_desktop.core.attributes import canonical, is_multi_valued
from veramem_desktop.core.llm import Candidate, Decision
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.vocabulary import Kind, Status
from veramem_desktop.core.write import retraction_targets
from veramem_desktop.core.write.results import AddResult

#: the reason of the retraction this step plans
REASON = "the statement says this ended"
_WORD = re.compile(r"[^\W_]+")
_FUNCTION_WORDS = frozenset({"the", "a", "an", "my", "our", "his", "her", "their", "its"})


def ended(cand: Candidate, neighbours: Sequence[tuple[MemoryItem, float]]) -> tuple[MemoryItem, float] | None:
    """The current memory ``cand`` ends (the newest of several), or None. An ending that names a value
    but no attribute ("Emacs is gone", "Harcourt closed down") ends the person's current memory of any
    attribute whose value is that name."""
    if not (cand.ends and cand.subject and (cand.predicate or cand.value)):
        return None
    predicate = canonical(cand.predicate) if cand.predicate else None
    same = [
        (m, cos)
        for m, cos in neighbours
        if m.status == Status.ACTIVE
        and m.kind != Kind.EVENT
        and (m.subject or "").casefold() == cand.subject.casefold()
        and m.predicate
        and (predicate is None or canonical(m.predicate) == predicate)
    ]
    if predicate is None:
        said = _words(cand.value or "")
        same = [(m, cos) for m, cos in same if said and said <= _words(m.value or "")]
        return max(same, key=lambda p: (p[0].valid_from or "", p[0].id)) if same else None
    if cand.value:
        said = _words(cand.value)
        same = [(m, cos) for m, cos in same if said and said <= _words(m.value or "") | _words(m.text)]
    elif is_multi_valued(predicate):
        return None  # "I quit" names none of several values
    return max(same, key=lambda p: (p[0].valid_from or "", p[0].id)) if same else None


def reconciled(
    cand: Candidate,
    text: str,
    ep: Episode,
    pool: Callable[[], Sequence[tuple[MemoryItem, float]]],
    neighbours: list[tuple[MemoryItem, float]],
    decide: Callable[[Candidate, str, list[tuple[MemoryItem, float]], AddResult], Decision],
    out: AddResult,
) -> tuple[Candidate, Decision, retraction_targets.Retracted | None]:
    """Reconciliation's decision (``decide``, reporting in ``out``), then the engine's own readings: a retraction in the
    speaker's words (core/write/retraction_targets.py), and an ending statement's key, which retracts the current
    value it ends; an ending statement with nothing to end loses its key. Returns the candidate as
    planned, the decision and a retraction to plan beside it."""
    end = ended(cand, neighbours) if cand.ends else None
    if cand.ends and end is None:
        cand = unkeyed(cand)
    elif end is not None and not cand.predicate:
        cand = replace(cand, predicate=end[0].predicate)  # the attribute of the value it ends
    decision = decide(cand, text, neighbours, out)
    decision, apart = retraction_targets.decided(cand, text, ep, pool, neighbours, decision)
    if end is not None and decision.op != "DELETE":
        decision = Decision("DELETE", end[0].id, reason=REASON)
    return cand, decision, apart


def unkeyed(cand: Candidate) -> Candidate:
    """An ending statement with nothing stored to end: kept as words, never as the attribute's value."""
    return replace(cand, subject=None, predicate=None, value=None, ends=False)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if w not in _FUNCTION_WORDS}
