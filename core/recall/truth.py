"""The truth stage of recall: what the memory knows about each hit, and current truth first.

Relevance alone would serve a corrected or replaced statement as if it were true: the raw
message "I live in Berlin." matches "where do I live" better than the memory "User lives in
Munich now." that replaced it. This stage knows, for every hit:

- its state: a memory's own (current, superseded and by what, retracted and by which message,
  archived, in conflict and with what); an episode's from the memories derived from it or that it
  restates (current when one of them is, superseded when all of them are, raw when none; a
  message whose retraction of a memory still holds is current);
- its subject: memories with one subject/predicate (a single-valued attribute of a user),
  versions of one memory, merges and their sources, and both sides of a recorded conflict
  speak about one thing, and an episode speaks about what its memories speak about.

Then, for each subject the hits touch, the current memory of the highest authority is
brought in (through the access predicate) when relevance missed it, and ranks first among
that subject's hits; what is stale, and every claim of lower authority, ranks below it, however
many times it was repeated. A memory a message retracted speaks about one thing with that message
and the memories made from it: they are brought in, the most relevant of them stands for it, and
they rank above it (core/recall/retired.py). Rejected values never get here: the access predicate
withheld them in SQL (core/storage/access.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from veramem_desktop.core import attributes
from veramem_desktop.core.llm import multi_valued
from veramem_desktop.core.recall import safety_net
from veramem_desktop.core.recall.hits import STALE, Hit
from veramem_desktop.core.recall.retired import retiring_above_retired
from veramem_desktop.core.recall.subjects import Groups
from veramem_desktop.core.storage import (
    episode_contents,
    item_chains,
    item_evidence,
    item_scopes,
    item_search,
)
from veramem_desktop.core.storage.items import AUTHORITY_RANK
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.trust.action_gate import may_act
from veramem_desktop.core.vocabulary import EPISODE_KIND, LIVE_STATES, State, Status, Trust, Withheld

Fetch = Callable[[list[str]], list[Hit]]
#: a memory's truth row, built by name in core/storage/item_search.py (hydrating reads it too)
TruthRow = item_search.TruthRow


class _Row(NamedTuple):
    id: str
    status: str
    trust: str
    subject: str | None
    predicate: str | None
    user_id: str | None
    team_id: str | None
    root_id: str
    authority: str
    withheld: str | None
    value: str | None
    conflicts: tuple[str, ...]
    superseded_by: str | None = None
    #: the message (episode id) whose statement retracted this memory
    retracted_by: str | None = None
    #: for a version that corrects a mistake (core/write/correction_targets.py): the value it said was wrong
    corrects: str | None = None

    @property
    def key(self) -> tuple[str, ...] | None:
        """The single-valued attribute this memory states, or None (by the inventory's canonical name,
        so two names of one attribute are one key)."""
        if not (self.subject and self.predicate) or multi_valued(self.predicate):
            return None
        return (
            "key",
            self.user_id or "",
            self.team_id or "",
            self.subject.casefold().strip(),
            attributes.canonical(self.predicate.casefold().strip()),
        )


def read_rows(store: Store, ids: set[str], known: Mapping[str, TruthRow]) -> dict[str, _Row]:
    """The rows of the given memories (in id order): those ``known`` already, the others read now."""
    read = {r.id: r for r in item_search.truth_rows(store, {i for i in ids if i not in known})}
    rows = (known.get(i) or read[i] for i in sorted(ids) if i in known or i in read)
    return {r.id: _row(r) for r in rows}


def _row(r: TruthRow) -> _Row:
    """The truth stage's row of a memory: its stored row, with what its metadata records."""
    stored = r._asdict()
    conflicts, replaced_by, retracted_by, wrong = _from_metadata(stored.pop("metadata"), r.status)
    return _Row(
        **stored, conflicts=conflicts, superseded_by=replaced_by, retracted_by=retracted_by, corrects=wrong
    )


def partner_rows(store: Store, rows: dict[str, _Row], known: Mapping[str, TruthRow]) -> dict[str, _Row]:
    """The rows of the other sides of ``rows``' conflicts not among them (an open conflict from a settled one)."""
    return read_rows(store, {c for r in rows.values() for c in r.conflicts} - rows.keys(), known)


