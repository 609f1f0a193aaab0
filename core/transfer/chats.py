"""Reading chat history to import: format detection and streaming readers (pure, no store).

Formats, detected from the path and the first record:

- ``chatgpt``: a ChatGPT data export (``conversations.json`` or the export's zip). Each
  conversation's ``mapping`` tree is followed from ``current_node`` up to the root and
  reversed, so edited-away branches are left out; roles come from ``author.role``, text
  from the string ``content.parts`` (other parts are skipped), times from ``create_time``
  (epoch seconds; when null, the conversation's).
- ``claude``: a Claude data export (``conversations.json`` or its zip): conversations with
  ``uuid``, ``name`` and ``chat_messages`` (``sender`` human/assistant, ``text`` or
  ``content`` blocks of type text, ``created_at``).
- ``messages``: VeraMem's own message lists, a JSON list or JSON lines of
  ``{"role", "content", "name"?, "time"?, "session_id"?}``.
- ``documents``: a Markdown or text file, or a folder of them; one document per file,
  chunked as ``veramem add --file F --role document`` does.
- ``memories``: the JSON lines written by ``veramem export memories`` (read by
  :func:`read_archive`; see ``core/transfer/memories.py``).

JSON is parsed with ``ijson`` one conversation (or message) at a time, so an export of
any size is never held in memory whole. Each message gets an import key: a hash of its
source ids (conversation and message id) or, where the source has none, of its session,
role, time, text and how many identical messages came before it. A key already stored
is skipped, which makes a re-run, or a run after an interrupted one, add only what is
missing. A record that cannot be read becomes a :class:`Problem` naming its position;
the reading goes on.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import ijson
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.storage.ids import iso, parse_iso
from veramem_desktop.core.write.chunking import chunk_document

FORMATS = ("chatgpt", "claude", "messages", "documents", "memories")
DOCUMENT_SUFFIXES = (".md", ".markdown", ".txt", ".text")
ROLES = ("user", "assistant", "system", "tool")
#: the ``type`` of the first line of a ``veramem export memories`` file
ARCHIVE_TYPE = "veramem.memories"


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


# ------------------------------------------------------------------ byte counting (for progress)
class Counting(io.RawIOBase):
    """A binary stream that counts the bytes read through it."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.raw.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        self.count += n
        return n

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        self.count += len(data)
        return data

    def close(self) -> None:
        self.raw.close()
        super().close()


# ------------------------------------------------------------------ sources
class Source:
    """An import source: its format, how much there is (``total``), how much was read
    (:meth:`done`, same unit), and the stream of :class:`Record` and :class:`Problem`."""

    def __init__(self, path: Path, fmt: str, *, session_id: str | None = None) -> None:
        self.path = path
        self.format = fmt
        self.session_id = session_id
        self._stream: Counting | None = None
        self._zip: zipfile.ZipFile | None = None
        self._files_done = 0
        self._files: list[Path] = []
        if fmt == "documents":
            self._files = document_files(path)
            self.total = len(self._files)
            self.unit = "files"
        else:
            self.total = _size(path)
            self.unit = "bytes"

    def done(self) -> int:
        if self.format == "documents":
            return self._files_done
        return self._stream.count if self._stream is not None else 0

    def _open(self) -> Counting:
        self._stream = Counting(open_json(self.path, self))
        return self._stream

    def items(self) -> Iterator[Item]:
        if self.format == "documents":
            yield from self._documents()
            return
        stream = self._open()
        try:
            if self.format in ("chatgpt", "claude"):
                read = chatgpt_items if self.format == "chatgpt" else claude_items
                n = 0
                try:
                    for n, conv in enumerate(ijson.items(stream, "item", use_float=True)):
                        yield from read(conv, n) if isinstance(conv, dict) else _not_object(n)
                except ijson.JSONError as exc:
                    yield Problem(
                        f"after conversation {n + 1}",
                        f"the file is not valid JSON from here ({exc}); what came before was read",
                    )
            elif self.format == "messages":
                yield from message_items(stream, self.path, self.session_id)
            else:
                raise InvalidInputError(f"{self.path} is a memory export: it is read by the memory import.")
        finally:
            self.close()

    def _documents(self) -> Iterator[Item]:
        base = self.path if self.path.is_dir() else self.path.parent
        for file in self._files:
            name = file.relative_to(base).as_posix()
            try:
                text = file.read_bytes().decode("utf-8", errors="replace")
                when = iso(datetime.fromtimestamp(file.stat().st_mtime, UTC))
            except OSError as exc:
                yield Problem(name, f"could not be read ({exc.strerror or type(exc).__name__})")
                self._files_done += 1
                continue
            chunks = chunk_document(text)
            if not chunks:
                yield Problem(name, "has no text", "empty")
            session = self.session_id or f"doc:{name}"
            for n, chunk in enumerate(chunks):
                yield Record(
                    f"{name}, chunk {n + 1}",
                    session,
                    "document",
                    chunk,
                    when,
                    name,
                    import_key("document", session, name, n, chunk),
                    {"source": "documents"},
                )
            self._files_done += 1

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
        if self._zip is not None:
            self._zip.close()
            self._zip = None


