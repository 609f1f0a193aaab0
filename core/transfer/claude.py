"""The reader of a Claude data export (``conversations.json`` or its zip).

Conversations with ``uuid``, ``name`` and ``chat_messages`` (``sender`` human/assistant,
``text`` or ``content`` blocks of type text, ``created_at``; when missing, the time of the message
before it, or the conversation's for the first).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from veramem_desktop.core.transfer.records import Item, Problem, Record, chat_meta, import_key, text_to_iso

_SENDERS = {"human": "user", "user": "user", "assistant": "assistant"}


def claude_items(conv: dict[str, Any], index: int) -> Iterator[Item]:
    conv_id = conv.get("uuid") or conv.get("id")
    where = f"conversation {index + 1}"
    if not conv_id or not isinstance(conv_id, (str, int)):
        yield Problem(where, "has no uuid (text or a number)")
        return
    where = f"conversation {index + 1} ({conv_id})"
    messages = conv.get("chat_messages")
    if not isinstance(messages, list):
        yield Problem(where, 'has no "chat_messages" list')
        return
    title = conv.get("name") if isinstance(conv.get("name"), str) and conv.get("name") else None
    try:
        conv_time = text_to_iso(conv.get("created_at"))
    except (TypeError, ValueError, OverflowError, OSError):
        conv_time = None
    session = f"claude:{conv_id}"
    for n, msg in enumerate(messages):
        item = _message_item(msg, n, where, session, str(conv_id), conv_time, title)
        if isinstance(item, Record) and item.time is not None:
            conv_time = item.time  # a later message with no time of its own follows this one
        yield item


def _message_item(
    msg: Any, n: int, where: str, session: str, conv_id: str, conv_time: str | None, title: str | None
) -> Item:
    """The record of message ``n`` of a conversation, or the problem that keeps it out."""
    pos = f"{where}, message {n + 1}"
    if not isinstance(msg, dict):
        return Problem(pos, "is not a JSON object")
    sender = msg.get("sender")
    role = _SENDERS.get(sender) if isinstance(sender, str) else None
    if role is None:
        return Problem(pos, f"has the sender {str(sender)[:40]!r}, not human or assistant")
    text = _message_text(msg)
    if not text:
        return Problem(pos, "has no text", "empty")
    try:
        when = text_to_iso(msg.get("created_at")) or conv_time
    except (TypeError, ValueError, OverflowError, OSError):
        return Problem(pos, f"has an unreadable created_at {str(msg.get('created_at'))[:40]!r}")
    msg_id = msg.get("uuid") if isinstance(msg.get("uuid"), (str, int)) and msg.get("uuid") else f"#{n}"
    meta = chat_meta("claude", conv_id, msg_id, title)
    return Record(pos, session, role, text, when, None, import_key("claude", conv_id, msg_id), meta)


def _message_text(msg: dict[str, Any]) -> str:
    """The message's text blocks joined, or its plain ``text`` when it has no text block."""
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
    return text