def _from_metadata(metadata: str | None, status: str) -> tuple[Any, ...]:
    """A memory's conflict partners, what replaced it (or holds it cold), retracted_by, corrected value."""
    meta = json.loads(metadata) if metadata and metadata != "{}" else {}  # most memories have none
    retracted_by = meta.get("retracted_by") if status == Status.RETRACTED else None
    wrong = (meta.get("corrects") or {}).get("wrong")
    replaced_by = meta.get("superseded_by") or (meta.get("cold_by") if status == Status.ARCHIVED else None)
    return tuple(meta.get("conflicts_with", [])), replaced_by, retracted_by, wrong


def _current_of(store: Store, rows: dict[str, _Row]) -> dict[str, str]:
    """For each memory no longer current, what stands for it now: its chain's active version, else what it
    was merged or fused into (a few steps), or the broader memory that sent it to cold storage."""
    stale = [r for r in rows.values() if r.status in (Status.SUPERSEDED, Status.RETRACTED, Status.ARCHIVED)]
    out: dict[str, str] = {}
    if not stale:
        return out
    active_of_root = _active_of_roots(store, stale)
    for r in stale:
        now = _standing_for(store, r, active_of_root)
        if now is not None:
            out[r.id] = now
    return out


def _active_of_roots(store: Store, stale: Sequence[_Row]) -> dict[str, str]:
    """The active version of each chain the ``stale`` rows belong to (the first one read per root)."""
    active_of_root: dict[str, str] = {}
    for root, mid in item_chains.active_by_root(store, sorted({r.root_id for r in stale})):
        active_of_root.setdefault(root, mid)
    return active_of_root


def _standing_for(store: Store, r: _Row, active_of_root: dict[str, str]) -> str | None:
    """What stands for the stale ``r`` now: its chain's active version, else the value a restatement
    repeated, else (only when superseded) what it was merged or fused into; None when nothing does."""
    if r.root_id in active_of_root and active_of_root[r.root_id] != r.id:
        return active_of_root[r.root_id]
    if r.superseded_by is not None:  # a restatement retired with the value it repeated
        return r.superseded_by
    if r.status != Status.SUPERSEDED:
        return None
    return _merged_into(store, r.id)


def _merged_into(store: Store, source: str) -> str | None:
    """The active memory ``source`` was merged or fused into, following its newest derivation at most
    four steps; None when the trail ends (or runs on) before an active one."""
    for _ in range(4):
        row = item_chains.newest_derived(store, source)
        if row is None:
            return None
        source = row[0]
        if row[1] == Status.ACTIVE:
            return source
    return None


def _holders(store: Store, rows: Sequence[_Row]) -> set[str]:
    """The active memories stating the single-valued attributes the ``rows`` state (an indexed lookup
    on user, subject and predicate as stored; the few of another case are found by the group anyway)."""
    asked: dict[tuple[str | None, ...], tuple[str | None, ...]] = {}  # the first row's team for each
    for r in rows:
        if r.key is not None:
            asked.setdefault(
                (r.user_id, r.subject, r.predicate), (r.user_id, r.subject, r.predicate, r.team_id)
            )
    return set(item_scopes.key_holders(store, list(asked.values()))) if asked else set()


def _live(row: _Row, rows: dict[str, _Row]) -> bool:
    return row_state(row, rows) in LIVE_STATES


def row_state(row: _Row, rows: dict[str, _Row]) -> str:
    """A memory's state from its row (``rows`` holds the other sides of its conflicts)."""
    if row.trust == Trust.REJECTED or row.withheld == Withheld.REJECTED:
        return State.REJECTED
    if row.withheld == Withheld.RESEMBLES:
        return State.HELD
    if row.status in STALE:
        return row.status
    live = [
        c
        for c in row.conflicts
        if c in rows and rows[c].status == Status.ACTIVE and rows[c].trust != Trust.REJECTED
    ]
    return State.IN_CONFLICT if live else State.CURRENT


