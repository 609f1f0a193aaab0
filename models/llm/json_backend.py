"""Every LLM task on top of one small transport that returns a JSON object.

A transport (Ollama, an OpenAI-compatible endpoint, Anthropic) only knows how to send a
system prompt, a user prompt and a reply schema, and how to hand back the JSON object
the model wrote. This class builds the prompts, validates each reply strictly into the
engine's values, and asks again (a bounded number of times) when a reply is unusable.
A model that cannot be reached is not asked again: that would only repeat the wait.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol, TypeVar, runtime_checkable

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.llm import (
    DEFAULT_CONTEXT_TOKENS,
    AnswerDraft,
    Candidate,
    Capabilities,
    ContextItem,
    Decision,
    LinkVerdict,
    Message,
    Neighbour,
    Notice,
    Reply,
)
from veramem_desktop.core.text.explicit_dates import normalise_explicit_dates
from veramem_desktop.core.text.relative_dates import resolve_relative_dates
from veramem_desktop.core.text.time_values import parse_time
from veramem_desktop.models.llm import prompts
from veramem_desktop.models.llm.errors import MalformedReplyError
from veramem_desktop.models.llm.prompts import TaskPrompt
from veramem_desktop.models.llm.validate import (
    parse_abstract,
    parse_answer,
    parse_extract,
    parse_hypothesis,
    parse_link,
    parse_reconcile,
    parse_summary,
    refuse_context_quotes,
)

T = TypeVar("T")


@runtime_checkable
class JsonTransport(Protocol):
    """Sends one request to a model and returns the JSON object it replied with.

    Raises ``BackendUnavailableError`` when the model cannot be reached or does not answer
    in time, and ``MalformedReplyError`` when the reply holds no JSON object.
    """

    @property
    def name(self) -> str: ...

    def complete_json(self, system: str, prompt: str, schema: dict[str, Any]) -> dict[str, Any]: ...


class JsonLLM:
    """The :class:`~veramem_desktop.core.llm.LLM` protocol over a :class:`JsonTransport`."""

    def __init__(
        self, transport: JsonTransport, *, retries: int = 1, context_tokens: int = DEFAULT_CONTEXT_TOKENS
    ) -> None:
        if retries < 0:
            raise ValueError(f"retries must be 0 or more, got {retries}")
        if context_tokens < 0:
            raise ValueError(f"context_tokens must be 0 or more, got {context_tokens}")
        self.transport = transport
        self.retries = retries
        #: tokens of a session's earlier turns an extraction prompt carries as context (0: none)
        self.context_tokens = context_tokens

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities(
            self.transport.name, rule_based=False, batch_extraction=True, context_tokens=self.context_tokens
        )

    def without_fallback(self) -> JsonLLM:
        return self

    # --- the protocol -------------------------------------------------------------------------

    def extract(self, messages: Sequence[Message], context: Sequence[Message] = ()) -> Reply[list[Candidate]]:
        if not messages:
            return Reply([])
        ids = [m.id for m in messages]
        context = prompts.within_budget(context, self.context_tokens)
        request = TaskPrompt(
            "extract",
            prompts.EXTRACT_SYSTEM,
            prompts.extract_prompt(messages, context),
            prompts.extract_schema(ids),
        )
        reply = self._call(request, lambda answer: parse_extract(answer, set(ids)))
        by_id = {m.id: m for m in messages}
        candidates, refused = refuse_context_quotes(
            reply.value, {m.id: m.content for m in messages}, [m.content for m in context]
        )
        notices = reply.notices
        if refused:
            cited = ", ".join(sorted({c.message_id for c in refused}))
            notices += (
                Notice(
                    self.transport.name,
                    "extract",
                    f"Refused {len(refused)} memory(ies) citing {cited} whose quote comes only from earlier "
                    "turns given as context; context is for understanding references, not a source.",
                ),
            )
        return Reply([_dates_made_explicit(c, by_id[c.message_id]) for c in candidates], notices)

    def reconcile(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Reply[Decision]:
        if not neighbours:
            return Reply(Decision(op="ADD", reason="no existing memory in scope"))
        key = {"subject": candidate.subject, "predicate": candidate.predicate, "value": candidate.value}
        ids = [n.id for n in neighbours]
        request = TaskPrompt(
            "reconcile",
            prompts.RECONCILE_SYSTEM,
            prompts.reconcile_prompt(candidate.text, candidate.kind, key, neighbours),
            prompts.reconcile_schema(ids),
        )
        return self._call(request, lambda reply: parse_reconcile(reply, set(ids)))

    def answer(self, question: str, items: Sequence[ContextItem], fenced_context: str) -> Reply[AnswerDraft]:
        if not items:
            return Reply(AnswerDraft(text="No stored memory answers this.", abstained=True, sufficient=False))
        ids = [i.id for i in items]
        request = TaskPrompt(
            "answer",
            prompts.ANSWER_SYSTEM,
            prompts.answer_prompt(question, items, fenced_context),
            prompts.answer_schema(ids),
        )
        return self._call(request, lambda reply: parse_answer(reply, set(ids)))

    def summarise(self, texts: Sequence[str]) -> Reply[str]:
        if not texts:
            return Reply("")
        request = TaskPrompt(
            "summarise", prompts.SUMMARISE_SYSTEM, prompts.summarise_prompt(texts), prompts.SUMMARISE_SCHEMA
        )
        return self._call(request, parse_summary)

    def abstract_experience(self, text: str) -> Reply[str]:
        request = TaskPrompt(
            "abstract_experience",
            prompts.ABSTRACT_SYSTEM,
            prompts.abstract_prompt(text),
            prompts.ABSTRACT_SCHEMA,
        )
        return self._call(request, parse_abstract)

    def link(self, a: str, b: str) -> Reply[LinkVerdict]:
        request = TaskPrompt("link", prompts.LINK_SYSTEM, prompts.link_prompt(a, b), prompts.LINK_SCHEMA)
        return self._call(request, parse_link)

    def hypothesise(self, question: str) -> Reply[str | None]:
        request = TaskPrompt(
            "hypothesise",
            prompts.HYPOTHESISE_SYSTEM,
            prompts.hypothesise_prompt(question),
            prompts.HYPOTHESISE_SCHEMA,
        )
        # asked once: a search waits for it, and a channel without a hypothesis only adds nothing
        return self._call(request, parse_hypothesis, attempts=1)

    # --- one task, with bounded retries -------------------------------------------------------

    def _call(
        self, request: TaskPrompt, parse: Callable[[dict[str, Any]], T], *, attempts: int | None = None
    ) -> Reply[T]:
        """The parsed reply, with one notice per unusable reply that was asked again for."""
        prompt = request.prompt
        attempts = self.retries + 1 if attempts is None else attempts
        notices: list[Notice] = []
        for attempt in range(1, attempts + 1):
            try:
                value = parse(self.transport.complete_json(request.system, prompt, request.schema))
                return Reply(value, tuple(notices))
            except MalformedReplyError as error:
                if attempt == attempts:
                    raise MalformedReplyError(
                        f"{self.transport.name} gave no usable {request.task} reply in {attempts} "
                        f"attempt{'s' if attempts > 1 else ''}. Last problem: {error.message}"
                    ) from error
                notices.append(
                    Notice(
                        self.transport.name, request.task, f"Unusable reply, asking again: {error.message}"
                    )
                )
                prompt = (
                    f"{request.prompt}\n\nYour previous reply could not be used: {error.message} "
                    "Reply again with one JSON object that follows the schema exactly."
                )
        raise AssertionError("unreachable: the loop returns or raises")


def _dates_made_explicit(candidate: Candidate, message: Message) -> Candidate:
    """Resolve any relative date the model left in the memory text against its message's time."""
    text = normalise_explicit_dates(candidate.text)
    try:
        text = resolve_relative_dates(text, parse_time(message.time))
    except InvalidInputError:
        pass  # a message without a readable time keeps the model's wording
    return candidate if text == candidate.text else replace(candidate, text=text)
