"""The reader of VeraMem's own message lists: a JSON list or JSON lines of
``{"role", "content", "name"?, "time"?, "session_id"?}``.

Both are read within bounds: a list through a :class:`JsonGuard` (an oversized message is
listed and the next one read), lines at most ``MAX_LINE_BYTES`` long (a longer line is listed
and skipped without being held).

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
from veramem_desktop.core.transfer.bounded import MAX_TOKEN_BYTES, JsonGuard, Prefixed, Refused, guarded_items
from veramem_desktop.core.transfer.records import ROLES, Item, Problem, Record, import_key, text_to_iso

#: one line of JSON lines: a message's longest text and room for its other fields
MAX_LINE_BYTES = MAX_TOKEN_BYTES + 64 * 1024


def message_items(stream: Any, path: Path, session_id: str | None) -> Iterator[Item]:
    default_session = session_id or f"import:{path.name}"
    seen: dict[str, int] = {}
    guard = JsonGuard(stream)
    head = guard.read(1)
    while head and head.isspace():
        head = guard.read(1)
    if head == b"[":
        n = 0
        try:
            for n, obj in enumerate(guarded_items(guard, head), start=1):
                if isinstance(obj, Refused):
                    tail = "; the rest of the file was not read" if obj.rest_unread else ""
                    yield Problem(f"message {n}", obj.reason + tail)
                    continue
                yield _message(obj, f"message {n}", default_session, session_id, seen)
        except ijson.JSONError as exc:
            yield Problem(
                f"after message {n}",
                f"the file is not valid JSON from here ({exc}); what came before was read",
            )
        return
    for n, line in bounded_lines(io.BufferedReader(Prefixed(head, stream))):
        if line is None:
            yield Problem(f"line {n}", f"is longer than {MAX_LINE_BYTES // (1024 * 1024)} MB; it was skipped")
            continue
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError) as exc:
            yield Problem(
                f"line {n}", f"is not valid JSON ({exc.args[0] if exc.args else type(exc).__name__})"
            )
            continue
        yield _message(obj, f"line {n}", default_session, session_id, seen)


def bounded_lines(stream: IO[bytes], limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, bytes | None]]:
    """The lines of ``stream`` with their numbers; None for a line longer than ``limit``, which is
    read past in pieces and never held whole."""
    n = 0
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        n += 1
        if len(line) <= limit or line.endswith(b"\n"):
            yield n, line
            continue
        while line and not line.endswith(b"\n"):
            line = stream.readline(limit)
        yield n, None


def _message(obj: Any, pos: str, default_session: str, forced: str | None, seen: dict[str, int]) -> Item:
    if not isinstance(obj, dict):
        return Problem(pos, "is not a JSON object")
    content, role = obj.get("content"), obj.get("role", "user")
    if not isinstance(content, str):
        return Problem(pos, 'has no text "content"')
    if not content.strip():
        return Problem(pos, "is empty", "empty")
    if not isinstance(role, str) or role not in (*ROLES, "document"):
        return Problem(pos, f"has the role {str(role)[:40]!r}, not one of {', '.join((*ROLES, 'document'))}")
    try:
        when = text_to_iso(obj.get("time"))
    except (TypeError, ValueError, OverflowError, OSError):
        return Problem(pos, f"has an unreadable time {str(obj.get('time'))[:40]!r}")
    sid = obj.get("session_id")
    if sid and not isinstance(sid, (str, int)):
        return Problem(pos, "has a session_id that is not text")
    session = forced or (str(sid) if sid else default_session)
    name = obj.get("name") if isinstance(obj.get("name"), str) else None
    base = import_key("messages", session, role, name, when, content)
    seen[base] = n = seen.get(base, 0) + 1  # identical messages in one file stay distinct
    meta: dict[str, Any] = obj["metadata"] if isinstance(obj.get("metadata"), dict) else {}
    return Record(
        pos, session, role, content, when, name, import_key(base, n), {**meta, "source": "messages"}
    )
