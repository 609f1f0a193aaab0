"""The access-checked reads behind every recall channel, one call per unit (memories, episodes). Their
SQL lives in the repositories (core/storage/item_search.py, episode_contents.py, index_rows.py): each
query there that returns rows a caller could be shown carries the access predicate
(core/storage/access.py) in its own SQL, never as a post-filter (invariant 6).

- the ids a caller may see (the rows the dense channel scores), cached per store version;
- the BM25 and entity channels' candidates (the words and names to match come from
  core/recall/lexical.py);
- the words of given rows, their speakers and neighbouring turns, the latest event time, the
  dates of given turns, the typed links from given memories and the turns they cite.

It also keeps the store's data version as the channels see it: this engine's own trace writes
do not move it, so every cache built on it (here and in the dense and lexical channels) stays
valid across them.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from veramem_desktop.core.storage import (
    episode_contents,
    episode_turns,
    index_rows,
    item_evidence,
    item_search,
    link_rows,
)
from veramem_desktop.core.storage.access import Caller, Sight
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.text.link_types import LINK_TYPES

V = TypeVar("V")


def keep_per_minute(cache: dict[tuple[Any, ...], V], key: tuple[Any, ...], value: V) -> None:
    """Keep ``value`` under ``key``, whose last part is the minute it was made in, dropping the entries of
    earlier minutes with the same rest of the key; past 64 entries the cache starts over. The caller
    holds the lock that guards ``cache``."""
    if len(cache) > 64:
        cache.clear()
    for older in [k for k in cache if k[:-1] == key[:-1]]:
        del cache[older]
    cache[key] = value


class Candidates:
    """The candidate reads of one store, with the access predicate in each one's SQL. Holds the
    per-caller allowed sets, speakers and latest event times, each valid for one store version."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._allowed: dict[tuple[Any, ...], tuple[int, list[str]]] = {}
        self._speakers: dict[tuple[Any, ...], tuple[int, tuple[str, ...]]] = {}
        self._latest: dict[tuple[Any, ...], tuple[int, str | None]] = {}
        #: (version before, version after) this engine's last trace write, when nothing else wrote
        self._alias: tuple[int, int] | None = None
        self._lock = threading.Lock()
        #: the version one search of this thread read at its start (see :meth:`pinned`)
        self._pinned = threading.local()

    def version(self) -> int:
        """The store's data version, except that this engine's own trace writes do not move it:
        a trace changes no memory, episode, vector or grant, so every cache stays valid. Inside
        :meth:`pinned`, the version read when it began."""
        pinned: int | None = getattr(self._pinned, "version", None)
        if pinned is not None:
            return pinned
        raw = self.store.data_version()
        with self._lock:
            alias = self._alias
        return alias[0] if alias is not None and alias[1] == raw else raw

    def note_trace(self, before: int, after: int) -> None:
        """This engine wrote one trace and nothing else moved the store from ``before`` to ``after``:
        every cache stays valid."""
        if after == before + 1:
            with self._lock:
                alias = self._alias
                self._alias = (alias[0] if alias is not None and alias[1] == before else before, after)

    @contextmanager
    def pinned(self) -> Iterator[None]:
        """One search's reads of the version (a statement each) made once: inside this block, on this
        thread, :meth:`version` gives what it gave when the block began. A cache filled inside it is
        stamped with that version, never a newer one than its contents, so a write made meanwhile
        still moves the next search's version and refreshes it. Nested blocks keep the outer one's."""
        if getattr(self._pinned, "version", None) is not None:
            yield
            return
        self._pinned.version = self.version()
        try:
            yield
        finally:
            self._pinned.version = None

    # ------------------------------------------------------------ allowed sets
    def allowed_ids(
        self, unit: str, caller: Caller, kinds: tuple[str, ...], include_archived: bool, now: str
    ) -> tuple[tuple[Any, ...], list[str]]:
        """The ids the caller may see (the access predicate in SQL), cached per store version and minute."""
        version = self.version()
        key = (unit, caller, kinds, include_archived, now[:16])
        with self._lock:
            hit = self._allowed.get(key)
            if hit is not None and hit[0] == version:
                return key, hit[1]
        if unit == "memory":
            ids = item_search.visible_memory_ids(self.store, caller, kinds, include_archived, now)
        else:
            ids = episode_contents.visible_episode_ids(self.store, caller, now)
        # Interned, the sets of every caller, filter and engine share one string per id with the vector
        # caches (core/storage/vectors.py) instead of each holding its own (8 MB per set at 100,000 rows).
        ids = [sys.intern(i) for i in ids]
        with self._lock:
            # A new minute's set replaces the caller's last one: each holds every id the caller may see.
            keep_per_minute(self._allowed, key, (version, ids))
        return key, ids

    # ------------------------------------------------------------ the lexical channels' rows
    def _deep(self, n: int) -> int:
        """How many raw full-text or entity matches are ranked before the access predicate and the
        kinds filter keep the caller's ``n``: enough for every store of one person, and it keeps the
        joins from running over every match of a common word."""
        return max(5 * n, 1000)

    def bm25(self, unit: str, match: str, sight: Sight, n: int) -> list[str]:
        """The rows the caller may see that the full-text query ``match`` finds, best BM25 first."""
        return index_rows.fts_ranked_ids(self.store, unit, match, sight, n, self._deep(n))

    def entity(self, unit: str, names: tuple[str, ...], sight: Sight, n: int) -> list[str]:
        """The rows the caller may see that carry the entity ``names`` (not empty), most matches first."""
        return index_rows.entity_ranked_ids(self.store, unit, names, sight, n, self._deep(n))

    # ------------------------------------------------------------ what given rows hold
    def texts(
        self, unit: str, ids: list[str], caller: Caller, include_archived: bool, now: str
    ) -> dict[str, str]:
        """The words of the given rows that the caller may see (the access predicate in the SQL)."""
        if not ids:
            return {}
        if unit == "memory":
            return item_search.memory_texts(self.store, ids, caller, include_archived, now)
        return episode_contents.episode_texts(self.store, ids, caller, now)

    def cited_turns(self, memory_ids: list[str], caller: Caller, now: str) -> list[Any]:
        """The rows (memory, episode) for each turn the given memories cite that the caller may see."""
        return item_evidence.cited_visible_turns(self.store, memory_ids, caller, now)

    # ------------------------------------------------------------ speakers and neighbours
    def speaker_names(self, caller: Caller, now: str) -> tuple[str, ...]:
        """The distinct speaker names among the caller's visible episodes (cached per store version)."""

        def read() -> tuple[str, ...]:
            found = episode_contents.speaker_names(self.store, caller, now)
            return tuple(sorted({str(r).strip() for r in found if str(r).strip()}))

        return self._per_version(self._speakers, (caller, now[:16]), read)

    def speakers_of(self, ids: list[str]) -> dict[str, str | None]:
        """The speaker of each of the given episodes (ids already ranked for the caller)."""
        return episode_contents.speakers_of(self.store, ids)

    def neighbours(self, ids: list[str], caller: Caller, now: str) -> dict[str, list[str]]:
        """The adjacent turns (same session, turn index ± 1) of each episode, among those the caller may see."""
        return episode_turns.adjacent_turns(self.store, ids, caller, now)

    def _per_version(
        self, cache: dict[tuple[Any, ...], tuple[int, V]], key: tuple[Any, ...], read: Callable[[], V]
    ) -> V:
        """What ``read`` gives, kept in ``cache`` under ``key`` until the store's version moves; past 64
        entries the cache starts over."""
        version = self.version()
        with self._lock:
            hit = cache.get(key)
            if hit is not None and hit[0] == version:
                return hit[1]
        value = read()
        with self._lock:
            if len(cache) > 64:
                cache.clear()
            cache[key] = (version, value)
        return value

    # ------------------------------------------------------------ the times turns were told
    def latest_time(self, caller: Caller, now: str) -> str | None:
        """The latest event time among the caller's visible episodes (cached per store version)."""
        return self._per_version(
            self._latest,
            (caller, now[:16]),
            lambda: episode_contents.latest_event_time(self.store, caller, now),
        )

    def told(self, episode_id: str, caller: Caller, now: str) -> episode_contents.Told | None:
        """The words and time of one episode the caller may see, or None."""
        return episode_contents.content_and_time(self.store, episode_id, caller, now)

    def told_all(self, ids: list[str], caller: Caller, now: str) -> list[episode_contents.TimedTurn]:
        """The given episodes that the caller may see, each with its time and words."""
        return episode_contents.ids_times_contents(self.store, ids, caller, now)

    # ------------------------------------------------------------ typed links
    def linked(
        self, seeds: list[str], caller: Caller, kinds: tuple[str, ...], include_archived: bool, now: str
    ) -> list[Any]:
        """The rows (seed, linked memory), one for each typed link between a seed and a memory the caller may see."""
        return link_rows.linked_pairs(self.store, seeds, LINK_TYPES, caller, kinds, include_archived, now)
