"""One conversation turn as the indexes hold it: the speaker's line, the text BM25 indexes for it, and
the text its context-enriched vector is made from (pure functions, no IO)."""

from __future__ import annotations


def context_text(prev: str | None, current: str, nxt: str | None, *, budget: int = 1200) -> str:
    """A turn with its neighbours in conversation order (previous, the turn, next), for the
    context-enriched vector. The neighbours are cut first so the turn itself always fits."""
    parts = (
        ([prev[: budget // 3]] if prev else []) + [current[:budget]] + ([nxt[: budget // 3]] if nxt else [])
    )
    return "\n".join(parts)


def speaker_line(speaker: str, content: str) -> str:
    """One turn as the indexes see it: "speaker: words"."""
    return f"{speaker}: {content}"


def episode_fts_text(line: str, prev_line: str | None) -> str:
    """What BM25 indexes for a turn: the previous turn of its session, then the turn. A reply is
    then found by the words of the question it answers; the previous turn is known when the turn
    arrives, so nothing is re-indexed later."""
    return f"{prev_line}\n{line}" if prev_line else line
