"""The admission gate's steps for the import of a memory export (core/transfer/memory_import.py).

Each episode and memory of the file passes core/trust/admission.py: an episode this store forgot (its
id tombstoned, or its marks) is skipped and counted, and so is a memory whose versions were forgotten
or whose evidence was refused; an expired item is not imported; trust is never the file's (a memory
is a candidate unless this store's ledger records a person approving it), a lower-authority memory
keeps its source's wording, and one restating a rejected value is not imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from veramem_desktop.core.storage import episodes as episodes_mod
from veramem_desktop.core.storage import rejections
from veramem_desktop.core.storage.episode_contents import Said
from veramem_desktop.core.storage.episodes import EPISODE_COLUMNS, Episode
from veramem_desktop.core.storage.ids import now_iso
from veramem_desktop.core.storage.items import AUTHORITY_RANK, ROLE_AUTHORITY, Evidence, MemoryItem
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.transfer.records import Problem
from veramem_desktop.core.trust import admission
from veramem_desktop.core.vocabulary import Authority, Trust

_EPISODE_FIELDS = [c.strip() for c in EPISODE_COLUMNS.split(",")]
Version = tuple[MemoryItem, list[Evidence], list[str]]


@dataclass
class ArchiveResult:
    read: int = 0
    stored: int = 0
    already_stored: int = 0
    memories: int = 0
    versions: int = 0
    episodes: int = 0
    links: int = 0
    problems: list[Problem] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    #: with ``dry_run``, the episodes read so far (id -> (content, role)), for checking quotes
    dry_episodes: dict[str, Said] = field(default_factory=dict)
    #: when each row skipped as forgotten was forgotten (ISO), and the episodes skipped so
    forgotten: list[str] = field(default_factory=list)
    forgotten_episodes: set[str] = field(default_factory=set)
    include_forgotten: bool = False


def admitted_episodes(
    store: Store, eps: list[Episode], result: ArchiveResult
) -> tuple[list[Episode], list[str]]:
    """The episodes the admission gate lets in, and the ids of those only ``include_forgotten`` let in.
    Forgotten ones (a tombstone under the same id, or the episode's marks) and expired ones are skipped."""
    now = now_iso()
    live = [e for e in eps if not admission.expired(e.metadata, now)]
    result.notices += [
        f"episode {e.id} expired at {e.metadata.get('expires_at')}; not imported"
        for e in eps
        if e not in live
    ]
    with store.read() as conn:
        by_id = admission.tombstoned(conn, [e.id for e in live])
        screened = admission.screen(
            conn,
            [admission.incoming_of_row(dict(zip(_EPISODE_FIELDS, values(e), strict=True))) for e in live],
            include_forgotten=result.include_forgotten,
        )
    out, overridden = [], []
    for i, ep in enumerate(live):
        when = screened.forgotten.get(i) or (None if result.include_forgotten else by_id.get(ep.id))
        if when is not None:
            result.forgotten.append(when)
            result.forgotten_episodes.add(ep.id)
            continue
        out.append(ep)
        if i in screened.overridden or ep.id in by_id:
            overridden.append(ep.id)
    return out, overridden


def values(ep: Episode) -> tuple[Any, ...]:
    """An imported episode's row (core/storage/episodes.as_row), its turn read as a whole number and no
    metadata as an empty object."""
    return episodes_mod.as_row(replace(ep, turn_index=int(ep.turn_index), metadata=ep.metadata or {}))


def forgotten_chain(
    store: Store, chain: list[tuple[MemoryItem, list[Evidence], list[str]]], result: ArchiveResult
) -> bool:
    """Whether a memory is one this store forgot: a version's id is tombstoned, or its evidence is an
    episode the gate refused as forgotten (a forget erases every version, so the whole chain goes)."""
    if any(ev.episode_id in result.forgotten_episodes for _, evidence, _ in chain for ev in evidence):
        result.forgotten.append(min(result.forgotten) if result.forgotten else now_iso())
        return True
    with store.read() as conn:
        by_id = admission.tombstoned(conn, [item.id for item, _, _ in chain])
    if not by_id or result.include_forgotten:
        return False
    result.forgotten.append(min(by_id.values()))
    return True


def admitted_chain(
    store: Store, chain: list[tuple[MemoryItem, list[Evidence], list[str]]], where: str, result: ArchiveResult
) -> list[tuple[MemoryItem, list[Evidence], list[str]]] | None:
    """A checked chain as the admission gate lets it in: trust as this store's ledger says (never as the
    file says), a lower-authority version worded after its source; refused when a version restates a
    value a person rejected, or has expired."""
    out = []
    now = now_iso()
    with store.atomic() as conn:  # the rejection keys may be made on first use
        for item, evidence, derived in chain:
            if admission.expired(item.metadata, now):
                result.notices.append(f"{where}: memory {item.id} expired; not imported")
                return None
            trust = admission.file_trust(conn, item.id, item.trust)
            if trust != item.trust:
                result.notices.append(
                    f"memory {item.id}: trust {item.trust!r} from the file kept as {trust!r}"
                )
            text = item.text
            if evidence and item.authority != Authority.AUTHORIZED:
                weakest = min(evidence, key=lambda e: AUTHORITY_RANK[ROLE_AUTHORITY[e.role]])
                source = episodes_mod.get(store, weakest.episode_id)
                text = admission.attributed_text(text, weakest.role, source.source_name if source else None)
            if trust != Trust.REJECTED and rejections.is_rejected(conn, item, item, text):
                result.notices.append(
                    f"{where}: memory {item.id} restates a value you rejected; not imported"
                )
                return None
            out.append((replace(item, trust=trust, text=text), evidence, derived))
    return out
