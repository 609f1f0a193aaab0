"""The reader of a ChatGPT data export (``conversations.json`` or the export's zip).

Each conversation's ``mapping`` tree is followed from ``current_node`` up to the root and
reversed, so edited-away branches are left out; roles come from ``author.role``, text
from the string ``content.parts`` (other parts are skipped), times from ``create_time``
(epoch seconds; when null, the time of the message before it, or the conversation's for the first,
so the import reconciles it after what it follows).

Any field may hold any JSON type: an id that is not text or a number, a ``current_node`` or a
``parent`` that is not a node's id, a node or message that is not an object is a listed
problem of that conversation or message, never an error of the import.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from veramem_desktop.core.transfer.records import (
    ROLES,
    Item,
    Problem,
    Record,
    chat_meta,
    conversation_items,
    epoch_to_iso,
    import_key,
    message_time,
    time_or_none,
)


def chatgpt_items(conv: dict[str, Any], index: int) -> Iterator[Item]:
    return conversation_items(conv, index, "conversation_id", "id", _conversation)


def _conversation(conv: dict[str, Any], conv_id: str | int, where: str) -> Iterator[Item]:
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict) or not mapping:
        yield Problem(where, 'has no message tree ("mapping")')
        return
    conv_time = time_or_none(epoch_to_iso, conv.get("create_time"))
    title = conv.get("title") if isinstance(conv.get("title"), str) else None
    path, broken = _current_branch(mapping, conv.get("current_node"), where)
    if broken is not None:
        yield broken
    session = f"chatgpt:{conv_id}"
    for node in reversed(path):
        item = _message_item(node, where, session, str(conv_id), conv_time, title)
        if item is not None:
            if isinstance(item, Record) and item.time is not None:
                conv_time = item.time  # a later message with no time of its own follows this one
            yield item


def _current_branch(
    mapping: dict[str, Any], node_id: Any, where: str
) -> tuple[list[dict[str, Any]], Problem | None]:
    """The nodes from the current node (or the newest leaf) up to the root, and the problem that cut the walk short."""
    if not isinstance(node_id, str) or node_id not in mapping:  # no current node: the newest leaf
        leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
        node_id = max(leaves, key=lambda k: _node_time(mapping[k]), default=None)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            return path, Problem(f"{where}, node {node_id[:80]}", "is not a JSON object")
        path.append(node)
        node_id = node.get("parent")
    if node_id is not None and not isinstance(node_id, str):
        return path, Problem(
            where,
            f"has a parent that is {_kind(node_id)}, not a node id; the rest of its branch was left out",
        )
    return path, None


def _message_item(
    node: dict[str, Any], where: str, session: str, conv_id: str, conv_time: str | None, title: str | None
) -> Item | None:
    """The record of the node's message, the problem that keeps it out, or None for a node with no message."""
    msg = node.get("message")
    if not isinstance(msg, dict):
        return None  # the tree's root holds no message
    msg_id = msg.get("id") or node.get("id")
    if not isinstance(msg_id, (str, int)):
        return Problem(f"{where}, a message", "has no id (text or a number)")
    pos = f"{where}, message {str(msg_id)[:80]}"
    author: dict[str, Any] = msg["author"] if isinstance(msg.get("author"), dict) else {}
    role = author.get("role")
    if not isinstance(role, str) or role not in ROLES:
        return Problem(pos, f"has the role {_shown(role)}, not one of {', '.join(ROLES)}")
    meta_in = msg.get("metadata") if isinstance(msg.get("metadata"), dict) else {}
    if meta_in and meta_in.get("is_visually_hidden_from_conversation"):
        return Problem(pos, "is hidden in ChatGPT (a system prompt or context)", "empty")
    content: dict[str, Any] = msg["content"] if isinstance(msg.get("content"), dict) else {}
    parts = content.get("parts")
    texts = [p for p in parts if isinstance(p, str) and p.strip()] if isinstance(parts, list) else []
    text = "\n\n".join(texts).strip()
    if not text:
        return Problem(pos, "has no text", "empty")
    when = message_time(msg, "create_time", epoch_to_iso, pos, _shown)
    if isinstance(when, Problem):
        return when
    meta = chat_meta("chatgpt", conv_id, msg_id, title)
    name = author.get("name") if isinstance(author.get("name"), str) and role == "tool" else None
    return Record(
        pos, session, role, text, when or conv_time, name, import_key("chatgpt", conv_id, msg_id), meta
    )


def _node_time(node: Any) -> float:
    msg = node.get("message") if isinstance(node, dict) else None
    value = msg.get("create_time") if isinstance(msg, dict) else None
    try:
        return float(value) if isinstance(value, (int, float)) else 0.0
    except OverflowError:  # an integer too large for a float
        return 0.0


def _shown(value: Any) -> str:
    """A value for a message: short, and never more than a few characters of it."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", bool: "a boolean", float: "a number", int: "a number"}.get(
        type(value), "not text"
    )
