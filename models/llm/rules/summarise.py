"""Rule-based summaries: every distinct sentence once, in the order given, within a length bound."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz import fuzz
from veramem_desktop.models.llm.rules.text import split_sentences, words

MAX_CHARS = 1500
_SAME = 92  # rapidfuzz ratio above which two sentences say the same thing


def summarise(texts: Sequence[str], max_chars: int = MAX_CHARS) -> str:
    """``texts`` are oldest first; a sentence whose words another already holds is dropped."""
    kept: list[str] = []
    for text in texts:
        for span in split_sentences(text):
            sentence = span.text if re.search(r"[.!?…]$", span.text) else f"{span.text}."
            _keep(kept, sentence)
    out: list[str] = []
    used = 0
    for i, sentence in enumerate(kept):
        if used + len(sentence) + 1 > max_chars and out:
            out.append(f"(+{len(kept) - i} more)")
            break
        out.append(sentence)
        used += len(sentence) + 1
    return " ".join(out)


def _keep(kept: list[str], sentence: str) -> None:
    mine = set(words(sentence))
    for i, other in enumerate(kept):
        theirs = set(words(other))
        if mine <= theirs or fuzz.ratio(sentence.casefold(), other.casefold()) >= _SAME:
            return  # already said
        if theirs < mine:
            kept[i] = sentence  # says the same and more: it takes the older one's place
            return
    kept.append(sentence)
