"""The messages an extraction reads, with names typed in lower case spelt as the person's history spells
them (core/text/truecase.py).

The history is the person's stored episodes (the newest :data:`WINDOW` of them that the visibility rule
shows), read once per process and then only what was stored since; an erased episode (a forget) makes
it read again, so a forgotten message never shapes how another is read. An import stores every message
before it derives any, so each message is read with the same history whatever the batch size, and after
a resume.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from veramem_desktop.core.llm import Message
from veramem_desktop.core.storage import episodes as episodes_mod
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.text.truecase import Casing

#: the newest episodes a history's casing is learnt from
WINDOW = 5_000


class HistoryCasing:
    """Each user's :class:`Casing`, learnt from their stored episodes and kept up to date."""

    def __init__(self, store: Store, *, enabled: bool = True) -> None:
        """``enabled`` False: messages are read as typed (the bench's ablation)."""
        self.store = store
        self.enabled = enabled
        self._lock = threading.Lock()
        #: user -> ((episodes counted, newest row read), casing)
        self._known: dict[str | None, tuple[tuple[int, int], Casing]] = {}

    def _of(self, user_id: str | None) -> Casing:
        """``user_id``'s casing, up to date with the store (read it under the lock: it is learnt in place)."""
        cached = self._known.get(user_id)
        seen = cached[0] if cached is not None else (0, 0)
        count, top, newer = episodes_mod.extent(self.store, user_id, seen[1])
        if cached is not None and seen == (count, top):
            return cached[1]
        casing, after = Casing(), 0
        if cached is not None and seen[0] + newer == count:  # only additions since: learn them too
            casing, after = cached[1], seen[1]
        for _, text in episodes_mod.texts_after(self.store, user_id, after, limit=WINDOW):
            casing.add(text)
        self._known[user_id] = ((count, top), casing)
        return casing

    def messages(self, episodes: Sequence[Episode]) -> list[Message]:
        """``episodes`` as an extraction reads them: a user's words also with names cased as their history
        spells them (``Message.cased``)."""
        if not self.enabled:
            return [Message(e.id, e.role, e.content, e.event_time, e.source_name) for e in episodes]
        out = []
        with self._lock:  # one thread learns the history at a time, and none reads it meanwhile
            casings = {user: self._of(user) for user in {e.user_id for e in episodes if e.role == "user"}}
            cased_texts = [
                casings[e.user_id].case(e.content) if e.role == "user" else e.content for e in episodes
            ]
        for e, cased in zip(episodes, cased_texts, strict=True):
            out.append(
                Message(
                    e.id,
                    e.role,
                    e.content,
                    e.event_time,
                    e.source_name,
                    cased if cased != e.content else None,
                )
            )
        return out
