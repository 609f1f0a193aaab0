"""The reader of VeraMem's own message lists: a JSON list or JSON lines of
``{"role", "content", "name"?, "time"?, "session_id"?}``.

A message's import key is a hash of its session, role, name, time and text, and of how many
identical messages came before it in the file, so identical messages stay distinct.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import ijson
from veramem_desktop.core.transfer.records import ROLES, Item, Problem, Record, import_key, text_to_iso


def message_items(stream: Any, path: Path, session_id: str | None) -> Iterator[Item]:
    default_session = session_id or f"import:{path.name}"
    seen: dict[str, int] = {}
    head = stream.read(1)
    while head and head.isspace():
        head = stream.read(1)
    rest = io.BufferedReader(_Prefixed(head, stream))
    if head == b"[":
        try:
            for n, obj in enumerate(ijson.items(rest, "item", use_float=True)):
                yield _message(obj, f"message {n + 1}", default_session, session_id, seen)
        except ijson.JSONError as exc:
            yield Problem("the rest of the file", f"is not valid JSON ({exc}); what came before was read")
        return
    for n, line in enumerate(rest, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            yield Problem(f"line {n}", f"is not valid JSON ({exc.args[0] if exc.args else exc})")
            continue
        yield _message(obj, f"line {n}", default_session, session_id, seen)


class _Prefixed(io.RawIOBase):
    """A stream with bytes already read put back in front."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self.head = head
        self.rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n] = self.head[:n]
            self.head = self.head[n:]
            return n
        data = self.rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _message(obj: Any, pos: str, default_session: str, forced: str | None, seen: dict[str, int]) -> Item:
    if not isinstance(obj, dict):
        return Problem(pos, "is not a JSON object")
    content, role = obj.get("content"), obj.get("role", "user")
    if not isinstance(content, str):
        return Problem(pos, 'has no text "content"')
    if not content.strip():
        return Problem(pos, "is empty", "empty")
    if role not in (*ROLES, "document"):
        return Problem(pos, f"has the role {role!r}, not one of {', '.join((*ROLES, 'document'))}")
    try:
        when = text_to_iso(obj.get("time"))
    except (TypeError, ValueError, OverflowError):
        return Problem(pos, f"has an unreadable time {str(obj.get('time'))[:40]!r}")
    session = forced or (str(obj["session_id"]) if obj.get("session_id") else default_session)
    name = obj.get("name") if isinstance(obj.get("name"), str) else None
    base = import_key("messages", session, role, name, when, content)
    seen[base] = n = seen.get(base, 0) + 1  # identical messages in one file stay distinct
    meta: dict[str, Any] = obj["metadata"] if isinstance(obj.get("metadata"), dict) else {}
    return Record(
        pos, session, role, content, when, name, import_key(base, n), {**meta, "source": "messages"}
    )
