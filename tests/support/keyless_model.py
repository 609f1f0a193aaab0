"""A model that records no change: the rule-based model with every candidate's key removed.

Recall's safety net (core/recall/safety_net.py) is for what the write path missed; with this model every
change is missed, so a test sees the net alone, whatever the rule-based keys learn to read."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from veramem_desktop.core.llm import Candidate, Message, Reply
from veramem_desktop.models.llm.rule_based import RuleBasedLLM


class KeylessModel(RuleBasedLLM):
    """The rule-based model, except that no candidate carries a key: every change goes unrecorded."""

    def extract(self, messages: Sequence[Message], context: Sequence[Message] = ()) -> Reply[list[Candidate]]:
        found = super().extract(messages, context)
        return Reply([dataclasses.replace(c, subject=None, predicate=None, value=None) for c in found.value])
