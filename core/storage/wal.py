"""Reading a store's write-ahead log (``veramem.db-wal``) without opening the store.

SQLite folds a WAL into the store the next time the store is opened, and it silently
drops every frame from the first one whose checksum or salt does not match: a damaged
WAL loses the transactions in it without a word. This reads the WAL as SQLite will, so
`veramem doctor` can say so before anything opens the store. Pure functions over bytes;
the format is https://www.sqlite.org/fileformat2.html#walformat (checksums are computed
over the encrypted pages, so no key is needed).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

_MAGIC = (0x377F0682, 0x377F0683)
HEADER_BYTES = 32
FRAME_HEADER_BYTES = 24


@dataclass(frozen=True)
class WalReport:
    """What SQLite would make of a WAL file."""

    size: int
    page_size: int = 0
    #: frames SQLite would use (up to and including the last valid commit frame)
    frames: int = 0
    transactions: int = 0
    #: frames of this WAL's generation after the valid ones: written, but SQLite would drop them
    dropped_frames: int = 0
    #: bytes at the end that do not make a whole frame (a write cut short)
    torn_bytes: int = 0
    problem: str = ""

    @property
    def damaged(self) -> bool:
        return bool(self.problem)


def _checksum(data: bytes, big_endian: bool, s0: int = 0, s1: int = 0) -> tuple[int, int]:
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def read_wal(data: bytes) -> WalReport:
    """Check a WAL's header and frame chain the way SQLite's recovery does."""
    size = len(data)
    if size == 0:
        return WalReport(size)
    if size < HEADER_BYTES:
        return WalReport(size, torn_bytes=size, problem=f"the WAL is {size} bytes, shorter than its header")
    magic, _version, page_size, _seq, salt1, salt2, c0, c1 = struct.unpack(">8I", data[:HEADER_BYTES])
    big = magic & 1 == 1
    bad_header = _header_problem(data, magic, page_size, big, (c0, c1))
    if bad_header is not None:
        return bad_header
    frame_size = FRAME_HEADER_BYTES + page_size
    whole = (size - HEADER_BYTES) // frame_size
    torn = (size - HEADER_BYTES) % frame_size
    used, transactions, broken_at, broken_commit = _walk_frames(
        data, whole, frame_size, big, (salt1, salt2), (c0, c1)
    )
    dropped = 0
    if broken_at >= 0:
        dropped = _frames_of_this_generation(data, broken_at, whole, frame_size, (salt1, salt2))
    problem = ""
    # One bad frame at the very end that commits nothing is a write a crash cut short (the
    # transaction never committed); anything else loses transactions that did.
    if broken_at >= 0 and (dropped > 1 or broken_commit):
        problem = (
            f"frame {broken_at + 1} of {whole} in the WAL fails its checksum; SQLite would drop it and "
            f"every frame after it, with the transactions they hold"
        )
    elif broken_at >= 0:
        torn += frame_size
    return WalReport(size, page_size, used, transactions, dropped, torn, problem)


def _header_problem(
    data: bytes, magic: int, page_size: int, big: bool, checksum: tuple[int, int]
) -> WalReport | None:
    """The report of a WAL whose header SQLite would not accept (magic, page size, checksum), else None."""
    size = len(data)
    if magic not in _MAGIC:
        return WalReport(size, problem="the WAL header is not a WAL header")
    if page_size < 512 or page_size > 65536 or page_size & (page_size - 1):
        return WalReport(size, problem=f"the WAL header gives an impossible page size ({page_size})")
    if _checksum(data[:24], big) != checksum:
        frames = (size - HEADER_BYTES) // (FRAME_HEADER_BYTES + page_size)
        return WalReport(
            size,
            page_size,
            dropped_frames=frames,
            problem=f"the WAL header fails its checksum, so all {frames} frame(s) in it would be dropped",
        )
    return None


def _walk_frames(
    data: bytes, whole: int, frame_size: int, big: bool, salts: tuple[int, int], s: tuple[int, int]
) -> tuple[int, int, int, int]:
    """Follow the checksum chain over the frames of this generation: (frames up to the last commit,
    transactions committed, the first bad frame or -1, that frame's commit field)."""
    valid = used = transactions = 0
    for n in range(whole):
        off = HEADER_BYTES + n * frame_size
        pgno, commit, fs1, fs2, f0, f1 = struct.unpack(">6I", data[off : off + FRAME_HEADER_BYTES])
        if (fs1, fs2) != salts:
            break  # a frame left from an earlier generation: SQLite stops here, as it should
        s = _checksum(data[off : off + 8], big, *s)
        s = _checksum(data[off + FRAME_HEADER_BYTES : off + frame_size], big, *s)
        if pgno == 0 or s != (f0, f1):
            return used, transactions, n, commit
        valid = n + 1
        if commit:
            used, transactions = valid, transactions + 1
    return used, transactions, -1, 0


def _frames_of_this_generation(
    data: bytes, broken_at: int, whole: int, frame_size: int, salts: tuple[int, int]
) -> int:
    """How many frames from ``broken_at`` on carry this WAL's salts (SQLite drops them all)."""
    dropped = 0
    for n in range(broken_at, whole):
        off = HEADER_BYTES + n * frame_size
        if struct.unpack(">2I", data[off + 8 : off + 16]) == salts:
            dropped += 1
    return dropped


def wal_path(store_path: Path) -> Path:
    return store_path.with_name(store_path.name + "-wal")


def inspect(store_path: Path) -> WalReport | None:
    """The report for the WAL beside ``store_path``, or None when there is none."""
    path = wal_path(store_path)
    if not path.exists():
        return None
    return read_wal(path.read_bytes())
