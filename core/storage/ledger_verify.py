"""Checking the ledger: the chain recomputed, the state compared with it, and the incremental check.

:func:`verify` recomputes the chain (core/storage/ledger.py) and binds the state to it as well:
every memory row's content (``items.content_of``) must match the commitment of its last ledger
entry that commits to content (recomputed under its secret), and every episode's content must
match its ``sha256`` and the commitment of its ``episode.add`` entry. So an edit of a row with
the store's key, made without VeraMem, is named. A key holder who also rewrites the chain from
that entry on passes here; paired devices catch that, since each keeps the others' signed ledger
heads (sync/heads.py).

:func:`verify_from_checkpoint` is the cheap check ``status`` runs: only the entries written
since the last check are recomputed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from veramem_desktop.core.storage.canonical import GENESIS_HASH, chain_hash, commitment, text_sha256
from veramem_desktop.core.storage.items import MemoryItem, content_of
from veramem_desktop.core.storage.ledger import LEDGER_COLUMNS, LedgerEntry, row_to_entry
from veramem_desktop.core.storage.store import Store


@dataclass(frozen=True)
class VerifyReport:
    ok: bool
    checked: int
    total: int
    first_bad_seq: int | None = None
    problem: str | None = None
    rows_checked: int = 0  # memories and episodes compared with their ledger entries
    bad_row: str | None = None  # the first row whose content does not match its ledger entry
    with_actor: int = 0  # entries checked that name who acted (older entries name none)
    bad_actor: str | None = None  # who the first bad entry says acted (as written, perhaps forged)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "checked": self.checked,
            "total": self.total,
            "first_bad_seq": self.first_bad_seq,
            "problem": self.problem,
            "rows_checked": self.rows_checked,
            "bad_row": self.bad_row,
            "with_actor": self.with_actor,
            "bad_actor": self.bad_actor,
        }


def _iter_rows(store: Store, batch: int = 2000) -> Iterator[LedgerEntry]:
    after = -1
    while True:
        rows = store.query(
            f"SELECT {LEDGER_COLUMNS} FROM ledger WHERE seq > ? ORDER BY seq LIMIT ?", (after, batch)
        )
        if not rows:
            return
        for row in rows:
            entry = row_to_entry(row)
            yield entry
        after = entry.seq


def verify(store: Store, progress: Callable[[int, int], None] | None = None) -> VerifyReport:
    """Recompute the chain, then compare every memory and episode with its last ledger entry;
    report the first entry (or row) that does not fit."""
    report = verify_chain(store, progress)
    if not report.ok:
        return report
    rows, bad = verify_state(store)
    if bad is not None:
        return VerifyReport(
            False, report.checked, report.total, bad.seq, bad.problem, rows, bad.row, report.with_actor
        )
    return VerifyReport(True, report.checked, report.total, rows_checked=rows, with_actor=report.with_actor)


def verify_chain(store: Store, progress: Callable[[int, int], None] | None = None) -> VerifyReport:
    """Recompute the chain; report the first entry that does not fit."""
    total = int(store.query_one("SELECT count(*) FROM ledger")[0])
    # the head is read before the entries: an entry appended meanwhile (the background linker, another
    # process) moves the head past what was read only after, so it is never taken for a cut-off end
    head = store.get_meta("ledger_head")
    prev = GENESIS_HASH
    expected_seq = 1
    checked = with_actor = 0
    for entry in _iter_rows(store):
        who = entry.actor_text or None
        if entry.seq != expected_seq:
            return VerifyReport(
                False,
                checked,
                total,
                entry.seq,
                f"entry {expected_seq} is missing (found {entry.seq} next): an entry was deleted",
                with_actor=with_actor,
            )
        if entry.prev_hash != prev:
            return VerifyReport(
                False,
                checked,
                total,
                entry.seq,
                f"entry {entry.seq} does not follow entry {entry.seq - 1} (entries removed, reordered or replaced)",
                with_actor=with_actor,
                bad_actor=who,
            )
        if chain_hash(prev, entry.body()) != entry.hash:
            return VerifyReport(
                False,
                checked,
                total,
                entry.seq,
                f"entry {entry.seq} was altered after it was written",
                with_actor=with_actor,
                bad_actor=who,
            )
        with_actor += who is not None
        prev = entry.hash
        expected_seq += 1
        checked += 1
        if progress is not None and checked % 500 == 0:
            progress(checked, total)
    if progress is not None:
        progress(checked, total)
    if head:
        head_seq, _, head_hash = head.partition(":")
        if int(head_seq) > checked:
            return VerifyReport(
                False,
                checked,
                total,
                checked + 1,
                f"the ledger ends at entry {checked} but entry {head_seq} was written: entries were cut off the end",
                with_actor=with_actor,
            )
    return VerifyReport(True, checked, total, with_actor=with_actor)


# --------------------------------------------------------------- state against the chain
#: memory entries whose commitment covers something else than the memory's content (an
#: evidence quote) where they are written; the same op applied from another device
#: (``origin`` in its details, see sync/replica.py) commits to the content
_NOT_CONTENT_OPS = ("memory.evidence",)
_STATE_PAGE = 2000


@dataclass(frozen=True)
class BadRow:
    row: str
    seq: int | None
    problem: str


def _last_content_entry(alias: str, kind: str) -> str:
    """SQL for the seq of the last ledger entry of row ``alias.id`` that commits to its content."""
    skip = ",".join(f"'{op}'" for op in _NOT_CONTENT_OPS)
    return (
        f"(SELECT max(seq) FROM ledger WHERE target_id = {alias}.id AND target_kind = '{kind}' AND op != 'forget' "
        f"AND (op NOT IN ({skip}) OR instr(details, '\"origin\":') > 0))"
    )


def verify_state(store: Store) -> tuple[int, BadRow | None]:
    """(rows checked, the first bad row or None): memories by id, then episodes by id, a page at a time."""
    memories, bad = _verify_memories(store)
    if bad is not None:
        return memories, bad
    episodes, bad = _verify_episodes(store)
    return memories + episodes, bad


def _first_bad(store: Store, select: str, bad_of: Callable[..., BadRow | None]) -> tuple[int, BadRow | None]:
    """(rows checked, the first ``bad_of`` reports, or None): ``select`` read a page at a time, its two
    parameters the last id of the page before and the page's size."""
    checked = 0
    after = ""
    while True:
        page = store.query(select, (after, _STATE_PAGE))
        for row in page:
            checked += 1
            bad = bad_of(*row)
            if bad is not None:
                return checked, bad
        if len(page) < _STATE_PAGE:
            return checked, None
        after = page[-1][0]


