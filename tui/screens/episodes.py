"""Episodes: the raw conversation timeline, session by session, exactly as stored."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from veramem_desktop.tui.screens.base import SectionScreen
from veramem_desktop.tui.widgets.episode_timeline import EpisodeTimeline
from veramem_desktop.tui.widgets.session_list import SessionList

TIMELINE_LIMIT = 500


class EpisodesScreen(SectionScreen):
    """Sessions on the left; the highlighted one's messages on the right."""

    SECTION = "episodes"
    CSS_PATH = "episodes.tcss"

    @dataclass
    class SessionsLoaded(Message):
        sessions: list[dict[str, Any]]

    @dataclass
    class TimelineLoaded(Message):
        session_id: str | None
        episodes: list[Any]

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="episodes-body"):
            yield SessionList(id="sessions")
            with VerticalScroll(id="timeline-scroll"):
                yield EpisodeTimeline("", id="timeline")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one(SessionList).loading = True

    def refresh_data(self) -> None:
        self.query_one(SessionList).loading = True
        self.load_sessions()

    @work(thread=True, exclusive=True, exit_on_error=False, group="episodes.sessions")
    def load_sessions(self) -> None:
        self.post_result(self.SessionsLoaded(self.memory.reading.sessions()))

    @work(thread=True, exclusive=True, exit_on_error=False, group="episodes.timeline")
    def load_timeline(self, session_id: str | None) -> None:
        episodes = self.memory.reading.episodes(
            session_id=session_id, limit=TIMELINE_LIMIT, newest_first=False
        )
        self.post_result(self.TimelineLoaded(session_id, list(episodes)))

    def on_episodes_screen_sessions_loaded(self, message: SessionsLoaded) -> None:
        sessions = self.query_one(SessionList)
        sessions.loading = False
        sessions.show(message.sessions)
        if not message.sessions:
            self.query_one(EpisodeTimeline).update(
                "No conversations yet. Agents add them through MCP, REST or `veramem add`."
            )

    @on(SessionList.Chosen)
    def _chosen(self, event: SessionList.Chosen) -> None:
        self.query_one("#timeline-scroll").loading = True
        self.load_timeline(event.session_id)

    def on_episodes_screen_timeline_loaded(self, message: TimelineLoaded) -> None:
        self.query_one(EpisodeTimeline).show(message.episodes)
        scroll = self.query_one("#timeline-scroll", VerticalScroll)
        scroll.loading = False
        scroll.scroll_home(animate=False)
