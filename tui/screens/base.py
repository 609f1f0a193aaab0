"""What every VeraMem screen shares: the memory it reads, the worker recipe, the frame.

The worker recipe: a method decorated with
``@work(thread=True, exclusive=True, exit_on_error=False, group=...)`` makes one facade
call and posts one result message with :meth:`FacadeWorkers.post_result`. When the call
raises, the worker ends in the ERROR state; :class:`FacadeWorkers` stops the loading
indicators and sends the error up as one ``Failed`` message, which the app turns into a
notification in its single handler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual.app import ComposeResult
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer
from textual.worker import Worker, WorkerState, get_current_worker
from veramem_desktop.tui.widgets.nav_bar import NavBar

if TYPE_CHECKING:
    from veramem_desktop.tui.app import VeramemApp

    from veramem_desktop.memory import Memory


class FacadeWorkers:
    """Mixin for screens that run facade calls in workers."""

    @dataclass
    class Failed(Message):
        """A facade call raised: the app shows it (one handler for the whole app)."""

        error: BaseException
        group: str

    @property
    def vapp(self) -> VeramemApp:
        return cast("VeramemApp", cast(Screen[Any], self).app)

    @property
    def memory(self) -> Memory:
        """The open memory; only called from workers started once the app has one."""
        return self.vapp.require_memory()

    def post_result(self, message: Message) -> None:
        """Post a worker's result unless a newer call has replaced (cancelled) this one."""
        if not get_current_worker().is_cancelled:
            cast(Screen[Any], self).post_message(message)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            screen = cast(Screen[Any], self)
            for widget in screen.query("*"):
                if widget.loading:
                    widget.loading = False
            self.worker_failed(event.worker.group)
            screen.post_message(self.Failed(event.worker.error, event.worker.group))

    def worker_failed(self, group: str) -> None:
        """Hook for a screen to restore its view after a failed call (the app reports the error)."""


class SectionScreen(FacadeWorkers, Screen[None]):
    """A top-level section (one app mode): the navigation bar, the body, the footer.

    Data is loaded on first show and again whenever the store changes, but only while the
    section is on screen: a hidden section just remembers that it is out of date.
    """

    SECTION: ClassVar[str] = ""

    def __init__(self) -> None:
        super().__init__()
        self._stale = True

    def compose(self) -> ComposeResult:
        yield NavBar(self.SECTION)
        yield from self.compose_body()
        yield Footer()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        self.vapp.store_changed.subscribe(self, self._store_changed)

    def on_screen_resume(self) -> None:
        self._refresh_if_stale()

    def _store_changed(self, _reason: str) -> None:
        self._stale = True
        self._refresh_if_stale()

    def _refresh_if_stale(self) -> None:
        if self._stale and self.vapp.memory is not None and self.is_current:
            self._stale = False
            self.refresh_data()

    def refresh_data(self) -> None:
        """Start the workers that fill this section (called on the UI thread)."""


class FacadeModal(FacadeWorkers, ModalScreen[Any]):
    """A modal dialog that may call the facade."""
