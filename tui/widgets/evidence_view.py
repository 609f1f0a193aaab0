"""One piece of evidence: its source episode with the quoted words highlighted."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.widgets import Static
from veramem_desktop.tui.formatting import find_quote, highlight_spans, join_nonempty, one_line, short_time


def evidence_renderable(evidence: Any) -> Group:
    """Header (role, source, session, time, match score) and the episode text with the quote marked."""
    episode = evidence.episode
    span = find_quote(
        episode.content,
        evidence.quote,
        getattr(evidence, "span_start", None),
        getattr(evidence, "span_end", None),
    )
    score = getattr(evidence, "score", None)
    header = Text(
        one_line(
            join_nonempty(
                [
                    episode.role + (f" ({episode.source_name})" if episode.source_name else ""),
                    f"session {episode.session_id}" if episode.session_id else None,
                    short_time(episode.event_time),
                    f"match {score:.2f}" if isinstance(score, (int, float)) else None,
                ]
            ),
            200,
        ),
        style="dim",
    )
    body = highlight_spans(episode.content, [span] if span else [])
    if span is None:
        body.append(f"\n(quote not found in this episode: “{one_line(evidence.quote, 400)}”)", style="italic")
    return Group(header, body)


class EvidenceView(Static):
    """Renders one EvidenceView from ``mem.reading.detail``."""

    def __init__(self, evidence: Any) -> None:
        super().__init__(evidence_renderable(evidence), classes="evidence")
        self.evidence = evidence
