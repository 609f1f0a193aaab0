"""The backend that needs nothing: every task computed by deterministic rules.

Used when no model is configured, and behind every model as its fallback. Its values
are simpler than a model's but always valid: quotes are exact sentences of the message,
answers cite only the items given and abstain when nothing shares the question's words.
"""

from __future__ import annotations

from collections.abc import Sequence

from veramem_desktop.core.llm import (
    AnswerDraft,
    Candidate,
    ContextItem,
    Decision,
    LinkVerdict,
    Message,
    Neighbour,
    Notice,
)
from veramem_desktop.models.llm.rules import abstract, answer, extract, link, reconcile, summarise


class RuleBasedLLM:
    """The :class:`~veramem_desktop.core.llm.LLM` protocol, deterministic and offline."""

    def __init__(self, *, summary_chars: int = summarise.MAX_CHARS) -> None:
        self.summary_chars = summary_chars
        self.notices: list[Notice] = []

    @property
    def name(self) -> str:
        return "rule-based"

    @property
    def is_rule_based(self) -> bool:
        return True

    def extract(self, messages: Sequence[Message], context: Sequence[Message] = ()) -> list[Candidate]:
        # context is never a source: its last turn only says which question the first message answers
        candidates, skipped = extract.extract_with_skips(messages, context)
        notice = extract.skipped_notice(skipped)
        self.notices = [Notice(self.name, "extract", notice)] if notice else []  # the last call's only
        return candidates

    def drain_notices(self) -> list[Notice]:
        """What the last extraction skipped and why, taken once."""
        drained, self.notices = self.notices, []
        return drained

    def reconcile(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Decision:
        return reconcile.reconcile(candidate, neighbours)

    def answer(self, question: str, items: Sequence[ContextItem], fenced_context: str) -> AnswerDraft:
        return answer.answer(question, items)  # works on the items; the fenced text is for models

    def summarise(self, texts: Sequence[str]) -> str:
        return summarise.summarise(texts, self.summary_chars)

    def abstract_experience(self, text: str) -> str:
        return abstract.abstract_experience(text)

    def link(self, a: str, b: str) -> LinkVerdict:
        return link.link(a, b)
