"""Rule-based reconciliation from the neighbours' keys and cosines.

In order: a candidate that says something stopped being true (a retraction as the engine reads
them, core/write/retraction_forms.py) retracts the neighbour it negates (DELETE); a new value for a neighbour's subject and single-valued predicate
replaces it (UPDATE), unless that neighbour is an event: "User moved to Lisbon in March"
stays true after "User lives in Porto now", so the new state is added beside it; a
near-identical neighbour (cosine above 0.95) or the same attribute and value means
nothing new (NOOP); anything else is new (ADD).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from veramem_desktop.core.llm import Candidate, Decision, Neighbour, multi_valued
from veramem_desktop.core.vocabulary import Kind
from veramem_desktop.core.write import retraction_forms as retractions
from veramem_desktop.models.llm.rules.text import NEGATION, content_stems, is_negated

NOOP_COSINE = 0.95
NEGATES_COSINE = 0.6  # how close a neighbour must be, by meaning, for a negation to retract it
NEGATES_OVERLAP = 0.5  # or the share of the candidate's content words it must contain

OPPOSITES = {"likes": "dislikes", "dislikes": "likes"}


def _norm(value: str | None) -> str:
    value = unicodedata.normalize("NFKC", value or "").casefold()
    value = re.sub(r"^(?:the|a|an)\s+", "", value.strip())
    return " ".join(re.sub(r"[^\w\s:/-]", " ", value).split())


def _same_subject(candidate: Candidate, neighbour: Neighbour) -> bool:
    return bool(candidate.subject) and _norm(candidate.subject) == _norm(neighbour.subject)


def _negated_target(
    candidate: Candidate, neighbours: Sequence[Neighbour], found: retractions.Retraction
) -> Neighbour | None:
    """The neighbour a retracting candidate talks about: same attribute and value, else closest words
    among those that hold the thing that stopped ("my seat" is not "tennis")."""
    for n in neighbours:
        same_key = _same_subject(candidate, n) and _norm(candidate.predicate) in (
            _norm(n.predicate),
            OPPOSITES.get(_norm(n.predicate), "\0"),
        )
        if same_key and _norm(candidate.value) == _norm(n.value):
            return n
    words = content_stems(NEGATION.sub(" ", candidate.text)) - {"user"}
    best: tuple[float, Neighbour] | None = None
    for n in neighbours:
        overlap = len(words & content_stems(n.text)) / len(words) if words else 0.0
        close = overlap >= NEGATES_OVERLAP or n.cosine >= NEGATES_COSINE
        if close and not is_negated(n.text) and retractions.holds_thing(found, n.text):
            score = overlap + n.cosine
            if best is None or score > best[0]:
                best = (score, n)
    return best[1] if best else None


def reconcile(candidate: Candidate, neighbours: Sequence[Neighbour]) -> Decision:
    found = retractions.read(candidate.quote) or retractions.read(candidate.text)
    if found is not None:  # a retraction, in one of the forms core/write/retraction_forms.py reads
        target = _negated_target(candidate, neighbours, found)
        if target is not None:
            return Decision("DELETE", target.id, reason="the new statement says this is no longer true")
    by_cosine = sorted(neighbours, key=lambda n: n.cosine, reverse=True)
    if candidate.predicate and candidate.value:
        predicate, value = _norm(candidate.predicate), _norm(candidate.value)
        for n in by_cosine:
            if not _same_subject(candidate, n) or not n.value:
                continue
            their = _norm(n.predicate)
            if their == predicate and _norm(n.value) == value:
                return Decision("NOOP", n.id, reason="the same attribute with the same value is stored")
            if their == predicate and not multi_valued(predicate) and n.kind != Kind.EVENT:
                return Decision(
                    "UPDATE", n.id, candidate.text, reason=f"a new value for {candidate.predicate}"
                )
            if OPPOSITES.get(predicate) == their and _norm(n.value) == value:
                return Decision(
                    "UPDATE", n.id, candidate.text, reason=f"{candidate.predicate} replaces {n.predicate}"
                )
    if by_cosine and by_cosine[0].cosine > NOOP_COSINE:
        return Decision("NOOP", by_cosine[0].id, reason=f"near-identical (cosine {by_cosine[0].cosine:.2f})")
    return Decision("ADD", reason="nothing stored says this")
