"""A model that records no change: the rule-based model with every candidate's key removed.

Recall's safety net (core/recall/safety_net.py) is for what the write path missed; with this model every
change is missed, so a test sees the net alone, whatever the rule-based keys learn to read."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from veramem_desktop.core.llm import Candidate, Message, Reply
from veramem_desktop.core.protocols import Embedder
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

if TYPE_CHECKING:
    from veramem_desktop.memory import Memory


class KeylessModel(RuleBasedLLM):
    """The rule-based model, except that no candidate carries a key: every change goes unrecorded."""

    def extract(self, messages: Sequence[Message], context: Sequence[Message] = ()) -> Reply[list[Candidate]]:
        found = super().extract(messages, context)
        return Reply([dataclasses.replace(c, subject=None, predicate=None, value=None) for c in found.value])


def keyless_memory(home: Path, embedder: Embedder) -> Memory:
    """A new store on the keyless model (linking off, so nothing runs behind a test's back)."""
    from support.fixtures import PASSPHRASE
    from veramem_desktop.config import Config
    from veramem_desktop.memory import Memory

    config = Config()
    config.organise.linking = False
    mem, _ = Memory.create(
        home, passphrase=PASSPHRASE, use_keyring=False, embedder=embedder, config=config, llm=KeylessModel()
    )
    return mem
