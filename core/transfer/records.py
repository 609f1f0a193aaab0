"""What reading an import yields: a :class:`Record` per message to store, a :class:`Problem` per
record that is not stored, the import key that makes a re-run add only what is missing, and the
time conversions the readers share.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
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


#: reads one conversation's messages, given the conversation, its id and the position it is named by
Messages = Callable[[dict[str, Any], str | int, str], Iterator[Item]]


def conversation_items(
    conv: dict[str, Any], index: int, id_key: str, id_name: str, messages: Messages
) -> Iterator[Item]:
    """The items of conversation ``index`` of an export: ``messages`` reads them, given the conversation,
    its id (under ``id_key``, else ``"id"``) and the position they are named by. Without a usable id,
    only the problem that says so (the id called ``id_name`` in the reason)."""
    conv_id = conv.get(id_key) or conv.get("id")
    if not conv_id or not isinstance(conv_id, (str, int)):
        yield Problem(f"conversation {index + 1}", f"has no {id_name} (text or a number)")
        return
    yield from messages(conv, conv_id, f"conversation {index + 1} ({conv_id})")


def time_or_none(read: Callable[[Any], str | None], value: Any) -> str | None:
    """``value`` read as a time by ``read``, or None when it is not one."""
    try:
        return read(value)
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def message_time(
    msg: dict[str, Any], key: str, read: Callable[[Any], str | None], pos: str, shown: Callable[[Any], str]
) -> str | None | Problem:
    """Message ``msg``'s time under ``key``, read by ``read`` (None when it has none), or the problem at
    ``pos`` that it cannot be read as one (its value as ``shown`` gives it)."""
    try:
        return read(msg.get(key))
    except (TypeError, ValueError, OverflowError, OSError):
        return Problem(pos, f"has an unreadable {key} {shown(msg.get(key))}")


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