def _verify_memories(store: Store) -> tuple[int, BadRow | None]:
    """(memories checked, the first whose content does not match its last content entry, or None)."""
    columns = "m.id, m.kind, m.text, m.authority, m.status, m.trust, m.value"
    return _first_bad(store, _state_page("memory_items", "m", "memory", columns), _bad_memory_row)


def _state_page(table: str, alias: str, kind: str, columns: str) -> str:
    """A page of ``table``'s rows after an id: ``columns``, then the row's secret and its last content
    entry's seq and commitment."""
    return (
        f"SELECT {columns}, s.secret, l.seq, l.commitment "
        f"FROM {table} {alias} LEFT JOIN item_secrets s ON s.item_id = {alias}.id "
        f"LEFT JOIN ledger l ON l.seq = {_last_content_entry(alias, kind)} "
        f"WHERE {alias}.id > ? ORDER BY {alias}.id LIMIT ?"
    )


def _bad_memory_row(
    mid: str,
    kind: str,
    text: str,
    authority: str,
    status: str,
    trust: str,
    value: Any,
    secret: bytes | None,
    seq: int | None,
    commit: str | None,
) -> BadRow | None:
    """The memory row as a BadRow when it has no ledger entry or does not match its commitment, else None."""
    if seq is None:
        return BadRow(mid, None, f"memory {mid} has no ledger entry: it was written outside VeraMem")
    item = MemoryItem(
        id=mid, kind=kind, text=text, authority=authority, status=status, trust=trust, value=value
    )
    if secret is None or commitment(bytes(secret), content_of(item)) != commit:
        return BadRow(
            mid,
            int(seq),
            f"memory {mid} does not match its last ledger entry {seq}: "
            "its text, kind, authority, status, trust or value was changed outside VeraMem",
        )
    return None


def _verify_episodes(store: Store) -> tuple[int, BadRow | None]:
    """(episodes checked, the first whose content does not match its sha256 or its commitment, or None)."""
    columns = "e.id, e.content, e.sha256, e.role"
    return _first_bad(store, _state_page("episodes", "e", "episode", columns), _bad_episode_row)


