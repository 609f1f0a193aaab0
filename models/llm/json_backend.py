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
    ContextItem,
    Decision,
    LinkVerdict,
    Message,
    Neighbour,
    Notice,
)
from veramem_desktop.core.write.dates import resolve_relative_dates
from veramem_desktop.core.write.times import parse_time
from veramem_desktop.core.write.written_dates import normalise_explicit_dates
from veramem_desktop.models.llm import prompts
from veramem_desktop.models.llm.errors import MalformedReplyError
from veramem_desktop.models.llm.prompts import TaskPrompt
from veramem_desktop.models.llm.validate import (
    parse_abstract,
    parse_answer,
    parse_extract,
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
        self.notices: list[Notice] = []  # one per retry, for the facade to show

    @property
    def name(self) -> str:
        return self.transport.name

    @property
    def is_rule_based(self) -> bool:
        return False

    # --- the protocol -------------------------------------------------------------------------

    def extract(self, messages: Sequence[Message], context: Sequence[Message] = ()) -> list[Candidate]:
        if not messages:
            return []
        ids = [m.id for m in messages]
        context = prompts.within_budget(context, self.context_tokens)
        request = TaskPrompt(
            "extract",
            prompts.EXTRACT_SYSTEM,
            prompts.extract_prompt(messages, context),
            prompts.extract_schema(ids),
        )
        candidates = self._call(request, lambda reply: parse_extract(reply, set(ids)))
        by_id = {m.id: m for m in messages}
        candidates, refused = refuse_context_quotes(
            candidates, {m.id: m.content for m in messages}, [m.content for m in context]
        )
        if refused:
            cited = ", ".join(sorted({c.message_id for c in refused}))
            self.notices.append(
                Notice(
                    self.name,
                    "extract",
                    f"Refused {len(refused)} memory(ies) citing {cited} whose quote comes only from earlier "
                    "turns given as context; context is for understanding references, not a source.",
                )
            )
        return [_dates_made_explicit(c, by_id[c.message_id]) for c in candidates]

    def reconcile(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Decision:
        if not neighbours:
            return Decision(op="ADD", reason="no existing memory in scope")
        key = {"subject": candidate.subject, "predicate": candidate.predicate, "value": candidate.value}
        ids = [n.id for n in neighbours]
        request = TaskPrompt(
            "reconcile",
            prompts.RECONCILE_SYSTEM,
            prompts.reconcile_prompt(candidate.text, candidate.kind, key, neighbours),
            prompts.reconcile_schema(ids),
        )
        return self._call(request, lambda reply: parse_reconcile(reply, set(ids)))

    def answer(self, question: str, items: Sequence[ContextItem], fenced_context: str) -> AnswerDraft:
        if not items:
            return AnswerDraft(text="No stored memory answers this.", abstained=True, sufficient=False)
        ids = [i.id for i in items]
        request = TaskPrompt(
            "answer",
            prompts.ANSWER_SYSTEM,
            prompts.answer_prompt(question, items, fenced_context),
            prompts.answer_schema(ids),
        )
        return self._call(request, lambda reply: parse_answer(reply, set(ids)))

    def summarise(self, texts: Sequence[str]) -> str:
        if not texts:
            return ""
        request = TaskPrompt(
            "summarise", prompts.SUMMARISE_SYSTEM, prompts.summarise_prompt(texts), prompts.SUMMARISE_SCHEMA
        )
        return self._call(request, parse_summary)

    def abstract_experience(self, text: str) -> str:
        request = TaskPrompt(
            "abstract_experience",
            prompts.ABSTRACT_SYSTEM,
            prompts.abstract_prompt(text),
            prompts.ABSTRACT_SCHEMA,
        )
        return self._call(request, parse_abstract)

    def link(self, a: str, b: str) -> LinkVerdict:
        request = TaskPrompt("link", prompts.LINK_SYSTEM, prompts.link_prompt(a, b), prompts.LINK_SCHEMA)
        return self._call(request, parse_link)

    # --- one task, with bounded retries -------------------------------------------------------

    def _call(self, request: TaskPrompt, parse: Callable[[dict[str, Any]], T]) -> T:
        prompt = request.prompt
        attempts = self.retries + 1
        for attempt in range(1, attempts + 1):
            try:
                return parse(self.transport.complete_json(request.system, prompt, request.schema))
            except MalformedReplyError as error:
                if attempt == attempts:
                    raise MalformedReplyError(
                        f"{self.name} gave no usable {request.task} reply in {attempts} "
                        f"attempt{'s' if attempts > 1 else ''}. Last problem: {error.message}"
                    ) from error
                self.notices.append(
                    Notice(self.name, request.task, f"Unusable reply, asking again: {error.message}")
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
