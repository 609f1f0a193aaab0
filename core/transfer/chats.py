"""Reading chat history to import: format detection and the stream of records (pure, no store).

Formats, detected from the path and the first record:

- ``chatgpt``: a ChatGPT data export (``conversations.json`` or the export's zip), read by
  core/transfer/chatgpt.py.
- ``claude``: a Claude data export (``conversations.json`` or its zip), read by
  core/transfer/claude.py.
- ``messages``: VeraMem's own message lists, a JSON list or JSON lines, read by
  core/transfer/message_lists.py.
- ``documents``: a Markdown or text file, or a folder of them; one document per file,
  chunked as ``veramem add --file F --role document`` does, dated by its own words when they
  give a date (core/write/written_dates.py ``document_time``), else by the file's time.
- ``memories``: the JSON lines written by ``veramem export memories`` (read by
  core/transfer/memory_import.py).

JSON is parsed with ``ijson`` one conversation (or message) at a time, so an export of
any size is never held in memory whole. Each message gets an import key: a hash of its
source ids (conversation and message id) or, where the source has none, of its session,
role, time, text and how many identical messages came before it. A key already stored
is skipped, which makes a re-run, or a run after an interrupted one, add only what is
missing. A record that cannot be read becomes a Problem (core/transfer/records.py) naming
its position; the reading goes on.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import ijson
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.storage.ids import iso
from veramem_desktop.core.transfer.chatgpt import chatgpt_items
from veramem_desktop.core.transfer.claude import claude_items
from veramem_desktop.core.transfer.message_lists import message_items
from veramem_desktop.core.transfer.records import Item, Problem, Record, import_key
from veramem_desktop.core.write.chunking import chunk_document
from veramem_desktop.core.write.written_dates import document_time

FORMATS = ("chatgpt", "claude", "messages", "documents", "memories")
DOCUMENT_SUFFIXES = (".md", ".markdown", ".txt", ".text")
#: the ``type`` of the first line of a ``veramem export memories`` file
ARCHIVE_TYPE = "veramem.memories"


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
                # the document's own date (its title, a dated line, front matter) over the file's time,
                # which for a copied or downloaded file is often the day it was imported
                dated = document_time(text, datetime.fromtimestamp(file.stat().st_mtime, UTC))
                when = iso(dated) if dated is not None else None
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
def detect(path: Path) -> str:
    """The format of ``path`` (see the module's docstring), or a clear error."""
    if not path.exists():
        raise InvalidInputError(f"{path} does not exist.")
    if path.is_dir():
        return _detect_folder(path)
    if path.suffix.lower() in DOCUMENT_SUFFIXES:
        return "documents"
    if zipfile.is_zipfile(path):
        return _detect_json(path)
    with path.open("rb") as f:
        head = f.read(4096).lstrip()
    if head.startswith(b"{"):
        kind = _detect_json_lines(path)
        if kind is not None:
            return kind
    if head.startswith(b"["):
        return _detect_json(path)
    raise InvalidInputError(
        f"Could not tell what {path} is. Import takes a ChatGPT or Claude export (conversations.json or its zip), "
        "a JSON or JSON-lines list of messages, a memory export, or a folder of Markdown/text files."
    )


def _detect_folder(path: Path) -> str:
    """A folder is an unzipped export when it holds conversations.json, else a folder of documents."""
    inner = path / "conversations.json"
    if inner.is_file():
        return detect(inner)
    if not document_files(path):
        raise InvalidInputError(f"{path} holds no conversations.json and no Markdown or text files.")
    return "documents"


def _detect_json_lines(path: Path) -> str | None:
    """What the first JSON line says the file holds ("memories" or "messages"), or None when it says neither."""
    first = _first_line(path)
    if isinstance(first, dict) and first.get("type") == ARCHIVE_TYPE:
        return "memories"
    if isinstance(first, dict) and ("content" in first or "role" in first):
        return "messages"
    return None


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
