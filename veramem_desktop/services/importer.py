"""Importing chat history and exporting memories, for one open store.

The bulk write path, in two steps. First the messages are read as a stream
(``core/transfer/chats.py``) and stored in batches of ``batch_size``, one transaction each: the
batch's episodes with their vectors (embedded together), marked as waiting for derivation
(core/storage/import_queue.py). Then the memories are derived from the waiting messages in
message-time order, one message at a time, ``batch_size`` messages per transaction, with their
ledger entries and their place in the linking queue (services/import_derive.py), so an import
derives the same memories at any batch size, and conversations that interleave in time are
reconciled in the order things were said. Linking itself runs in the background once the import is
done. A message whose import key is already stored (in its session, for that user) is skipped, so a
second run adds nothing and a run after an interrupted one (even a killed one) stores exactly what
was missing and derives what was left waiting.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import KW_ONLY, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.llm import Candidate
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.core.storage import episode_contents, import_queue, limits
from veramem_desktop.core.storage import episodes as episodes_mod
from veramem_desktop.core.storage.episodes import Episode, EpisodeInput, Scope
from veramem_desktop.core.storage.ids import iso
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.text.time_values import parse_time
from veramem_desktop.core.transfer import full_export, memory_export, memory_import
from veramem_desktop.core.transfer.chats import open_source
from veramem_desktop.core.transfer.import_report import ImportReport
from veramem_desktop.core.transfer.records import Item, Problem, Record
from veramem_desktop.core.trust import admission
from veramem_desktop.core.write.derive import Writer
from veramem_desktop.core.write.ingest import line_of, store_episodes
from veramem_desktop.core.write.results import AddResult

from ..config import IdentitySettings
from .import_derive import derive_waiting
from .organiser import Organiser
from .writes import scope_for

#: messages per transaction (and per extraction call) with the rule-based backend
BATCH_SIZE = 128
#: with a model: fewer messages per extraction call, and the write lock is not held long while it answers
MODEL_BATCH_SIZE = 16
#: sessions whose stored import keys are kept in memory at once
KEY_CACHE_SESSIONS = 256

#: the unit of the import's second step's progress: messages whose memories are derived
DERIVED_UNIT = "messages derived"
#: progress(done, total, unit, counts); the unit changes once, from what is read to DERIVED_UNIT
ImportProgress = Callable[[int, int, str, dict[str, int]], None]


@dataclass(eq=False)
class Importer:
    """Imports into (and exports from) one open store. ``embedder`` and ``writer`` are built on first use:
    a dry run needs neither, and a memory export needs no model at all."""

    store: Store
    _: KW_ONLY
    embedder: Callable[[], Embedder]
    writer: Callable[[], Writer]
    identity: IdentitySettings
    linking: bool
    device: str
    organiser: Organiser

    def import_history(
        self,
        path: str | Path,
        *,
        format: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        team_id: str | None = None,
        session_id: str | None = None,
        since: str | datetime | None = None,
        dry_run: bool = False,
        batch_size: int | None = None,
        progress: ImportProgress | None = None,
        on_record: Callable[[Record], None] | None = None,
        include_forgotten: bool = False,
    ) -> ImportReport:
        """Import chat history (ChatGPT or Claude export, message lists, documents) or a memory export.

        ``since`` keeps only messages at or after that time; ``dry_run`` stores nothing and
        calls ``on_record`` with each message that would be stored. Messages already stored
        by an earlier import are skipped. Unreadable records are listed in the report with
        their position and skipped. ``batch_size`` (messages per transaction while storing,
        and per commit that waits for the disk while deriving, where a batch holds whole extraction calls)
        defaults to 128 with the rule-based backend and 16 with a model; the memories do not depend on it.
        A message that is an episode a person forgot is skipped and counted (``forgotten``);
        ``include_forgotten`` (a person's deliberate act, never offered to agents) stores it again, and the
        ledger records that it did.
        """
        source_path = Path(path).expanduser()
        if batch_size is not None and batch_size < 1:
            raise InvalidInputError("batch_size must be at least 1.")
        limits.check_scope(user_id=user_id, agent_id=agent_id, team_id=team_id, session_id=session_id)
        since_iso = _since_iso(since)
        src = open_source(source_path, format, session_id=session_id)
        report = ImportReport(str(source_path), src.format, dry_run=dry_run)
        started = time.perf_counter()
        if src.format == "memories":
            return self._import_archive(
                source_path, report, dry_run=dry_run, started=started, include_forgotten=include_forgotten
            )
        base = scope_for(self.identity, user_id, agent_id, team_id, None)
        known: OrderedDict[str, set[str]] = OrderedDict()
        sessions: set[str] = set()
        writer = None if dry_run else self.writer()
        batch_size = batch_size or _default_batch(writer)
        batch: list[Record] = []

        def flush() -> None:
            fresh, overridden = self._admitted_records(
                self._unseen(batch, base, known, report), base, report, include_forgotten
            )
            sessions.update(r.session_id for r in fresh)
            self._store_fresh(fresh, base, writer, report, on_record, overridden)
            _remember_keys(fresh, known)
            batch.clear()
            _progress(progress, src, report)

        if writer is not None and _interrupted_midway(self.store, base.user_id):
            # an import killed while deriving: its messages are derived first, in the order they began in
            self._derive_waiting(writer, base.user_id, report, batch_size)
        try:
            for item in src.items():
                if _admitted(item, since_iso, report):
                    batch.append(item)
                    if len(batch) >= batch_size:
                        flush()
            flush()
            if writer is not None:
                self._derive_waiting(writer, base.user_id, report, batch_size, _deriving(progress, report))
        finally:
            src.close()
            report.sessions = len(sessions)
            report.seconds = time.perf_counter() - started
        if not dry_run and report.stored and self.linking:
            self.organiser.start_linker()  # what the batches queued is linked in the background
        return report

    def _derive_waiting(
        self,
        writer: Writer,
        user_id: str | None,
        report: ImportReport,
        batch_size: int,
        after_batch: Callable[[int, int], None] | None = None,
    ) -> None:
        derive_waiting(
            self.store,
            writer,
            user_id,
            report,
            batch_size=batch_size,
            linking=self.linking,
            derive=_derive,
            after_batch=after_batch,
        )

    # ------------------------------------------------------------ batches
    def _unseen(
        self, batch: Sequence[Record], base: Scope, known: OrderedDict[str, set[str]], report: ImportReport
    ) -> list[Record]:
        """The records of ``batch`` whose import keys are not stored yet (nor earlier in the batch)."""
        fresh: list[Record] = []
        for rec in batch:
            keys = known.get(rec.session_id)
            if keys is None:
                keys = known[rec.session_id] = episode_contents.import_keys(
                    self.store, rec.session_id, base.user_id
                )
                while len(known) > KEY_CACHE_SESSIONS:
                    known.popitem(last=False)
            else:
                known.move_to_end(rec.session_id)
            if rec.key in keys or any(f.key == rec.key for f in fresh):
                report.already_stored += 1
                continue
            fresh.append(rec)
        return fresh

    def _admitted_records(
        self, records: list[Record], base: Scope, report: ImportReport, include_forgotten: bool
    ) -> tuple[list[Record], set[str]]:
        """The records the admission gate lets in (core/trust/admission.py), and the import keys of those
        let in only by ``include_forgotten``; forgotten ones are counted in ``report``."""
        if not records:
            return records, set()
        incoming = [
            admission.Incoming(r.role, r.content, base.user_id, event_time=r.time, import_key=r.key)
            for r in records
        ]
        with self.store.read() as conn:
            screened = admission.screen(conn, incoming, include_forgotten=include_forgotten)
        report.note_forgotten(list(screened.forgotten.values()))
        return [records[i] for i in screened.admitted], {records[i].key for i in screened.overridden}

    def _store_fresh(
        self,
        fresh: Sequence[Record],
        base: Scope,
        writer: Writer | None,
        report: ImportReport,
        on_record: Callable[[Record], None] | None,
        overridden: AbstractSet[str] = frozenset(),
    ) -> None:
        """Store a batch's new records (``writer`` None: a dry run, which only counts and shows them)."""
        if writer is None:
            _count_would_store(fresh, report, on_record)
        elif fresh:
            self._write_batch(fresh, base, report, overridden)

    def _write_batch(
        self,
        records: Sequence[Record],
        base: Scope,
        report: ImportReport,
        overridden: AbstractSet[str] = frozenset(),
    ) -> None:
        """One transaction: the batch's episodes (grouped by session, in order), marked as waiting for
        their memories, which are derived once every message is stored (services/import_derive.py)."""
        groups: list[tuple[str, list[EpisodeInput]]] = []
        for rec in records:
            inp = EpisodeInput(
                content=rec.content,
                role=rec.role,
                name=rec.name,
                time=rec.time,
                metadata={**rec.metadata, "import_key": rec.key},
            )
            if groups and groups[-1][0] == rec.session_id:
                groups[-1][1].append(inp)
            else:
                groups.append((rec.session_id, [inp]))
        # The episodes' vectors are computed before the transaction opens, so the store's write
        # lock is held only for the writing.
        memo = _Memo(self.embedder())
        memo.prefetch([t for session, inputs in groups for t in self._episode_texts(session, inputs)])
        with self.store.atomic() as conn:
            stored = []
            for session, inputs in groups:
                scope = Scope(base.user_id, base.agent_id, base.team_id, session)
                stored += store_episodes(self.store, memo, inputs, scope, device=self.device)
            if overridden:  # a person let forgotten episodes in: the ledger says which
                admission.ledger_override(
                    conn,
                    [e.id for e in stored if e.metadata.get("import_key") in overridden],
                    device=self.device,
                )
            import_queue.note_stored(conn, base.user_id, [e.id for e in stored])
        report.stored += len(stored)

    def _episode_texts(self, session: str, inputs: Sequence[EpisodeInput]) -> list[str]:
        """The texts ``store_episodes`` will embed for ``inputs``: each turn's line (context vectors are
        built from line vectors, the previous stored turn's read from the store)."""
        return [line_of(i.role, i.name, i.content) for i in inputs]

    # ------------------------------------------------------------ memory export and import
    def export_memories(
        self, path: str | Path, *, format: str = "jsonl", user_id: str | None = None, overwrite: bool = False
    ) -> dict[str, int]:
        """Write every memory with its versions, validity, evidence (and the episodes quoted),
        authority, trust and links, as JSON lines or Markdown. PLAINTEXT, created with mode 0600."""
        if format not in ("jsonl", "markdown"):
            raise InvalidInputError(f"Unknown export format {format!r}; use jsonl or markdown.")
        return memory_export.export(
            self.store,
            Path(path).expanduser(),
            fmt=format,
            user_id=user_id,
            overwrite=overwrite,
            store_id=self.store.get_meta("store_id"),
        )

    def export_all(
        self, path: str | Path, *, user_id: str | None = None, overwrite: bool = False
    ) -> dict[str, int]:
        """Write every episode and every memory as one JSON-lines file ``import_history`` reads back.
        PLAINTEXT, created with mode 0600."""
        return full_export.export_all(
            self.store,
            Path(path).expanduser(),
            user_id=user_id,
            overwrite=overwrite,
            store_id=self.store.get_meta("store_id"),
        )

    def _import_archive(
        self, path: Path, report: ImportReport, *, dry_run: bool, started: float, include_forgotten: bool
    ) -> ImportReport:
        result = memory_import.import_archive(
            self.store,
            self.embedder(),
            path,
            device=self.device,
            dry_run=dry_run,
            include_forgotten=include_forgotten,
        )
        report.note_forgotten(result.forgotten)
        report.read, report.stored, report.already_stored = result.read, result.stored, result.already_stored
        report.memories = {
            "added": result.memories,
            "versions": result.versions,
            "episodes": result.episodes,
            "links": result.links,
        }
        for p in result.problems:
            report.problem(p)
        report.notices += result.notices
        report.seconds = time.perf_counter() - started
        return report


class _Memo:
    """An embedder that answers from vectors computed ahead (``prefetch``) and embeds the rest."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.vectors: dict[str, Any] = {}

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def prefetch(self, texts: Sequence[str]) -> None:
        todo = list(dict.fromkeys(t for t in texts if t not in self.vectors))
        if todo:
            self.vectors.update(zip(todo, self.inner.embed(todo), strict=True))

    def embed(self, texts: Sequence[str]) -> Any:
        self.prefetch(texts)
        return np.stack([self.vectors[t] for t in texts]) if texts else self.inner.embed([])


def _default_batch(writer: Writer | None) -> int:
    """Messages per transaction: fewer with a model that extracts several per call."""
    model = writer is not None and writer.llm.capabilities.batch_extraction
    return MODEL_BATCH_SIZE if model else BATCH_SIZE


def _since_iso(since: str | datetime | None) -> str | None:
    """``--since`` as the canonical UTC text records' times are compared with, or None."""
    if since is None:
        return None
    return iso(since) if isinstance(since, datetime) else iso(parse_time(str(since)))


def _admitted(item: Item, since_iso: str | None, report: ImportReport) -> TypeGuard[Record]:
    """Whether ``item`` goes into a batch: a readable record, not before ``since``, within the limits.
    Counts it in ``report`` (read, before --since, or the problem that keeps it out)."""
    if isinstance(item, Problem):
        report.problem(item)
        return False
    report.read += 1
    if since_iso is not None and item.time is not None and item.time < since_iso:
        report.before_since += 1
        return False
    checked = _checked(item)
    if isinstance(checked, Problem):
        report.problem(checked)
        return False
    return True


def _progress(progress: ImportProgress | None, src: Any, report: ImportReport) -> None:
    if progress is not None:
        progress(src.done(), src.total, src.unit, report.counts())


def _deriving(progress: ImportProgress | None, report: ImportReport) -> Callable[[int, int], None] | None:
    """The progress of the second step, in messages derived (a unit of its own after the bytes read)."""
    if progress is None:
        return None
    return lambda done, total: progress(done, total, DERIVED_UNIT, report.counts())


def _interrupted_midway(store: Store, user_id: str | None) -> bool:
    """Whether an earlier import of ``user_id`` was stopped while deriving its messages' memories."""
    state = import_queue.state(store, user_id)
    return state is not None and state[1] is not None


def _remember_keys(fresh: Sequence[Record], known: OrderedDict[str, set[str]]) -> None:
    """Add the batch's import keys to the sessions still cached (one no longer cached is read again
    from the store when next seen)."""
    for rec in fresh:
        if rec.session_id in known:
            known[rec.session_id].add(rec.key)


def _count_would_store(
    fresh: Sequence[Record], report: ImportReport, on_record: Callable[[Record], None] | None
) -> None:
    """A dry run's batch: each new record counted as stored and shown to ``on_record``."""
    for rec in fresh:
        report.stored += 1
        if on_record is not None:
            on_record(rec)


def _checked(rec: Record) -> Record | Problem:
    """A record within the limits every add is held to (``core/storage/limits.py``), or why not."""
    try:
        episodes_mod.validate(
            [
                EpisodeInput(
                    content=rec.content, role=rec.role, name=rec.name, time=rec.time, metadata=rec.metadata
                )
            ]
        )
        limits.check_line(rec.session_id, "session id", "Message 1", limit=limits.MAX_ID_CHARS)
    except InvalidInputError as exc:
        return Problem(rec.position, exc.message.replace("Message 1: ", "").replace("Message 1", "it"))
    return rec


def _derive(
    writer: Writer,
    stored: Sequence[Episode],
    candidates: Sequence[Candidate] | None = None,
    context: Sequence[Episode] = (),
    failed: list[str] | None = None,
) -> AddResult:
    """Derive from the whole batch (from ``candidates`` when they were extracted already); should that
    fail unexpectedly, from each half in turn, down to single messages, so a message that trips the
    write path costs only its own memories (its episode stays stored and searchable) and the rest of the
    batch is still derived together."""
    try:
        return writer.derive(stored, candidates=candidates, context=context)
    except Exception as exc:  # noqa: BLE001 - fail open: the episodes are stored and searchable
        if len(stored) == 1:
            if failed is not None:
                failed.append(stored[0].id)
            return AddResult(
                notices=[
                    f"no memories were derived from episode {stored[0].id} "
                    f"({type(exc).__name__}); it is stored and searchable, and derived again at the next "
                    "`veramem consolidate`"
                ]
            )
    merged = AddResult()
    half = len(stored) // 2
    for part in (
        _derive(writer, stored[:half], _citing(candidates, stored[:half]), context, failed),
        _derive(writer, stored[half:], _citing(candidates, stored[half:]), context, failed),
    ):
        merged.extend(part)
    return merged


def _citing(candidates: Sequence[Candidate] | None, episodes: Sequence[Episode]) -> list[Candidate] | None:
    """The candidates that cite one of ``episodes`` (None stays None: extract them again)."""
    if candidates is None:
        return None
    ids = {e.id for e in episodes}
    return [c for c in candidates if c.message_id in ids]
