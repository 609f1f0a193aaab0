"""Which attribute a question asks, read from its meaning when its words name none.

core/recall/questions.py reads a question by the inventory's words: a frame's verb, a noun, a value.
People ask in words the inventory has no entry for ("who does my hair now?", "what antidepressant am I
on?", "who's our electricity retailer?"), and such a question asks nothing the asked stage
(core/recall/asked.py) can put first, so relevance alone orders the hits and an old statement may lead.
Then the nouns it asks about, said alone ("antidepressant"), and failing them the question's own vector (the
one the dense channel embedded) are compared with the inventory's descriptions
(core/attribute_vectors.py): the nearest attribute is what it asks when it is at least :data:`COSINE`
close and :data:`MARGIN` closer than the next one. The nouns come first because the rest of a question
("what … am I on now?") pulls its vector toward no attribute in particular. A question whose words read an
attribute, a person or a noun of the inventory is never read this way: its words decide.

The bounds were set on the development part of the truth-natural benchmark's questions, never its
held-out part: at them every question read this way was read as the attribute it asks (the misses
were questions left unread, "what class do I go to these days?" nearest to school by too little).
"""

from __future__ import annotations

from collections.abc import Sequence

from veramem_desktop.core import attributes
from veramem_desktop.core.attribute_vectors import descriptions
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.recall import questions

COSINE = 0.40
MARGIN = 0.10


def unread(question: str) -> bool:
    """Whether the question's words read no attribute, no person and no noun of the inventory."""
    if questions.asked(question) or questions.person_asked(question):
        return False
    return not questions.attributes_of_nouns(questions.asked_nouns(question))


def meant(question: str, vector: Sequence[float], embedder: Embedder) -> frozenset[str]:
    """The attribute ``question`` asks by its meaning (``vector`` is the question embedded by
    ``embedder``), as a set of one name; empty when its words read one or its meaning is not clear."""
    if not unread(question):
        return frozenset()
    # the nouns it asks about said alone come first: what is asked, without "what … am I on now?"
    phrase = questions.asked_phrase(question)
    for reading in [*embedder.embed([phrase])[:1], vector] if phrase else [vector]:
        found = attributes.nearest(reading, descriptions(embedder), threshold=COSINE, margin=MARGIN)
        if found is not None:
            return frozenset({found[0].name})
    return frozenset()
