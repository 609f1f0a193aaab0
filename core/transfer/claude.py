"""The reader of a Claude data export (``conversations.json`` or its zip).

Conversations with ``uuid``, ``name`` and ``chat_messages`` (``sender`` human/assistant,
``text`` or ``content`` blocks of type text, ``created_at``; when missing, the time of the message
before it, or the conversation's for the first).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from veramem_desktop.core.transfer.records import (
    Item,
    Problem,
    Record,
    chat_meta,
    conversation_items,
    import_key,
    message_time,
    text_to_iso,
    time_or_none,
)

_SENDERS = {"human": "user", "user": "user", "assistant": "assistant"}


def claude_items(conv: dict[str, Any], index: int) -> Iterator[Item]:
    return conversation_items(conv, index, "uuid", "uuid", _conversation)


def _conversation(conv: dict[str, Any], conv_id: str | int, where: str) -> Iterator[Item]:
    messages = conv.get("chat_messages")
    if not isinstance(messages, list):
        yield Problem(where, 'has no "chat_messages" list')
        return
    title = conv.get("name") if isinstance(conv.get("name"), str) and conv.get("name") else None
    conv_time = time_or_none(text_to_iso, conv.get("created_at"))
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
    when = message_time(msg, "created_at", text_to_iso, pos, lambda value: repr(str(value)[:40]))
    if isinstance(when, Problem):
        return when
    msg_id = msg.get("uuid") if isinstance(msg.get("uuid"), (str, int)) and msg.get("uuid") else f"#{n}"
    meta = chat_meta("claude", conv_id, msg_id, title)
    return Record(
        pos, session, role, text, when or conv_time, None, import_key("claude", conv_id, msg_id), meta
    )


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
