"""A child process adding messages whose derivation fails, printing each stored episode id.

Usage: python -m admission.pending_adder HOME COUNT TAG (run with tests/ on PYTHONPATH). The backend
raises inside extraction, so every add's episodes are queued for derivation: the parent then asks
that every printed id is queued.
"""

from __future__ import annotations

import sys
from typing import Any

from support.fake_embedder import HashEmbedder
from veramem_desktop.core.llm import Capabilities

from veramem_desktop.memory import Memory


class FailingLLM:
    """A backend that fails inside extraction, so the add defers its derivation."""

    capabilities = Capabilities("failing", rule_based=True)

    def extract(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("extraction failed on purpose")


def main() -> None:
    home, count, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    mem = Memory(home, embedder=HashEmbedder(), llm=FailingLLM())
    print("ready", flush=True)
    for i in range(count):
        result = mem.add(f"{tag} says message number {i}.", session_id=f"{tag}-{i}")
        for ep in result.episodes:
            print(ep.id, flush=True)
    mem.close()


if __name__ == "__main__":
    main()
