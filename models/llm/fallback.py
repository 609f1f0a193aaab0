"""A model backend that degrades to the rule-based one instead of failing.

Each task goes to the primary backend first. When it raises ``ModelError`` (down, slow,
junk), the failure is recorded as a :class:`~veramem_desktop.core.llm.Notice` and the
rule-based result is returned, so the engine always gets a valid value and the user is
told why it is a simpler one. Nothing else is caught: a bug stays a bug.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from veramem_desktop.core.errors import ModelError
from veramem_desktop.core.llm import (
    LLM,
    AnswerDraft,
    Candidate,
    ContextItem,
    Decision,
    LinkVerdict,
    Message,
    Neighbour,
    Notice,
    context_budget,
)
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

T = TypeVar("T")


class FallbackLLM:
    """``primary`` for every task, ``fallback`` (rule-based) when it fails; notices in ``.notices``."""

    def __init__(self, primary: LLM, fallback: LLM | None = None) -> None:
        self.primary = primary
        self.fallback: LLM = fallback if fallback is not None else RuleBasedLLM()
        self.notices: list[Notice] = []

    @property
    def name(self) -> str:
        return f"{self.primary.name} ({self.fallback.name} fallback)"

    @property
    def is_rule_based(self) -> bool:
        return False

    @property
    def context_tokens(self) -> int:
        """The primary's context budget (the rule-based fallback ignores context)."""
        return context_budget(self.primary)

    def drain_notices(self) -> list[Notice]:
        """The notices gathered so far (the primary's retries included), emptying the list."""
        self._collect_primary_notices()
        drained, self.notices = self.notices, []
        return drained

    def extract(self, messages: Sequence[Message], context: Sequence[Message] = ()) -> list[Candidate]:
        return self._run("extract", lambda llm: llm.extract(messages, context))

    def reconcile(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Decision:
        return self._run("reconcile", lambda llm: llm.reconcile(candidate, neighbours))

    def answer(self, question: str, items: Sequence[ContextItem], fenced_context: str) -> AnswerDraft:
        return self._run("answer", lambda llm: llm.answer(question, items, fenced_context))

    def summarise(self, texts: Sequence[str]) -> str:
        return self._run("summarise", lambda llm: llm.summarise(texts))

    def abstract_experience(self, text: str) -> str:
        return self._run("abstract_experience", lambda llm: llm.abstract_experience(text))

    def link(self, a: str, b: str) -> LinkVerdict:
        return self._run("link", lambda llm: llm.link(a, b))

    def _run(self, task: str, call: Callable[[LLM], T]) -> T:
        try:
            result = call(self.primary)
        except ModelError as error:
            self._collect_primary_notices()
            self.notices.append(
                Notice(
                    self.primary.name, task, f"{error.message} Used the {self.fallback.name} result instead."
                )
            )
            return call(self.fallback)
        self._collect_primary_notices()
        return result

    def _collect_primary_notices(self) -> None:
        """Move notices the primary kept (a JSON backend's retries) into this list, in order."""
        pending = getattr(self.primary, "notices", None)
        if isinstance(pending, list) and pending:
            self.notices.extend(pending)
            pending.clear()
