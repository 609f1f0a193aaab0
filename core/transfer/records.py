"""What reading an import yields: a :class:`Record` per message to store, a :class:`Problem` per
record that is not stored, the import key that makes a re-run add only what is missing, and the
time conversions the readers share.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from veramem_desktop.core.storage.ids import iso, parse_iso

ROLES = ("user", "assistant", "system", "tool")


@dataclass(frozen=True)
class Record:
    """One message (or document chunk) to store as an episode."""

    position: str
    session_id: str
    role: str
    content: str
    time: str | None
    name: str | None
    key: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Problem:
    """A record that was not imported: ``bad`` (unreadable) or ``empty`` (nothing to store)."""

    position: str
    reason: str
    kind: str = "bad"

    def to_dict(self) -> dict[str, str]:
        return {"position": self.position, "reason": self.reason}


Item = Record | Problem


def import_key(*parts: object) -> str:
    """A stable key for one imported message, from the parts that identify it."""
    return hashlib.sha256(json.dumps([str(p) for p in parts], ensure_ascii=False).encode()).hexdigest()[:32]


def chat_meta(source: str, conv_id: str, msg_id: object, title: str | None) -> dict[str, Any]:
    """What an imported chat message keeps of where it came from: the export, its conversation and
    message ids, and the conversation's title when it has one."""
    meta: dict[str, Any] = {"source": source, "conversation_id": conv_id, "message_id": str(msg_id)}
    if title:
        meta["title"] = title
    return meta


def epoch_to_iso(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return iso(datetime.fromtimestamp(float(value), UTC))


def text_to_iso(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        return epoch_to_iso(value)
    return iso(parse_iso(str(value)))