def _bad_episode_row(
    eid: str, content: str, digest: str, role: str, secret: bytes | None, seq: int | None, commit: str | None
) -> BadRow | None:
    """The episode row as a BadRow when it has no ledger entry, does not match its sha256 or its commitment."""
    if seq is None:
        return BadRow(eid, None, f"episode {eid} has no ledger entry: it was written outside VeraMem")
    if text_sha256(content) != digest:
        return BadRow(
            eid,
            int(seq),
            f"episode {eid} does not match its sha256: its content was changed outside VeraMem",
        )
    if secret is None or commitment(bytes(secret), {"sha256": digest, "role": role}) != commit:
        return BadRow(
            eid,
            int(seq),
            f"episode {eid} does not match its ledger entry {seq}: its "
            "hash or role was changed outside VeraMem",
        )
    return None


# --------------------------------------------------------------- incremental check (status)
#: meta key of the last entry a chain check reached: "seq:hash"
CHECKPOINT_META = "ledger_verified"


def verify_from_checkpoint(store: Store) -> VerifyReport:
    """Check the chain from the last verified entry on, and move the checkpoint forward.

    Cheap enough for every ``status``: the checkpointed entry must still carry the hash
    it had, then only the entries after it are recomputed. It does not re-read what was
    verified before; ``verify`` (the full check) does. ``checked`` is the number of
    entries the chain now covers (those verified earlier and those recomputed now).
    """
    total = int(store.query_one("SELECT count(*) FROM ledger")[0])
    head = store.get_meta("ledger_head")  # before the entries, as in verify_chain
    text = store.get_meta(CHECKPOINT_META) or ""
    seq_text, _, start_hash = text.partition(":")
    start_seq = int(seq_text) if seq_text.isdigit() else 0
    prev = GENESIS_HASH
    if start_seq:
        row = store.query_one("SELECT hash FROM ledger WHERE seq = ?", (start_seq,))
        if row is None or str(row[0]) != start_hash:
            return VerifyReport(
                False,
                0,
                total,
                start_seq,
                f"entry {start_seq}, verified earlier, was changed or removed since",
            )
        prev = start_hash
    expected_seq = start_seq + 1
    after, batch = start_seq, 2000
    while True:
        rows = store.query(
            f"SELECT {LEDGER_COLUMNS} FROM ledger WHERE seq > ? ORDER BY seq LIMIT ?", (after, batch)
        )
        for row in rows:
            entry = row_to_entry(row)
            broken = _broken_link(entry, expected_seq, prev, total)
            if broken is not None:
                return broken
            prev, expected_seq = entry.hash, expected_seq + 1
        if len(rows) < batch:
            break
        after = entry.seq
    last = expected_seq - 1
    cut = _count_or_end_problem(last, total, head)
    if cut is not None:
        return cut
    if last > start_seq:
        store.set_meta(CHECKPOINT_META, f"{last}:{prev}")
    return VerifyReport(True, last, total)


def _broken_link(entry: LedgerEntry, expected_seq: int, prev: str, total: int) -> VerifyReport | None:
    """The failed report when ``entry`` is not the next entry of the chain after ``prev``, else None."""
    if entry.seq != expected_seq:
        return VerifyReport(
            False,
            expected_seq - 1,
            total,
            entry.seq,
            f"entry {expected_seq} is missing (found {entry.seq} next): an entry was deleted",
        )
    if entry.prev_hash != prev or chain_hash(prev, entry.body()) != entry.hash:
        return VerifyReport(
            False,
            expected_seq - 1,
            total,
            entry.seq,
            f"entry {entry.seq} was altered, removed or reordered after it was written",
        )
    return None


def _count_or_end_problem(last: int, total: int, head: str | None) -> VerifyReport | None:
    """The failed report when the chain ending at ``last`` misses entries counted (``total``, read before
    the entries) or written (``head``, read before them too), else None. Entries appended after those
    reads only make the chain longer, which is no problem."""
    if total > last:
        return VerifyReport(
            False, last, total, None, f"the ledger holds {total} entries but its chain numbers {last}"
        )
    if head and int(head.partition(":")[0] or 0) > last:
        return VerifyReport(
            False,
            last,
            total,
            last + 1,
            f"the ledger ends at entry {last} but entry {head.partition(':')[0]} was written: "
            "entries were cut off the end",
        )
    return None
