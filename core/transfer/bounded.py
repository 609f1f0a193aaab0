"""A bounded reader for the JSON an import reads, so its limits apply while the bytes arrive.

``ijson`` parses an export one conversation at a time, but it holds a whole string, number
or conversation in memory before it hands it over: a zip whose one member is a 100 MB
message would be inflated and buffered whole before any message limit could look at it.
:class:`JsonGuard` sits between the (possibly decompressing) stream and the parser. It scans
each chunk for the bytes that shape JSON (quotes, backslashes, brackets, braces, newlines),
keeping how deep it is, whether it is inside a string and where the current record began,
and refuses as soon as

- a single token (a string, or a run of bytes with no structure such as a number) passes
  ``max_token`` bytes,
- a record (one item of the top-level list) passes ``max_record`` bytes, or
- nesting passes ``max_depth``,

before the parser has been given those bytes. Memory therefore stays within those bounds
whatever the compression ratio. A refusal inside a record can be skipped: :meth:`skip_record`
reads on (holding nothing) to the end of that record, after which the next read starts at
the following record, so the rest of the file is still read.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import IO, Any, TypeAlias

import ijson
from veramem_desktop.core.errors import InvalidInputError

#: one JSON string or bare token, in bytes (a message of about a million words)
MAX_TOKEN_BYTES = 8 * 1024 * 1024
#: one record (a conversation or a message) in bytes
MAX_RECORD_BYTES = 32 * 1024 * 1024
#: JSON nesting depth (a ChatGPT node's parts sit at about 7)
MAX_DEPTH = 64

#: a binary stream read by ``read(n)``: a file, a zip member, or one of the streams here
Readable: TypeAlias = IO[bytes] | io.RawIOBase

_SPECIAL = re.compile(rb'["\\\[\]{}\n]')
_QUOTE, _BACKSLASH, _NEWLINE = ord('"'), ord("\\"), ord("\n")
_OPEN = (ord("["), ord("{"))


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB"


class TooLargeError(InvalidInputError):
    """A token, record or nesting depth of an import passed its bound (``skippable``: inside a
    record, whose end :meth:`JsonGuard.skip_record` can find)."""

    title = "Import record too large"

    def __init__(self, message: str, *, skippable: bool) -> None:
        super().__init__(message)
        self.skippable = skippable


class JsonGuard(io.RawIOBase):
    """A binary stream over ``raw`` that refuses oversized JSON while reading (see the module's
    docstring). ``record_depth`` is the depth at which records sit (1: the items of a top-level
    list), or None to bound tokens and depth only."""

    def __init__(
        self,
        raw: Readable,
        *,
        record_depth: int | None = 1,
        max_token: int = MAX_TOKEN_BYTES,
        max_record: int = MAX_RECORD_BYTES,
        max_depth: int = MAX_DEPTH,
    ) -> None:
        self.raw = raw
        self.record_depth = record_depth
        self.max_token = max_token
        self.max_record = max_record
        self.max_depth = max_depth
        self.offset = 0  # absolute position of the next byte to scan
        self.depth = 0
        self.in_string = False
        self.escaped_at = -1  # absolute position of a byte escaped by a backslash
        self.token_start = 0  # where the current string began, or the last structural byte
        self.record_start = 0
        self.pending = b""  # bytes read from ``raw`` but not scanned yet (after a refusal)
        self.refusal: str | None = None  # a refusal to raise on the next read

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.refusal is not None:
            refusal, self.refusal = self.refusal, None
            raise TooLargeError(refusal, skippable=self._in_record())
        data = self.pending or self.raw.read(len(buffer))
        self.pending = b""
        if len(data) > len(buffer):
            data, self.pending = data[: len(buffer)], data[len(buffer) :]
        stop, reason = self._scan(data)
        if reason is not None:
            # the bytes before the refusal go to the parser (the records they end are whole);
            # the refusal is raised on the next read, or now when there are none
            self.pending = data[stop:] + self.pending
            data = data[:stop]
            if not data:
                raise TooLargeError(reason, skippable=self._in_record())
            self.refusal = reason
        n = len(data)
        buffer[:n] = data
        return n

    def close(self) -> None:
        self.raw.close()
        super().close()

    def _in_record(self) -> bool:
        return self.record_depth is not None and self.depth > self.record_depth

    def skip_record(self) -> None:
        """Read on, holding nothing, to the end of the record a refusal fell in; the next read
        starts after it and after the comma that separates it from the next record."""
        while self._in_record():
            data = self.pending or self.raw.read(io.DEFAULT_BUFFER_SIZE)
            self.pending = b""
            if not data:
                return
            stop, _ = self._scan(data, until_record_end=True)
            self.pending = data[stop:]
        rest = self._next_visible()
        if rest.startswith(b","):
            self.offset += 1
            rest = rest[1:]
        self.pending = rest
        self.token_start = self.offset

    def _next_visible(self) -> bytes:
        """The unscanned bytes from the next one that is not white space (reading more as needed)."""
        while True:
            rest = self.pending.lstrip()
            self.offset += len(self.pending) - len(rest)
            if rest:
                return rest
            self.pending = self.raw.read(io.DEFAULT_BUFFER_SIZE)
            if not self.pending:
                return b""

    # ------------------------------------------------------------ the scan
    def _scan(self, data: bytes, *, until_record_end: bool = False) -> tuple[int, str | None]:
        """Scan ``data`` from the state left by the previous chunk. Returns where it stopped and why:
        (len(data), None) when all of it passed; (i, reason) at a refusal (the byte at ``i`` not
        yet scanned); with ``until_record_end`` (no refusals), (i, None) just after the record's end."""
        base = self.offset
        for m in _SPECIAL.finditer(data):
            i = m.start()
            pos = base + i
            if not until_record_end:
                reason = self._over(pos)
                if reason is not None:
                    self.offset = pos
                    return i, reason
            if self._step(data[i], pos) and until_record_end:
                self.offset = pos + 1
                return i + 1, None
        end = base + len(data)
        if not until_record_end:
            reason = self._over(end)
            if reason is not None:
                self.offset = end
                return len(data), reason
        self.offset = end
        return len(data), None

    def _step(self, c: int, pos: int) -> bool:
        """Take the structural byte ``c`` at ``pos`` into the state; True when it closes a record."""
        if self.in_string:
            if pos == self.escaped_at:
                return False
            if c == _BACKSLASH:
                self.escaped_at = pos + 1
            elif c in (_QUOTE, _NEWLINE):  # a raw newline cannot be inside a JSON string
                self.in_string = False
                self.token_start = pos
            return False
        self.token_start = pos
        if c == _QUOTE:
            self.in_string = True
        elif c in _OPEN:
            self.depth += 1
            if self.record_depth is not None and self.depth == self.record_depth + 1:
                self.record_start = pos
        elif c != _NEWLINE and c != _BACKSLASH:
            self.depth -= 1
            return self.record_depth is not None and self.depth == self.record_depth
        return False

    def _over(self, pos: int) -> str | None:
        """Why the bytes up to ``pos`` pass a bound, or None."""
        if pos - self.token_start > self.max_token:
            what = "a text" if self.in_string else "a value"
            return f"holds {what} longer than {_mb(self.max_token)}"
        if self._in_record() and pos - self.record_start > self.max_record:
            return f"is larger than {_mb(self.max_record)}"
        if self.depth > self.max_depth:
            return f"nests deeper than {self.max_depth} levels"
        return None