def _not_object(index: int) -> Iterator[Item]:
    yield Problem(f"conversation {index + 1}", "is not a JSON object")


def _size(path: Path) -> int:
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            return zf.getinfo(_member(zf, path)).file_size
    return path.stat().st_size


def _member(zf: zipfile.ZipFile, path: Path) -> str:
    names = [n for n in zf.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"]
    if not names:
        raise InvalidInputError(
            f"{path} is a zip without a conversations.json: is it a ChatGPT or Claude export?"
        )
    return min(names, key=len)


def open_json(path: Path, owner: Source | None = None) -> IO[bytes]:
    """The JSON bytes of ``path``: the file, or the ``conversations.json`` inside an export's zip."""
    if zipfile.is_zipfile(path):
        zf = zipfile.ZipFile(path)
        if owner is not None:
            owner._zip = zf
        return zf.open(_member(zf, path))
    return path.open("rb")


def document_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(
        p
        for p in path.rglob("*")
        if p.is_file()
        and p.suffix.lower() in DOCUMENT_SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(path).parts)
    )


# ------------------------------------------------------------------ detection
def detect(path: Path) -> str:  # noqa: C901
    """The format of ``path`` (see the module's docstring), or a clear error."""
    if not path.exists():
        raise InvalidInputError(f"{path} does not exist.")
    if path.is_dir():
        inner = path / "conversations.json"
        if inner.is_file():
            return detect(inner)
        if not document_files(path):
            raise InvalidInputError(f"{path} holds no conversations.json and no Markdown or text files.")
        return "documents"
    if path.suffix.lower() in DOCUMENT_SUFFIXES:
        return "documents"
    if zipfile.is_zipfile(path):
        return _detect_json(path)
    with path.open("rb") as f:
        head = f.read(4096).lstrip()
    if head.startswith(b"{"):
        first = _first_line(path)
        if isinstance(first, dict) and first.get("type") == ARCHIVE_TYPE:
            return "memories"
        if isinstance(first, dict) and ("content" in first or "role" in first):
            return "messages"
    if head.startswith(b"["):
        return _detect_json(path)
    raise InvalidInputError(
        f"Could not tell what {path} is. Import takes a ChatGPT or Claude export (conversations.json or its zip), "
        "a JSON or JSON-lines list of messages, a memory export, or a folder of Markdown/text files."
    )


def _first_line(path: Path) -> Any:
    with path.open("rb") as f:
        line = f.readline(10_000_000)
    try:
        return json.loads(line)
    except ValueError:
        return None


def _detect_json(path: Path, look: int = 50) -> str:
    """Decide from the keys of the list's first items (up to ``look`` of them, so a few odd
    records at the start do not hide what the file is)."""
    keys: set[str] = set()
    seen = 0
    found: str | None = None
    with open_json(path) as raw:
        try:
            for prefix, event, value in ijson.parse(raw):
                if prefix == "" and event != "start_array":
                    break
                if prefix == "item" and event == "map_key":
                    keys.add(str(value))
                elif prefix == "item" and event == "end_map":
                    seen += 1
                    found = _decide(keys)
                    if found or seen >= look:
                        break
                    keys = set()
        except ijson.JSONError as exc:
            if not found and not seen:
                raise InvalidInputError(f"{path} is not valid JSON ({exc}).") from None
    found = found or _decide(keys)
    if found:
        return found
    if not seen and not keys:
        raise InvalidInputError(f"{path} holds no conversations or messages.")
    raise InvalidInputError(
        f"{path} is a JSON list whose items are neither ChatGPT or Claude conversations "
        'nor messages with "role" and "content".'
    )


def _decide(keys: set[str]) -> str | None:
    if "mapping" in keys:
        return "chatgpt"
    if "chat_messages" in keys:
        return "claude"
    if "content" in keys or "role" in keys:
        return "messages"
    return None


