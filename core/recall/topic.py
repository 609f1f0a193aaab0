"""The question as the dense channels ask it: whole, or as its topic.

A small sentence embedder reads a question's form as much as its subject: "What exercises has John
done?" lies near other questions about John, and the turn that answers it ("John: I'm doing
kickboxing") lies near the word "exercise" rather than near the question. Embedding the question's
content words alone, without the question words and without the speakers' names (every turn
carries its speaker's name, and the speaker rule already ranks a named speaker's turns), gives the
*topic* ("exercises done"), which lies nearer the turns that hold instances of it. A question that
names no speaker is asked whole, so an ordinary search still embeds one text.

``SearchConfig.topic_channels`` names the dense channels ("episode:dense", "episode:dense_ctx",
"memory:dense", "memory:memory_ctx") asked by the topic; the others are asked by the whole question. Each distinct text is embedded once, on the dense channel's threads, while
the lexical channels run. What is ranked is decided by the channels' own reads (access predicate in
their SQL); this module only chooses which text is embedded.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from concurrent.futures import Future

import numpy as np
import numpy.typing as npt
from veramem_desktop.core.recall.dense import Dense
from veramem_desktop.core.text.terms import content_terms


def topic_text(query: str, drop: Collection[str]) -> str | None:
    """The question's content words in order, without ``drop`` (lower-case speakers' names), joined by
    spaces, when the question names one of them; None when it names none or nothing else is left (the
    whole question is asked then, embedded once for every channel)."""
    words = content_terms(query)
    terms = [t for t in words if t not in drop]
    return " ".join(terms) if terms and len(terms) < len(words) else None


class QueryVectors:
    """The vectors the dense channels rank by, started at once on the embedding threads: the whole
    question's, and the topic's when a channel of ``topic_channels`` is among ``channels``."""

    def __init__(
        self,
        dense: Dense,
        query: str,
        channels: Iterable[str],
        topic_channels: Collection[str],
        drop: Collection[str],
    ) -> None:
        channels = list(channels)
        topic = topic_text(query, drop) if set(topic_channels) & set(channels) else None
        self._text = {c: topic if c in topic_channels and topic else query for c in channels}
        self._futures: dict[str, Future[npt.NDArray[np.float32]]] = {
            text: dense.embedding(text) for text in dict.fromkeys(self._text.values())
        }

    def of(self, channel: str) -> npt.NDArray[np.float32] | None:
        """The vector ``channel`` ("unit:channel") ranks by (None for a channel that was not asked for)."""
        text = self._text.get(channel)
        return None if text is None else self._futures[text].result()[0]

    def first(self) -> npt.NDArray[np.float32] | None:
        """The vector of the first channel asked for (the second hop moves it towards its seeds)."""
        return self.of(next(iter(self._text))) if self._text else None
