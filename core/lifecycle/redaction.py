"""Redaction: forget one memory and keep the rest of its message.

Forgetting a memory erases the messages its evidence stands in, and with them every other
memory taken from those messages ("Ana is visiting on Saturday. She is allergic to peanuts."
loses both). A redacting forget removes only the sentences that state what is forgotten:

- a sentence goes when it overlaps the evidence span of the memory being forgotten (any of its
  versions), or holds the words a forgotten memory or one restating it is recognised by
  (core/lifecycle/restatements.py);
- a message left with no sentence is erased whole; any other message is *replaced*: episodes
  are immutable (invariant 1), so the kept sentences become a new episode (new id, new hash, same
  session, turn, time, role and speaker), written to the ledger as an ``episode.add`` whose
  details name the message it redacts, and the old episode is erased and tombstoned like any
  forgotten one (its content-free forget marks refuse it if it is imported again);
- every other memory of the message keeps its quote when the quote is still found in the kept
  text: its evidence moves to the new episode (a ``memory.evidence`` ledger entry, which sync
  ships with the row, so another device learns the move before it enforces the old episode's
  tombstone); a memory whose quote lay in a removed sentence is erased too, and so is a summary
  or experience drawn from the message, as the full erasure does.

Nothing of the removed sentences is kept: the old row, its index entries and vectors go as in
any forget. The new episode's vectors are made after the transaction by the caller, which has
the embedder (:func:`index_new`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from veramem_desktop.core.lifecycle.restatements import holds
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage import (
    episode_rows,
    index,
    index_rows,
    item_rows,
    ledger,
    mention_rows,
    rejections,
)
from veramem_desktop.core.storage import forget_reach as reach_rows
from veramem_desktop.core.storage.canonical import text_sha256
from veramem_desktop.core.storage.episodes import Episode, as_row, index_text
from veramem_desktop.core.storage.ids import new_id, now_iso
from veramem_desktop.core.storage.items import Evidence
from veramem_desktop.core.storage.store import Connection, Store
from veramem_desktop.core.trust.quotes import locate
from veramem_desktop.core.write.ingest import ledger_added

#: where a sentence ends: after . ! ? or … (and closing quotes or brackets), or at a line break
_SENTENCE_END = re.compile(r"(?<=[.!?\u2026])[\"'\u2019\u201d)\]]*\s+|\n+")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each sentence of ``text`` that is not blank."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]


@dataclass(frozen=True)
class Cut:
    """What a redacting forget does to one message: the text it keeps ('' when it is erased whole)."""

    episode: str
    kept: str


def plan(
    conn: Connection,
    target: set[str],
    sourced: set[str],
    candidates: set[str],
    phrases: Sequence[Sequence[str]],
) -> tuple[set[str], list[Cut]]:
    """The memories to erase (``sourced``: the ``target`` memory's versions and what restates it, and
    those that stood on removed sentences or were built from erased ones) and what each candidate
    message keeps."""
    contents = reach_rows.contents_of(conn, candidates)
    kept = {eid: _kept(conn, eid, text, target, phrases) for eid, text in contents.items()}
    erased = set(sourced)
    while True:
        more = _fallen(conn, erased, kept) | reach_rows.built_from(conn, erased)
        if more <= erased:
            return erased, [Cut(eid, kept[eid]) for eid in sorted(kept)]
        erased |= more


def _kept(conn: Connection, eid: str, text: str, target: set[str], phrases: Sequence[Sequence[str]]) -> str:
    """The sentences of message ``eid`` that neither overlap the forgotten memory's evidence nor hold a
    forgotten phrase, joined as they stood (a line break kept where one separated them)."""
    cuts = reach_rows.spans_in(conn, eid, target)
    parts: list[str] = []
    last_end = None
    for a, b in sentence_spans(text):
        if any(a < ce and cs < b for cs, ce in cuts) or holds(text[a:b], phrases):
            continue
        if last_end is not None:
            parts.append("\n" if "\n" in text[last_end:a] else " ")
        parts.append(text[a:b].strip())
        last_end = b
    return "".join(parts).strip()


def _fallen(conn: Connection, erased: set[str], kept: dict[str, str]) -> set[str]:
    """Memories not erased yet that cite a candidate message and lose their footing: a quote no longer in
    the kept text, no evidence left, or a summary or experience drawn from a changed message."""
    fallen: set[str] = set()
    for mid in sorted(reach_rows.citing(conn, kept) - erased):
        if reach_rows.drawn_from_messages(conn, mid):
            fallen.add(mid)
            continue
        for episode_id, quote in reach_rows.evidence_quotes(conn, mid):
            if episode_id in kept and (not kept[episode_id] or locate(kept[episode_id], quote) is None):
                fallen.add(mid)
                break
    return fallen


def apply(conn: Connection, cuts: Sequence[Cut], erased: set[str], *, device: str) -> list[str]:
    """Write each redacted message as a new episode and move the surviving memories' evidence to it
    (inside the forget's transaction, before the old episodes are erased). Returns the new ids."""
    made: list[str] = []
    for cut in cuts:
        if not cut.kept:
            continue
        old = reach_rows.episode(conn, cut.episode)
        new = _insert(conn, old, cut.kept, device=device)
        _move_evidence(conn, old.id, new, erased, device=device)
        made.append(new.id)
    return made


def _insert(conn: Connection, old: Episode, content: str, *, device: str) -> Episode:
    """The redacted message: ``old`` with ``content``, under a new id, at the same place in its session."""
    episode = replace(
        old,
        id=new_id("ep"),
        content=content,
        sha256=text_sha256(content),
        created_at=now_iso(),
        metadata={k: v for k, v in old.metadata.items() if k != "import_key"},
    )
    # written as a row (the repository that keeps a row's turn), not appended as a new turn
    episode_rows.insert_rows(conn, [as_row(episode)])
    index_rows.add_fts(conn, "episode", episode.id, index_text(episode))
    index.store_entities(conn, "episode", episode.id, index_text(episode))
    ledger_added(
        conn,
        episode,
        device=device,
        details={**({"session": episode.session_id} if episode.session_id else {}), "redacts": old.id},
        speaker_role=episode.role,
    )
    rejections.withhold_if_rejected(
        conn, "episode", [(episode.id, episode.user_id, episode.team_id, content)]
    )
    return episode


def _move_evidence(conn: Connection, old_id: str, new: Episode, erased: set[str], *, device: str) -> None:
    """Give each surviving memory cited in ``old_id`` the same evidence in ``new``, with its span in the kept
    text (the old rows go with the old episode, as the forget erases it)."""
    rows = reach_rows.evidence_in(conn, old_id)
    mentioned = reach_rows.mentioned_in(conn, old_id)
    now = now_iso()
    for mid, quote, score, role in rows:
        if mid in erased:
            continue
        found = locate(new.content, quote)
        if found is None:  # plan() erased every memory whose quote did not survive
            continue
        moved = Evidence(new.id, quote, found.start, found.end, float(score), role)
        item_rows.insert_evidence(
            conn, [[mid, new.id, quote, found.start, found.end, float(score), role, now]]
        )
        if mid in mentioned:
            mention_rows.add(conn, new.id, mid)
        ledger.append(
            conn,
            op="memory.evidence",
            target_kind="memory",
            target_id=mid,
            commitment_hex=ledger.commit_to(conn, mid, moved.to_dict()),
            device=device,
            details={"evidence": new.id, "redacts": old_id},
        )


def index_new(store: Store, embedder: Embedder, episode_ids: Sequence[str]) -> None:
    """The line vectors of the redacted messages (their context vectors are rebuilt with the neighbours')."""
    from veramem_desktop.core.storage.episodes import get_many
    from veramem_desktop.core.write.ingest import line_of

    found = get_many(store, list(episode_ids))
    eps = [found[i] for i in episode_ids if i in found]
    if not eps:
        return
    vectors = index.embed_texts(embedder, [line_of(e.role, e.source_name, e.content) for e in eps])
    with store.atomic() as conn:
        index.store_vectors(conn, "episode", embedder.name, [e.id for e in eps], vectors)
