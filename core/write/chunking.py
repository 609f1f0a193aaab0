"""Splitting documents into episode-sized chunks (pure)."""

from __future__ import annotations

import re

_PARAGRAPH = re.compile(r"\n\s*\n")


def chunk_document(text: str, *, target_chars: int = 1200, max_chars: int = 4000) -> list[str]:
    """Split on blank lines, then pack paragraphs into chunks of about ``target_chars``.

    A paragraph longer than ``max_chars`` is cut at sentence ends (or hard, if it has none).
    """
    pieces: list[str] = []
    for para in _PARAGRAPH.split(text):
        para = para.strip()
        if not para:
            continue
        while len(para) > max_chars:
            cut = max(para.rfind(". ", 0, max_chars), para.rfind("\n", 0, max_chars))
            cut = cut + 1 if cut > max_chars // 4 else max_chars
            pieces.append(para[:cut].strip())
            para = para[cut:].strip()
        if para:
            pieces.append(para)
    chunks: list[str] = []
    current = ""
    for piece in pieces:
        if current and len(current) + len(piece) + 2 > target_chars:
            chunks.append(current)
            current = piece
        else:
            current = f"{current}\n\n{piece}" if current else piece
    if current:
        chunks.append(current)
    return chunks