def annotate(
    store: Store,
    hits: list[Hit],
    fetch: Fetch,
    known: Mapping[str, TruthRow] | None = None,
) -> tuple[list[Hit], dict[str, object]]:
    """Label each hit with its state and subject, and bring in the current memory of every subject the
    hits speak about when relevance missed it (``fetch`` hydrates ids through the access predicate).
    ``known``: truth rows already read with the hits (core/recall/rank.py's hydrate), by id; the others
    are read here. Then the safety net (core/recall/safety_net.py) lets the newest statement of each
    attribute lead where the write path recorded no change. Returns the hits (those brought in last) and
    the subject group of each."""
    known = known or {}
    episode_ids = [h.id for h in hits if h.kind == EPISODE_KIND]
    related = item_evidence.memories_of_episodes(store, episode_ids)
    withheld_eps = episode_contents.withheld_reasons(store, episode_ids)
    wanted = {h.id for h in hits if h.kind != EPISODE_KIND} | {m for ms in related.values() for m in ms}
    rows = read_rows(store, wanted, known)
    current = _current_of(store, rows)
    retired, made = _retirements(store, rows, current, known)
    related = {**made, **related}
    also = set(retired.values()) | {m for ms in made.values() for m in ms}
    hits = _bring_in_current(store, hits, rows, current, fetch, also, known)
    _stand_ins(hits, {stale: made.get(message, []) for stale, message in retired.items()}, rows, current)
    rows |= partner_rows(store, rows, known)
    groups = _subject_groups(rows, current, related)
    for stale, message in retired.items():
        groups.union(stale, message)
    for h in hits:
        _label_hit(h, rows, current, related, withheld_eps)
        if h.state == State.RAW and h.kind == EPISODE_KIND and h.id in retired.values() and not h.derived:
            h.state = State.CURRENT  # it says a memory stopped being true, and that still holds
            h.actionable = may_act(h.authority, h.state)
    safety_net.apply(hits, rows, related, groups.union)
    found = {h.id: groups.find(h.id) for h in hits}
    labels: dict[object, str] = {}
    for h in hits:
        h.group = labels.setdefault(found[h.id], f"g{len(labels) + 1}")
    return hits, found


def _bring_in_current(
    store: Store,
    hits: list[Hit],
    rows: dict[str, _Row],
    current: dict[str, str],
    fetch: Fetch,
    also: set[str],
    known: Mapping[str, TruthRow],
) -> list[Hit]:
    """The hits plus, last, the current memories, holders of the same single-valued attributes and ``also``
    (retracting messages, memories made from them) relevance missed, marked as brought in by the truth
    channel (``fetch`` keeps what the caller may see); their rows are added to ``rows``."""
    present = {h.id for h in hits}
    missing = (set(current.values()) | _holders(store, list(rows.values())) | also) - present
    if not missing:
        return hits
    extra = fetch(sorted(missing))
    for h in extra:
        h.channels = {**h.channels, "truth": 1}
    rows |= read_rows(store, {h.id for h in extra if h.kind != EPISODE_KIND} - rows.keys(), known)
    return hits + extra


