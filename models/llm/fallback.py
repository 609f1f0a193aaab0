"""A model backend that degrades to the rule-based one instead of failing.

Each task goes to the primary backend first. When it raises ``ModelError`` (down, slow,
junk), the rule-based result is returned with a :class:`~veramem_desktop.core.llm.Notice`
saying what went wrong, so the engine always gets a valid value and the user is told why
it is a simpler one. The notice is part of that call's reply and nowhere else. Nothing
else is caught: a bug stays a bug.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.llm import (
    LLM,
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
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

T = TypeVar("T")


class FallbackLLM:
    """``primary`` for every task, ``fallback`` (rule-based) when it fails, with a notice in the reply."""

    def __init__(self, primary: LLM, fallback: LLM | None = None) -> None:
        self.primary = primary
        self.fallback: LLM = fallback if fallback is not None else RuleBasedLLM()

    @property
    def capabilities(self) -> Capabilities:
        """The primary's, under a name that says what it falls back to."""
        primary, fallback = self.primary.capabilities, self.fallback.capabilities
        return Capabilities(
            f"{primary.name} ({fallback.name} fallback)",
            rule_based=False,
            batch_extraction=primary.batch_extraction,
            context_tokens=primary.context_tokens,
        )

    def without_fallback(self) -> LLM:
        return self.primary.without_fallback()

    def extract(self, messages: Sequence[Message], context: Sequence[Message] = ()) -> Reply[list[Candidate]]:
        return self._run("extract", lambda llm: llm.extract(messages, context))

    def reconcile(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Reply[Decision]:
        return self._run("reconcile", lambda llm: llm.reconcile(candidate, neighbours))

    def answer(self, question: str, items: Sequence[ContextItem], fenced_context: str) -> Reply[AnswerDraft]:
        return self._run("answer", lambda llm: llm.answer(question, items, fenced_context))

    def summarise(self, texts: Sequence[str]) -> Reply[str]:
        return self._run("summarise", lambda llm: llm.summarise(texts))

    def abstract_experience(self, text: str) -> Reply[str]:
        return self._run("abstract_experience", lambda llm: llm.abstract_experience(text))

    def link(self, a: str, b: str) -> Reply[LinkVerdict]:
        return self._run("link", lambda llm: llm.link(a, b))

    def hypothesise(self, question: str) -> Reply[str | None]:
        return self._run("hypothesise", lambda llm: llm.hypothesise(question))

    def _run(self, task: str, call: Callable[[LLM], Reply[T]]) -> Reply[T]:
        try:
            return call(self.primary)
        except ModelError as error:
            fallback = self.fallback.capabilities.name
            why = Notice(
                self.primary.capabilities.name, task, f"{error.message} Used the {fallback} result instead."
            )
            reply = call(self.fallback)
            return Reply(reply.value, (why, *reply.notices))
