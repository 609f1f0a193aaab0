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
  give a date (core/text/explicit_dates.py ``document_time``), else by the file's time.
- ``memories``: the JSON lines written by ``veramem export memories`` (read by
  core/transfer/memory_import.py).

JSON is parsed with ``ijson`` one conversation (or message) at a time, so an export of
any size is never held in memory whole. Each message gets an import key: a hash of its
source ids (conversation and message id) or, where the source has none, of its session,
role, time, text and how many identical messages came before it. A key already stored
is skipped, which makes a re-run, or a run after an interrupted one, add only what is
missing. A record that cannot be read becomes a Problem (core/transfer/records.py) naming
its position; the reading goes on.

What is opened, and how much of it is read, is bounded: only regular files, and in a folder
only what lies inside it (core/transfer/opening.py); every JSON byte passes a
:class:`~veramem_desktop.core.transfer.bounded.JsonGuard` that refuses an oversized token,
record or nesting while it is read (also inside a zip, whatever its compression ratio), and
the refused record is skipped so the rest of the file is still read.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import ijson
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.storage import limits
from veramem_desktop.core.storage.ids import iso
from veramem_desktop.core.text.explicit_dates import document_time
from veramem_desktop.core.transfer.bounded import (
    MAX_TOKEN_BYTES,
    JsonGuard,
    TooLargeError,
)
from veramem_desktop.core.transfer.chatgpt import chatgpt_items
from veramem_desktop.core.transfer.claude import claude_items
from veramem_desktop.core.transfer.conversations import conversations
from veramem_desktop.core.transfer.message_lists import message_items
from veramem_desktop.core.transfer.opening import (
    Listed,
    check_input,
    folder_files,
    open_regular,
    read_bounded,
)
from veramem_desktop.core.transfer.records import Item, Problem, Record, import_key
from veramem_desktop.core.write.chunking import chunk_document

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
        self._files: list[Listed] = []
        self._unfollowed: list[Problem] = []
        if fmt == "documents":
            self._files, self._unfollowed = document_files(path)
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
                yield from conversations(JsonGuard(stream), read)
            elif self.format == "messages":
                yield from message_items(stream, self.path, self.session_id)
            else:
                raise InvalidInputError(f"{self.path} is a memory export: it is read by the memory import.")
        finally:
            self.close()

    def _documents(self) -> Iterator[Item]:
        yield from self._unfollowed
        base = self.path.resolve() if self.path.is_dir() else self.path.parent
        for file in self._files:
            name = file.path.relative_to(base).as_posix()
            try:
                text = read_bounded(file, limits.MAX_INPUT_BYTES).decode("utf-8", errors="replace")
                # the document's own date (its title, a dated line, front matter) over the file's time,
                # which for a copied or downloaded file is often the day it was imported
                dated = document_time(text, datetime.fromtimestamp(os.stat(file.target).st_mtime, UTC))
                when = iso(dated) if dated is not None else None
            except InvalidInputError as exc:
                yield Problem(name, exc.message)
                self._files_done += 1
                continue
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


def _size(path: Path) -> int:
    with open_regular(path) as f:
        if zipfile.is_zipfile(f):
            with zipfile.ZipFile(f) as zf:
                return zf.getinfo(_member(zf, path)).file_size
        return os.fstat(f.fileno()).st_size


def _member(zf: zipfile.ZipFile, path: Path) -> str:
    names = [n for n in zf.namelist() if n.rsplit("/", 1)[-1] == "conversations.json"]
    if not names:
        raise InvalidInputError(
            f"{path} is a zip without a conversations.json: is it a ChatGPT or Claude export?"
        )
    return min(names, key=len)


def open_json(path: Path, owner: Source | None = None) -> IO[bytes]:
    """The JSON bytes of ``path`` (a regular file): the file, or the ``conversations.json`` inside an
    export's zip, streamed (a member is inflated as it is read, never whole)."""
    f = open_regular(path)
    try:
        if not zipfile.is_zipfile(f):
            f.seek(0)
            return f
        zf = zipfile.ZipFile(f)
        if owner is not None:
            owner._zip = zf
        return zf.open(_member(zf, path))
    except BaseException:
        f.close()
        raise


