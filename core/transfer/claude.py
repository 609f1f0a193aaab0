"""The reader of a Claude data export (``conversations.json`` or its zip).

Conversations with ``uuid``, ``name`` and ``chat_messages`` (``sender`` human/assistant,
``text`` or ``content`` blocks of type text, ``created_at``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from veramem_desktop.core.transfer.records import Item, Problem, Record, import_key, text_to_iso

_SENDERS = {"human": "user", "user": "user", "assistant": "assistant"}


def claude_items(conv: dict[str, Any], index: int) -> Iterator[Item]:  # noqa: C901
    conv_id = conv.get("uuid") or conv.get("id")
    where = f"conversation {index + 1}"
    if not conv_id:
        yield Problem(where, "has no uuid")
        return
    where = f"conversation {index + 1} ({conv_id})"
    messages = conv.get("chat_messages")
    if not isinstance(messages, list):
        yield Problem(where, 'has no "chat_messages" list')
        return
    title = conv.get("name") if isinstance(conv.get("name"), str) and conv.get("name") else None
    try:
        conv_time = text_to_iso(conv.get("created_at"))
    except (TypeError, ValueError, OverflowError):
        conv_time = None
    session = f"claude:{conv_id}"
    for n, msg in enumerate(messages):
        pos = f"{where}, message {n + 1}"
        if not isinstance(msg, dict):
            yield Problem(pos, "is not a JSON object")
            continue
        role = _SENDERS.get(str(msg.get("sender")))
        if role is None:
            yield Problem(pos, f"has the sender {msg.get('sender')!r}, not human or assistant")
            continue
        blocks = msg.get("content")
        texts = []
        if isinstance(blocks, list):
            texts = [
                b["text"]
                for b in blocks
                if isinstance(b, dict)
                and b.get("type") == "text"
                and isinstance(b.get("text"), str)
                and b["text"].strip()
            ]
        text = "\n\n".join(texts).strip()
        if not text and isinstance(msg.get("text"), str):
            text = msg["text"].strip()
        if not text:
            yield Problem(pos, "has no text", "empty")
            continue
        try:
            when = text_to_iso(msg.get("created_at")) or conv_time
        except (TypeError, ValueError, OverflowError):
            yield Problem(pos, f"has an unreadable created_at {str(msg.get('created_at'))[:40]!r}")
            continue
        msg_id = msg.get("uuid") or f"#{n}"
        meta: dict[str, Any] = {
            "source": "claude",
            "conversation_id": str(conv_id),
            "message_id": str(msg_id),
        }
        if title:
            meta["title"] = title
        yield Record(pos, session, role, text, when, None, import_key("claude", conv_id, msg_id), meta)