class Prefixed(io.RawIOBase):
    """A stream with ``head`` put back in front of ``rest`` (bytes already read, or the ``[`` that
    reopens a list after :meth:`JsonGuard.skip_record`)."""

    def __init__(self, head: bytes, rest: Readable) -> None:
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


@dataclass(frozen=True)
class Refused:
    """An item of a top-level list refused by a :class:`JsonGuard` (``rest_unread``: the refusal fell
    between items, so nothing after it could be read)."""

    reason: str
    rest_unread: bool = False


def guarded_items(guard: JsonGuard, head: bytes = b"") -> Iterator[Any]:
    """The items of the top-level JSON list read through ``guard`` (after ``head``, bytes already
    taken from it), with a :class:`Refused` in place of each item the guard refused. Invalid JSON
    raises ``ijson.JSONError`` as ``ijson.items`` does."""
    stream: io.RawIOBase = Prefixed(head, guard) if head else guard
    while True:
        try:
            # numbers as Decimal (use_float would refuse an integer beyond 64 bits and stop the whole
            # file), then made plain floats: any JSON number costs at most its own record
            for item in ijson.items(stream, "item"):
                yield _plain(item)
            return
        except TooLargeError as exc:
            if not exc.skippable:
                yield Refused(exc.message, rest_unread=True)
                return
            yield Refused(exc.message)
            guard.skip_record()
            stream = Prefixed(b"[", guard)  # the list goes on at the next item


def _plain(value: Any) -> Any:
    """``value`` with each Decimal made a float (or its text when no float holds it); the guard has
    bounded the nesting, so the recursion is shallow."""
    if isinstance(value, Decimal):
        number = float(value)
        return number if number not in (float("inf"), float("-inf")) else str(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
