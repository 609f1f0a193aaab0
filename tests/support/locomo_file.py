"""A small LoCoMo-format file for the bench's channel-row tests: Maya and Tom, a session per list of turns
(the first on 8 May 2023, the second on 20 June 2023), and the questions asked of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATES = ("1:56 pm on 8 May, 2023", "10:05 am on 20 June, 2023")


def write_conversation(
    path: Path, sample_id: str, sessions: list[list[tuple[str, str]]], qa: list[dict[str, Any]]
) -> Path:
    """One conversation, its turns numbered D<session>:<turn> from 1, written to ``path``."""
    conversation: dict[str, Any] = {"speaker_a": "Maya", "speaker_b": "Tom"}
    for n, turns in enumerate(sessions, start=1):
        conversation[f"session_{n}_date_time"] = DATES[n - 1]
        conversation[f"session_{n}"] = [
            {"speaker": who, "dia_id": f"D{n}:{i}", "text": text}
            for i, (who, text) in enumerate(turns, start=1)
        ]
    path.write_text(
        json.dumps([{"sample_id": sample_id, "conversation": conversation, "qa": qa}]), encoding="utf-8"
    )
    return path


def multi_hop(question: str, *evidence: str) -> list[dict[str, Any]]:
    """One multi-hop question (category 1) with its evidence turns."""
    return [{"question": question, "evidence": list(evidence), "category": 1}]
