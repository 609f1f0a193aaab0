"""Decrypt every physical page of a SQLCipher 4 file and every frame of its WAL (for erasure proofs).

A logical export would skip free pages, so erasure is checked on the raw bytes.
SQLCipher 4 defaults: 4096-byte pages, AES-256-CBC, an 80-byte reserved tail per page
holding a 16-byte IV then a 64-byte HMAC; page 1 starts with the 16-byte salt in clear.
With a raw key (PRAGMA key = "x'…'") the 32 key bytes are the AES key itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

PAGE = 4096
RESERVE = 80
SALT = 16


def decrypt_page(raw: bytes, key: bytes, first: bool) -> bytes:
    iv = raw[PAGE - RESERVE : PAGE - RESERVE + 16]
    start = SALT if first else 0
    body = raw[start : PAGE - RESERVE]
    decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    return decryptor.update(body) + decryptor.finalize()


def file_pages(path: Path, key: bytes) -> Iterator[bytes]:
    data = path.read_bytes()
    for n in range(len(data) // PAGE):
        yield decrypt_page(data[n * PAGE : (n + 1) * PAGE], key, first=(n == 0))


def wal_frames(path: Path, key: bytes) -> Iterator[bytes]:
    if not path.exists():
        return
    data = path.read_bytes()
    offset = 32
    while offset + 24 + PAGE <= len(data):
        page_no = int.from_bytes(data[offset : offset + 4], "big")
        yield decrypt_page(data[offset + 24 : offset + 24 + PAGE], key, first=(page_no == 1))
        offset += 24 + PAGE


def plaintext_of_store(db: Path, key: bytes) -> bytes:
    """Every decrypted page and WAL frame, concatenated (with the page-1 header check done by the caller)."""
    chunks = list(file_pages(db, key)) + list(wal_frames(Path(str(db) + "-wal"), key))
    return b"\x00".join(chunks)
