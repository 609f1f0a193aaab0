"""The BM25 and entity channels: which of a question's words and names are worth ranking by, and
the rows that hold them.

A word or name that most rows hold says little yet costs the ranking a walk over every row it
matches, so each is weighed by its document frequency first: counted over the whole full-text or
entity index (counts only: no row leaves them) and kept until the index grows or shrinks by a
tenth (the counts are read through core/storage/index_rows.py). The ranked rows themselves come
from core/recall/candidates.py, whose reads carry the access predicate in their SQL.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

from veramem_desktop.core.recall.candidates import Candidates
from veramem_desktop.core.recall.query import fts_match
from veramem_desktop.core.recall.recipes import SearchConfig
from veramem_desktop.core.storage import index_rows
from veramem_desktop.core.storage.access import Sight
from veramem_desktop.core.text.terms import content_terms, entities


class Lexical:
    """The full-text (BM25) and entity channels of one store, with the row counts and document
    frequencies they weigh words and names by."""

    def __init__(self, candidates: Candidates, config: SearchConfig) -> None:
        self.candidates = candidates
        self.store = candidates.store
        self.config = config
        self._lock = threading.Lock()
        self._dfs: dict[str, tuple[int, dict[str, int]]] = {}
        self._fts_rows: dict[str, tuple[int, int]] = {}

    def row_count(self, unit: str) -> int:
        """Full-text rows of the unit (memories or episodes), counted once per store version."""
        version = self.candidates.version()
        with self._lock:
            cached = self._fts_rows.get(unit)
        if cached is not None and cached[0] == version:
            return cached[1]
        rows = index_rows.fts_row_count(self.store, unit)
        with self._lock:
            self._fts_rows[unit] = (version, rows)
        return rows

    def _df(self, space: str, size: int, key: str, count: Callable[[], int]) -> int:
        """A document frequency, counted once and kept until the ``space`` it was counted in has
        grown or shrunk by a tenth: it only decides whether a word or name is too common to rank."""
        with self._lock:
            known, counts = self._dfs.get(space, (0, {}))
            if not (known <= size <= known * 1.1):
                known, counts = size, {}
                self._dfs[space] = (known, counts)
            hit = counts.get(key)
        if hit is None:
            hit = counts[key] = count()
        return hit

    def _term_dfs(self, table: str, size: int, terms: list[str]) -> dict[str, int]:
        """The document frequency of each word (see :meth:`_df`); those not known yet are counted in one
        statement rather than one each."""
        with self._lock:
            known, counts = self._dfs.get(table, (0, {}))
            fresh = known <= size <= known * 1.1
            missing = [t for t in dict.fromkeys(terms) if not fresh or t not in counts]
        found: dict[str, int] = {}
        if len(missing) > 1:
            matches = [fts_match([t]) or "" for t in missing]
            found = dict(zip(missing, index_rows.fts_match_counts(self.store, table, matches), strict=True))
        return {t: self._df(table, size, t, partial(self._counted, table, t, found)) for t in terms}

    def _counted(self, table: str, term: str, found: dict[str, int]) -> int:
        """The word's count from ``found``, else counted now."""
        return found[term] if term in found else self._matching(table, term)

    def _matching(self, table: str, term: str) -> int:
        """How many full-text rows of ``table`` hold the word (a count over the whole index)."""
        return index_rows.fts_match_count(self.store, table, fts_match([term]))

    def match(self, unit: str, query: str, drop: frozenset[str] = frozenset()) -> str | None:
        """The full-text query for ``query``: its content words OR-ed.

        In a large store, words matching more than ``term_max_df`` rows (or 0.5% of them) say
        little (low idf) yet cost the ranking a walk over every row they match, so they are left
        out; when every word is that common, their co-occurrence is what still says something,
        and only rows with all of them are ranked."""
        terms = [t for t in content_terms(query) if t not in drop][:32]
        rows = self.row_count(unit)
        limit = max(self.config.term_max_df, rows // 200)
        if rows <= limit or rows < self.config.term_prune_min_rows:
            return fts_match(terms)
        table = f"{unit}_fts"
        dfs = self._term_dfs(table, rows, terms)
        selective = [t for t in terms if 0 < dfs[t] <= limit]
        if selective:
            return fts_match(selective)
        return fts_match([t for t in terms if dfs[t] > 0], "AND")

    def bm25(
        self, unit: str, query: str, sight: Sight, n: int, drop: frozenset[str] = frozenset()
    ) -> list[str]:
        """The rows the caller may see that hold the query's words (see :meth:`match`), best BM25 first."""
        match = self.match(unit, query, drop)
        if match is None:
            return []
        return self.candidates.bm25(unit, match, sight, n)

    def entity(
        self,
        unit: str,
        query: str,
        sight: Sight,
        n: int,
        drop: frozenset[str] = frozenset(),
        *,
        names: tuple[str, ...] | None = None,
    ) -> list[str]:
        """Rows carrying the query's entities (or the given ``names``), most matches first."""
        rows = self.row_count("memory") + self.row_count("episode")
        asked = set(names) if names is not None else entities(query)
        names = tuple(e for e in sorted(asked - drop) if self.entity_df(e, rows) <= self.config.entity_max_df)
        if not names:
            return []
        return self.candidates.entity(unit, names, sight, n)

    def term_df(self, table: str, rows: int, term: str) -> int:
        """How many full-text rows of ``table`` hold the word (counted once, see :meth:`_df`)."""
        return self._df(table, rows, term, partial(self._matching, table, term))

    def entity_df(self, entity: str, rows: int) -> int:
        """How many of the ``rows`` (memories and episodes together) carry the entity (an index-only count)."""
        return self._df(
            "entities",
            rows,
            entity,
            lambda: index_rows.entity_count(self.store, entity),
        )
