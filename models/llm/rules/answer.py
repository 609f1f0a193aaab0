"""Rule-based extractive answers: cite the items that share the question's key words.

The answer is the cited items' best sentences, word for word; only ids from the given
items are ever cited. When no item shares a key word with the question, it abstains.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from veramem_desktop.core.llm import AnswerDraft, ContextItem
from veramem_desktop.models.llm.rules.text import content_stems, split_sentences

MAX_CITED = 3
ABSTAIN_TEXT = "No stored memory answers this."
# Words that frame a question rather than say what it is about.
_QUESTION_WORDS = {"user", "what", "when", "where", "who", "which", "how", "why", "tell", "know", "remember"}
_AUTHORITY_RANK = {"authorized": 3, "attested": 2, "unendorsed": 1}


def key_terms(question: str) -> set[str]:
    return {s for s in content_stems(question) if s not in _QUESTION_WORDS}


def answer(question: str, items: Sequence[ContextItem]) -> AnswerDraft:
    keys = key_terms(question)
    scored = []
    for position, item in enumerate(items):
        shared = keys & content_stems(item.text)
        if shared:
            scored.append((len(shared), _AUTHORITY_RANK.get(item.authority, 0), -position, item, shared))
    if not scored:
        return AnswerDraft(text=ABSTAIN_TEXT, abstained=True, sufficient=False)
    # Most key words first; among equals, what the user said before what others claimed.
    scored.sort(key=lambda row: row[:3], reverse=True)
    best = scored[0][0]
    floor = max(1, math.ceil(0.6 * best))
    cited = [row for row in scored if row[0] >= floor][:MAX_CITED]
    covered = set().union(*(row[4] for row in cited))
    text = " ".join(_best_sentence(row[3].text, keys) for row in cited)
    return AnswerDraft(
        text=text,
        cited_ids=tuple(row[3].id for row in cited),
        abstained=False,
        sufficient=len(covered) / len(keys) >= 0.5,
    )


def _best_sentence(text: str, keys: set[str]) -> str:
    """The sentence of ``text`` sharing most key words (the whole text when it is one sentence)."""
    spans = split_sentences(text)
    if len(spans) <= 1:
        return text.strip()
    return max(spans, key=lambda s: len(keys & content_stems(s.text))).text