# ------------------------------------------------------------------ ChatGPT
def chatgpt_items(conv: dict[str, Any], index: int) -> Iterator[Item]:  # noqa: C901
    conv_id = conv.get("conversation_id") or conv.get("id")
    where = f"conversation {index + 1}"
    if not conv_id:
        yield Problem(where, "has no id")
        return
    where = f"conversation {index + 1} ({conv_id})"
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict) or not mapping:
        yield Problem(where, 'has no message tree ("mapping")')
        return
    try:
        conv_time = epoch_to_iso(conv.get("create_time"))
    except (TypeError, ValueError, OverflowError, OSError):
        conv_time = None
    title = conv.get("title") if isinstance(conv.get("title"), str) else None
    node_id = conv.get("current_node")
    if node_id not in mapping:  # no current node: the newest leaf
        leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]
        node_id = max(leaves, key=lambda k: _node_time(mapping[k]), default=None)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while node_id is not None and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        node = mapping[node_id]
        if not isinstance(node, dict):
            yield Problem(f"{where}, node {node_id}", "is not a JSON object")
            break
        path.append(node)
        node_id = node.get("parent")
    session = f"chatgpt:{conv_id}"
    for node in reversed(path):
        msg = node.get("message")
        if not isinstance(msg, dict):
            continue  # the tree's root holds no message
        msg_id = msg.get("id") or node.get("id")
        pos = f"{where}, message {msg_id}"
        author: dict[str, Any] = msg["author"] if isinstance(msg.get("author"), dict) else {}
        role = author.get("role")
        if role not in ROLES:
            yield Problem(pos, f"has the role {role!r}, not one of {', '.join(ROLES)}")
            continue
        meta_in = msg.get("metadata") if isinstance(msg.get("metadata"), dict) else {}
        if meta_in and meta_in.get("is_visually_hidden_from_conversation"):
            yield Problem(pos, "is hidden in ChatGPT (a system prompt or context)", "empty")
            continue
        content: dict[str, Any] = msg["content"] if isinstance(msg.get("content"), dict) else {}
        parts = content.get("parts")
        texts = [p for p in parts if isinstance(p, str) and p.strip()] if isinstance(parts, list) else []
        text = "\n\n".join(texts).strip()
        if not text:
            yield Problem(pos, "has no text", "empty")
            continue
        try:
            when = epoch_to_iso(msg.get("create_time")) or conv_time
        except (TypeError, ValueError, OverflowError, OSError):
            yield Problem(pos, f"has an unreadable create_time {msg.get('create_time')!r}")
            continue
        meta: dict[str, Any] = {
            "source": "chatgpt",
            "conversation_id": str(conv_id),
            "message_id": str(msg_id),
        }
        if title:
            meta["title"] = title
        name = author.get("name") if isinstance(author.get("name"), str) and role == "tool" else None
        yield Record(pos, session, role, text, when, name, import_key("chatgpt", conv_id, msg_id), meta)


def _node_time(node: Any) -> float:
    msg = node.get("message") if isinstance(node, dict) else None
    value = msg.get("create_time") if isinstance(msg, dict) else None
    return float(value) if isinstance(value, (int, float)) else 0.0


# ------------------------------------------------------------------ Claude
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


# ------------------------------------------------------------------ VeraMem's own message lists
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


def open_source(path: Path, fmt: str | None = None, *, session_id: str | None = None) -> Source:
    """Open ``path`` for import, detecting its format unless ``fmt`` names one."""
    fmt = fmt or detect(path)
    if path.is_dir() and fmt in ("chatgpt", "claude", "messages"):
        path = path / "conversations.json"  # an unzipped export's folder
        if not path.is_file():
            raise InvalidInputError(f"{path.parent} holds no conversations.json.")
    if fmt not in FORMATS:
        raise InvalidInputError(f"Unknown import format {fmt!r}; use one of {', '.join(FORMATS)}.")
    return Source(path, fmt, session_id=session_id)


# ------------------------------------------------------------------ memory archives
def read_archive(path: Path) -> Iterator[tuple[int, dict[str, Any] | Problem]]:
    """The lines of a ``veramem export memories`` file as (line number, object or Problem)."""
    with path.open("rb") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                yield n, Problem(f"line {n}", "is not valid JSON")
                continue
            yield n, obj if isinstance(obj, dict) else Problem(f"line {n}", "is not a JSON object")
