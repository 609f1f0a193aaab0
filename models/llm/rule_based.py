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
    Capabilities,
    ContextItem,
    Decision,
    LinkVerdict,
    Message,
    Neighbour,
    Notice,
    Reply,
)
from veramem_desktop.models.llm.rules import abstract, answer, extract, link, reconcile, summarise


class RuleBasedLLM:
    """The :class:`~veramem_desktop.core.llm.LLM` protocol, deterministic and offline."""

    def __init__(self, *, summary_chars: int = summarise.MAX_CHARS) -> None:
        self.summary_chars = summary_chars

    @property
    def capabilities(self) -> Capabilities:
        # no context is fetched for it: the extractor's rules read at most the turn before
        return Capabilities("rule-based", rule_based=True, batch_extraction=False, context_tokens=0)

    def without_fallback(self) -> RuleBasedLLM:
        return self

    def extract(self, messages: Sequence[Message], context: Sequence[Message] = ()) -> Reply[list[Candidate]]:
        # context is never a source: its last turn only says which question the first message answers
        candidates, skipped = extract.extract_with_skips(messages, context)
        notice = extract.skipped_notice(skipped)
        return Reply(candidates, (Notice("rule-based", "extract", notice),) if notice else ())

    def reconcile(self, candidate: Candidate, neighbours: Sequence[Neighbour]) -> Reply[Decision]:
        return Reply(reconcile.reconcile(candidate, neighbours))

    def answer(self, question: str, items: Sequence[ContextItem], fenced_context: str) -> Reply[AnswerDraft]:
        return Reply(answer.answer(question, items))  # works on the items; the fenced text is for models

    def summarise(self, texts: Sequence[str]) -> Reply[str]:
        return Reply(summarise.summarise(texts, self.summary_chars))

    def abstract_experience(self, text: str) -> Reply[str]:
        return Reply(abstract.abstract_experience(text))

    def link(self, a: str, b: str) -> Reply[LinkVerdict]:
        return Reply(link.link(a, b))

    def hypothesise(self, question: str) -> Reply[str | None]:
        return Reply(None)  # rules cannot invent a plausible answer: the channel adds nothing
