"""The bulk import's second step: memories derived from the stored messages, one message at a time, in
message-time order.

A chat export lists its conversations one after another, while a person's life runs through them
interleaved: "I live in Berlin" in one conversation and "we moved to Amsterdam" in another written a
month later must be reconciled in the order they were said, whatever order the file gives them in.
And what a message derives must not depend on which other messages share its batch, so each message
is derived on its own, in its own transaction (as a single ``add`` of it would be), seeing every
memory derived before it, with the turn before it in its session as its context. The batch only
decides how often the disk is waited for and how many messages a model's extraction calls share;
the memories are the same at any batch size, and after a kill (core/storage/import_queue.py keeps
the place reached, in the transaction that reached it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from veramem_desktop.core.lifecycle import links as links_mod
from veramem_desktop.core.llm import Candidate
from veramem_desktop.core.storage import episode_turns, import_queue, pending_rows
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.transfer.import_report import ImportReport
from veramem_desktop.core.write import context as write_context
from veramem_desktop.core.write.derive import Writer
from veramem_desktop.core.write.results import AddResult

from ..bulk_extract import PER_CALL, Extracted, extract_in_batches

#: derive(writer, episodes, candidates or None, context, failed) -> what was written; the ids of messages
#: whose derivation failed are appended to ``failed``
Derive = Callable[
    [Writer, Sequence[Episode], "Sequence[Candidate] | None", Sequence[Episode], list[str]], AddResult
]


def derive_waiting(
    store: Store,
    writer: Writer,
    user_id: str | None,
    report: ImportReport,
    *,
    batch_size: int,
    linking: bool,
    derive: Derive,
    after_batch: Callable[[int, int], None] | None = None,
) -> None:
    """Derive the memories of every message of ``user_id`` an import stored and left waiting, one at a
    time in message-time order (``batch_size`` at a time for a model's extraction calls); counted in
    ``report``. ``after_batch(done, total)`` is told the messages derived so far after each batch."""
    state = import_queue.state(store, user_id)
    if state is None:
        return
    first_id, after = state
    todo = import_queue.waiting(store, user_id, first_id, after)
    per_call = PER_CALL if writer.llm.capabilities.batch_extraction else 1
    done = 0
    for part in _batches(todo, batch_size, per_call):
        episodes = import_queue.read(store, [eid for _, eid in part])
        extracted = (
            extract_in_batches(writer.llm, store, episodes, read=writer.casing.messages)
            if writer.llm.capabilities.batch_extraction
            else _extract_by_runs(store, writer, episodes)
        )
        if extracted is not None:
            _count(AddResult(notices=extracted.notices), report)
        places = dict((eid, place) for place, eid in part)
        for i, ep in enumerate(episodes):
            candidates = (
                None if extracted is None else [c for c in extracted.candidates if c.message_id == ep.id]
            )
            # One transaction per message, so the next message's reconciliation sees what this one wrote
            # (the memories' vector cache reads committed rows). The batch's last commit waits for the disk;
            # those before it may be lost in a power cut, and the place reached goes with them, so a resumed
            # import derives them again.
            with store.atomic(durable=i == len(episodes) - 1) as conn:
                failed: list[str] = []
                outcome = derive(writer, [ep], candidates, _context(store, writer, ep), failed)
                pending_rows.queue(conn, failed)  # derived again by consolidate, queued in this transaction
                new_ids = [d["id"] for d in outcome.added + outcome.updated]
                if new_ids and linking:
                    links_mod.enqueue(conn, new_ids)
                import_queue.advance(conn, user_id, places[ep.id])
            _count(outcome, report)
        done += len(part)
        if after_batch is not None:
            after_batch(done, len(todo))
    with store.atomic() as conn:
        import_queue.finish(conn, user_id)


def _batches(
    todo: list[tuple[import_queue.Place, str]], batch_size: int, per_call: int
) -> list[list[tuple[import_queue.Place, str]]]:
    """``todo`` cut into batches of at least ``batch_size`` messages (the last may be smaller), each made
    of whole extraction calls: runs of at most ``per_call`` consecutive messages of one session, cut as
    bulk_extract.chunks cuts them. So a model is asked about the same groups of messages, with the same
    context, whatever the batch size."""
    out: list[list[tuple[import_queue.Place, str]]] = []
    current: list[tuple[import_queue.Place, str]] = []
    run = 0
    for item in todo:
        if not current or item[0][1] != current[-1][0][1] or run >= per_call:  # a new call begins
            if len(current) >= batch_size:
                out.append(current)
                current = []
            run = 0
        current.append(item)
        run += 1
    if current:
        out.append(current)
    return out


def _extract_by_runs(store: Store, writer: Writer, episodes: Sequence[Episode]) -> Extracted | None:
    """Without a model's batch calls: the candidates of ``episodes``, extracted in one call per run of
    consecutive turns of one session, with the turn before the run as context, which gives each message
    what extracting it alone with the turn before it gives (a reply reads its question from the turn
    before), while the rule-based extractor parses a call's sentences together (several times faster).
    None when a call fails: each message is then extracted as it is derived."""
    out = Extracted()
    runs: list[list[Episode]] = []
    for ep in episodes:
        last = runs[-1][-1] if runs else None
        if last is not None and (last.session_id, last.turn_index + 1) == (ep.session_id, ep.turn_index):
            runs[-1].append(ep)
        else:
            runs.append([ep])
    for run in runs:
        try:
            reply = writer.llm.extract(
                writer.casing.messages(run), writer.casing.messages(_context(store, writer, run[0]))
            )
        except Exception:  # noqa: BLE001 - fail open: each message is extracted alone as it is derived,
            return None  # where a failing one costs only its own memories (importer._derive)
        out.candidates += reply.value
        out.notices += reply.lines()
    return out


def _context(store: Store, writer: Writer, ep: Episode) -> list[Episode]:
    """The turns before ``ep`` in its session that its extraction sees: the model's budget of them, and at
    least the turn just before (whose question a reply answers), whichever order they were stored in."""
    budget = writer.llm.capabilities.context_tokens
    if budget > 0:
        return write_context.preceding_turns(store, [ep], budget)
    before = episode_turns.turn_beside(store, ep.session_id, ep.turn_index, after=False)
    return [before] if before is not None else []


def _count(outcome: AddResult, report: ImportReport) -> None:
    for name in report.memories:
        report.memories[name] += len(getattr(outcome, name))
    for notice in outcome.notices:
        if notice not in report.notices and len(report.notices) < 50:
            report.notices.append(notice)