def _retirements(
    store: Store, rows: dict[str, _Row], current: dict[str, str], known: Mapping[str, TruthRow]
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The retracted memories among ``rows`` whose retraction a message stated, each with that message
    (its episode id), and the memories made from each such message. Their rows are added to ``rows`` and
    what stands for those of them that are stale to ``current``."""
    retired = {r.id: r.retracted_by for r in rows.values() if r.retracted_by is not None}
    if not retired:
        return {}, {}
    made = item_evidence.memories_of_episodes(store, sorted(set(retired.values())))
    new = {m for ms in made.values() for m in ms} - rows.keys()
    if new:
        fresh = read_rows(store, new, known)
        rows |= fresh
        current |= _current_of(store, fresh)
    return retired, made


def _stand_ins(
    hits: list[Hit], made_for: dict[str, list[str]], rows: dict[str, _Row], current: dict[str, str]
) -> None:
    """What stands for each retracted memory nothing else stands for: the live memory (or what stands for
    it) made from the message that retracted it (``made_for``), the most relevant hit of them."""
    score = {h.id: h.score for h in hits}
    for stale, made in made_for.items():
        if stale in current:
            continue
        live = [current.get(m, m) for m in made if m != stale]
        live = [m for m in dict.fromkeys(live) if m in score and m in rows and _live(rows[m], rows)]
        if live:
            current[stale] = max(live, key=lambda m: score[m])


def _subject_groups(rows: dict[str, _Row], current: dict[str, str], related: dict[str, list[str]]) -> Groups:
    """One group per subject: a memory joins its chain, its single-valued attribute, its conflict partners
    and what stands for it now; a message joins the memories made from it."""
    groups = Groups()
    for r in rows.values():
        groups.union(r.id, ("root", r.root_id))
        if r.key is not None:
            groups.union(r.id, r.key)
        for other in r.conflicts:
            groups.union(r.id, other)
    for stale, now in current.items():
        groups.union(stale, now)
    for eid, mids in related.items():
        for mid in mids:
            groups.union(eid, mid)
    return groups


def _label_hit(
    h: Hit,
    rows: dict[str, _Row],
    current: dict[str, str],
    related: dict[str, list[str]],
    withheld_eps: dict[str, str],
) -> None:
    """Set the hit's state, subject and value from its row (a message's from the memories made from it),
    then whether it may be acted on."""
    if h.kind == EPISODE_KIND:
        _label_episode(h, related.get(h.id, []), rows, current, withheld_eps.get(h.id))
    elif h.id in rows:
        row = rows[h.id]
        h.state = row_state(row, rows)
        h.superseded_by = current.get(h.id)
        h.retracted_by = row.retracted_by
        h.corrects = row.corrects
        h.conflicts_with = list(row.conflicts)
        h.subject, h.value, h.about = row.predicate, row.value, row.subject
    h.actionable = may_act(h.authority, h.state)  # the one action gate (core/trust/action_gate.py)


def _label_episode(
    hit: Hit, mids: list[str], rows: dict[str, _Row], current: dict[str, str], withheld: str | None
) -> None:
    hit.trust = Trust.RAW
    hit.derived = sorted(mids)
    if withheld is not None:
        hit.state = State.REJECTED if withheld == Withheld.REJECTED else State.HELD
        return
    states = {m: row_state(rows[m], rows) for m in mids if m in rows}
    # what it speaks about: the value a later statement retracted, when one did, else its first key
    keyed = sorted(
        (m for m in mids if m in rows and rows[m].predicate), key=lambda m: states[m] != State.RETRACTED
    )
    about = rows[keyed[0]] if keyed else None
    hit.subject, hit.value = (about.predicate, about.value) if about is not None else (None, None)
    hit.about = about.subject if about is not None else None
    live = [m for m, s in states.items() if s in LIVE_STATES]
    # a message that said a value a later statement retracted says something no longer true, though another
    # memory made from it ("… as a data engineer": the role) still holds on its own
    retracted = [m for m, s in states.items() if s == State.RETRACTED and rows[m].retracted_by]
    if not states or all(s in (State.REJECTED, State.HELD) for s in states.values()):
        hit.state = State.RAW
    elif live and not retracted:
        hit.state = State.CURRENT if any(states[m] == State.CURRENT for m in live) else State.IN_CONFLICT
        hit.conflicts_with = sorted({c for m in live for c in rows[m].conflicts})
    else:
        stale = [m for m, s in states.items() if s in STALE]
        hit.state = (
            State.SUPERSEDED
            if any(states[m] == State.SUPERSEDED for m in stale)
            else states[stale[0]]
            if stale
            else State.RAW
        )
        hit.superseded_by = next((current[m] for m in stale if m in current), None)
        hit.retracted_by = next((rows[m].retracted_by for m in stale if rows[m].retracted_by), None)


def order(hits: list[Hit], groups: dict[str, object]) -> list[Hit]:
    """Current truth first, by score otherwise.

    Within each subject, the current hit of the highest authority (a person's approval breaking ties)
    takes the subject's best relevance plus its own priors; its other current hits, then lower-authority
    claims, then stale hits (a replaced message never above the one that holds now) go below it, each
    in its order. Subjects do not move relative to each other otherwise."""
    by_group: dict[object, list[Hit]] = {}
    for h in hits:
        by_group.setdefault(groups.get(h.id, h.id), []).append(h)
    for members in by_group.values():
        live = [h for h in members if h.state in LIVE_STATES]
        if len(members) < 2 or not live:
            continue
        standing = {h.superseded_by for h in members if h.retracted_by}  # stands for what a message retracted
        head = max(
            live,
            key=lambda h: (
                AUTHORITY_RANK.get(h.authority, 0),
                h.state == State.CURRENT,
                h.id in standing,
                h.trust == Trust.VERIFIED,
                h.kind != EPISODE_KIND,
                h.score,
            ),
        )
        # The subject ranks by its best relevance with the head's priors: what feedback taught about the
        # memory moves the messages it came from too.
        top = max(h.score - h.prior for h in members) + head.prior
        head.score = max(head.score, top) + 1e-6
        rank = AUTHORITY_RANK.get(head.authority, 0)
        below = sorted(
            (h for h in members if h is not head),
            key=lambda h: (
                h.state not in LIVE_STATES,
                AUTHORITY_RANK.get(h.authority, 0) < rank,
                -h.score,
            ),
        )
        floor = head.score
        for h in below:
            h.score = floor = min(h.score, floor - 1e-4)
    retiring_above_retired(hits)  # what retracted a hit, above it (core/recall/retired.py)
    return sorted(hits, key=lambda h: -h.score)
