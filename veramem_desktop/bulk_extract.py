"""Extraction for the bulk import with a model: several messages per call, a bounded number of
calls at once, and a failed call retried one message at a time.

The import stores a batch's episodes, then asks the model for their candidate memories in
calls of ``per_call`` messages of one session (each call with the session's earlier turns
as context, read from the store first, on the calling thread: the worker threads only talk
to the model). At most ``at_once`` calls run together. When a call of several messages
fails (the model is down, slow, or gives junk), each of its messages is asked for alone,
through the backend's own fallback (the rule-based extractor when the model fails again),
so one bad message costs nobody else their memories and no message is ever dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.llm import LLM, Candidate, Message
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.write import context as write_context

#: messages of one session per extraction call
PER_CALL = 8
#: extraction calls in flight at once (Ollama serves a few requests in parallel; more only queue there)
AT_ONCE = 2


@dataclass
class Extracted:
    candidates: list[Candidate] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def chunks(episodes: Sequence[Episode], per_call: int) -> list[list[Episode]]:
    """``episodes`` in order, cut at each change of session and every ``per_call`` messages."""
    out: list[list[Episode]] = []
    for ep in episodes:
        if out and len(out[-1]) < per_call and out[-1][-1].session_id == ep.session_id:
            out[-1].append(ep)
        else:
            out.append([ep])
    return out


def extract_in_batches(
    llm: LLM,
    store: Store,
    episodes: Sequence[Episode],
    *,
    read: Callable[[Sequence[Episode]], list[Message]],
    per_call: int = PER_CALL,
    at_once: int = AT_ONCE,
) -> Extracted:
    """The candidate memories of ``episodes`` (stored already), in message order. ``read`` gives the
    messages an extraction reads (the writer's: core/write/casing.py)."""
    if per_call < 1 or at_once < 1:
        raise ValueError("per_call and at_once must be at least 1")
    parts = chunks(episodes, per_call)
    budget = llm.capabilities.context_tokens
    # the store is read here, on the calling thread: the workers only talk to the model
    jobs = [(read(part), read(write_context.preceding_turns(store, part, budget))) for part in parts]
    # A call of several messages goes to the model alone (not through a fallback that would answer
    # for all of them with the simpler extractor): its failure is what sends each message on its own.
    whole = llm.without_fallback()
    with ThreadPoolExecutor(max_workers=min(at_once, len(parts)) or 1, thread_name_prefix="extract") as pool:
        results = list(pool.map(lambda job: _one_call(llm, whole, *job), jobs))
    out = Extracted()
    for found in results:
        out.candidates += found.candidates
        out.notices += found.notices
    return out


def _one_call(llm: LLM, whole: LLM, messages: list[Message], earlier: list[Message]) -> Extracted:
    if len(messages) == 1:
        return _alone(llm, messages[0], earlier)
    try:
        reply = whole.extract(messages, earlier)
        return Extracted(list(reply.value), reply.lines())
    except ModelError as exc:
        out = Extracted(
            notices=[
                f"extraction of {len(messages)} messages in one call failed ({exc.message}); "
                "each was extracted on its own"
            ]
        )
    for message in messages:
        found = _alone(llm, message, earlier)
        out.candidates += found.candidates
        out.notices += found.notices
    return out


def _alone(llm: LLM, message: Message, earlier: Sequence[Message]) -> Extracted:
    try:
        reply = llm.extract([message], earlier)
        return Extracted(list(reply.value), reply.lines())
    except ModelError as exc:
        return Extracted(
            notices=[
                f"no memories were derived from episode {message.id} ({exc.message}); "
                "it is stored and searchable"
            ]
        )