def document_files(path: Path) -> tuple[list[Listed], list[Problem]]:
    """The documents to read at ``path`` (a file, or a folder's Markdown and text files), and the
    problems of the links in the folder that were not followed (core/transfer/opening.py)."""
    st = check_input(path)
    if not path.is_dir():
        return [Listed(path, path, (st.st_dev, st.st_ino))], []
    return folder_files(path, DOCUMENT_SUFFIXES)


# ------------------------------------------------------------------ detection
def detect(path: Path) -> str:
    """The format of ``path`` (see the module's docstring), or a clear error."""
    check_input(path)
    if path.is_dir():
        return _detect_folder(path)
    if path.suffix.lower() in DOCUMENT_SUFFIXES:
        return "documents"
    with open_regular(path) as f:
        if zipfile.is_zipfile(f):
            return _detect_json(path)
        f.seek(0)
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
    inner = _inner_export(path)
    if inner is not None:
        return detect(inner)
    if not document_files(path)[0]:
        raise InvalidInputError(f"{path} holds no conversations.json and no Markdown or text files.")
    return "documents"


def _inner_export(folder: Path) -> Path | None:
    """An unzipped export's ``conversations.json`` in ``folder``, when it is there and lies inside
    the folder (a link to a file outside it is refused)."""
    inner = folder / "conversations.json"
    if not inner.is_file():
        return None
    if not inner.resolve().is_relative_to(folder.resolve()):
        raise InvalidInputError(f"{inner} is a link that leads out of {folder}; it is not followed.")
    return inner


def _detect_json_lines(path: Path) -> str | None:
    """What the first JSON line says the file holds ("memories" or "messages"), or None when it says neither."""
    first = _first_line(path)
    if isinstance(first, dict) and first.get("type") == ARCHIVE_TYPE:
        return "memories"
    if isinstance(first, dict) and ("content" in first or "role" in first):
        return "messages"
    return None


def _first_line(path: Path) -> Any:
    with open_regular(path) as f:
        line = f.readline(MAX_TOKEN_BYTES)
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _detect_json(path: Path, look: int = 50) -> str:
    """Decide from the keys of the list's first items (up to ``look`` of them, so a few odd
    records at the start do not hide what the file is)."""
    state = _Keys()
    too_large: TooLargeError | None = None
    with open_json(path) as raw:
        try:
            state.read(ijson.parse(JsonGuard(raw)), look)
        except ijson.JSONError as exc:
            if not state.found and not state.seen:
                raise InvalidInputError(f"{path} is not valid JSON ({exc}).") from None
        except TooLargeError as exc:
            too_large = exc  # decided from what was read before it (the import lists the record itself)
    found = state.found or _decide(state.keys)
    if found:
        return found
    if too_large is not None:
        raise InvalidInputError(
            f"{path}: record {state.seen + 1} {too_large.message}; nothing before it tells its format."
        )
    if not state.seen and not state.keys:
        raise InvalidInputError(f"{path} holds no conversations or messages.")
    raise InvalidInputError(
        f"{path} is a JSON list whose items are neither ChatGPT or Claude conversations "
        'nor messages with "role" and "content".'
    )


class _Keys:
    """The keys of the item being read, how many items were read, and the format they decided."""

    def __init__(self) -> None:
        self.keys: set[str] = set()
        self.seen = 0
        self.found: str | None = None

    def read(self, events: Iterator[tuple[str, str, Any]], look: int) -> None:
        for prefix, event, value in events:
            if prefix == "" and event != "start_array":
                return
            if prefix == "item" and event == "map_key":
                self.keys.add(str(value))
            elif prefix == "item" and event == "end_map":
                self.seen += 1
                self.found = _decide(self.keys)
                if self.found or self.seen >= look:
                    return
                self.keys = set()


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
    check_input(path)
    fmt = fmt or detect(path)
    if path.is_dir() and fmt in ("chatgpt", "claude", "messages"):
        inner = _inner_export(path)  # an unzipped export's folder
        if inner is None:
            raise InvalidInputError(f"{path} holds no conversations.json.")
        path = inner
    if fmt not in FORMATS:
        raise InvalidInputError(f"Unknown import format {fmt!r}; use one of {', '.join(FORMATS)}.")
    return Source(path, fmt, session_id=session_id)
