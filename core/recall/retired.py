"""What retired a hit ranks above it: the order rule for retractions stated by a message.

"I no longer work at Acme; I joined Globex last week." retracts the memory "User works at Acme", and
the message that said so (and the memory made from it, "User joined Globex …") is what holds now.
The truth stage (core/recall/truth.py) labels the retired hit with both (``retracted_by``,
``superseded_by``); this rule then places them above it, and leaves the retired hit in view.
"""

from __future__ import annotations

from veramem_desktop.core.recall.hits import Hit

#: how far above the retired hit what retired it is placed, below the subject's head
STEP = 1e-5


def retiring_above_retired(hits: list[Hit]) -> None:
    """Place the message that retracted a hit, and the memory that stands for the hit now, just above
    it when they rank lower; scores change, the order of everything else does not."""
    by_id = {h.id: h for h in hits}
    for h in sorted((h for h in hits if h.retracted_by), key=lambda h: -h.score):
        for other in (by_id.get(h.retracted_by or ""), by_id.get(h.superseded_by or "")):
            if other is not None and other is not h and other.score <= h.score:
                other.score = h.score + STEP
