"""The VeraMem terminal app: sections as app modes, one error handler, the entry points.

``run_app(home)`` is what ``veramem`` (no subcommand) and ``make run`` call. Tests and the
benchmark build :class:`VeramemApp` themselves around a ``Memory`` they made.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.signal import Signal
from textual.worker import Worker, WorkerState
from veramem_desktop.core.errors import LockedError, NotInitialisedError, VeramemError
from veramem_desktop.core.trust.display import visible
from veramem_desktop.tui.commands import VeramemCommands
from veramem_desktop.tui.demo_loader import load_demo_set, summarise
from veramem_desktop.tui.screens.base import FacadeWorkers
from veramem_desktop.tui.screens.episodes import EpisodesScreen
from veramem_desktop.tui.screens.first_run import FirstRunScreen
from veramem_desktop.tui.screens.help import HelpScreen
from veramem_desktop.tui.screens.ledger import LedgerScreen
from veramem_desktop.tui.screens.memories import MemoriesScreen
from veramem_desktop.tui.screens.review import ReviewScreen
from veramem_desktop.tui.screens.settings import SettingsScreen
from veramem_desktop.tui.screens.sync import SyncScreen
from veramem_desktop.tui.screens.unlock import UnlockScreen
from veramem_desktop.tui.types import CreateMemory, KeyringProbe, MemoryFactory

if TYPE_CHECKING:
    from veramem_desktop.memory import Memory

DARK, LIGHT = "textual-dark", "textual-light"


def _no_keyring() -> bool:
    return False


class VeramemApp(App[None]):
    """Browse, search, inspect, review and forget memories; verify the ledger."""

    TITLE = "VeraMem"
    CSS_PATH = "app.tcss"
    MODES: ClassVar[dict[str, Any]] = {
        "memories": MemoriesScreen,
        "episodes": EpisodesScreen,
        "review": ReviewScreen,
        "ledger": LedgerScreen,
        "sync": SyncScreen,
        "settings": SettingsScreen,
    }
    DEFAULT_MODE = "memories"
    COMMANDS = App.COMMANDS | {VeramemCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "1",
            "go('memories')",
            "Memories",
            show=False,
            id="go.memories",
            tooltip="Browse memories and search them as you type",
        ),
        Binding(
            "2",
            "go('episodes')",
            "Episodes",
            show=False,
            id="go.episodes",
            tooltip="The raw conversations, one session at a time",
        ),
        Binding(
            "3",
            "go('review')",
            "Review",
            show=False,
            id="go.review",
            tooltip="Candidates and conflicts waiting for your decision",
        ),
        Binding(
            "4",
            "go('ledger')",
            "Ledger",
            show=False,
            id="go.ledger",
            tooltip="Verify the hash-chained record of every change",
        ),
        Binding("5", "go('sync')", "Sync", show=False, id="go.sync", tooltip="Your devices and pairing"),
        Binding(
            "6",
            "go('settings')",
            "Settings",
            show=False,
            id="go.settings",
            tooltip="LLM backend, embedder and where the store lives",
        ),
        Binding(
            "question_mark,f1",
            "help",
            "Help",
            key_display="?",
            id="app.help",
            tooltip="Every key, screen by screen",
        ),
        Binding(
            "ctrl+t",
            "toggle_theme",
            "Theme",
            show=False,
            id="app.theme",
            tooltip="Switch between the dark and the light theme",
        ),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Leave VeraMem"),
    ]

    @dataclass
    class Opened(Message):
        """The memory object is built; ``exists`` says whether a store is there yet."""

        memory: Memory
        exists: bool

    @dataclass
    class DemoLoaded(Message):
        summary: str

    def __init__(
        self,
        memory_factory: MemoryFactory,
        *,
        create_memory: CreateMemory | None = None,
        keyring_probe: KeyringProbe | None = None,
        dark: bool = True,
    ) -> None:
        super().__init__()
        self.memory_factory = memory_factory
        self.create_memory = create_memory
        self.keyring_probe: KeyringProbe = keyring_probe or _no_keyring
        self.memory: Memory | None = None
        #: app-wide event: the store changed (opened, created, forgotten, reviewed, demo loaded)
        self.store_changed: Signal[str] = Signal(self, "store-changed")
        self._unlocking = False
        self._started = perf_counter()
        #: seconds from construction to the first frame, and to the first list filled from the store
        self.first_paint_s: float | None = None
        self.first_content_s: float | None = None
        self.theme = DARK if dark else LIGHT

    # ------------------------------------------------------------ start
    def on_mount(self) -> None:
        self.open_memory()

    def on_ready(self) -> None:
        self.first_paint_s = perf_counter() - self._started

    @work(thread=True, exclusive=True, exit_on_error=False, group="app.open")
    def open_memory(self) -> None:
        memory = self.memory_factory(None)
        self.post_message(self.Opened(memory, memory.exists()))

    def on_veramem_app_opened(self, message: Opened) -> None:
        if message.exists:
            self.adopt_memory(message.memory, "opened")
        else:
            self.push_screen(FirstRunScreen(str(message.memory.store_path)), self._first_run_done)

    def _first_run_done(self, memory: Memory | None) -> None:
        if memory is not None:
            self.adopt_memory(memory, "created")

    def adopt_memory(self, memory: Memory, reason: str) -> None:
        """Use ``memory`` from now on and tell every section to reload."""
        previous, self.memory = self.memory, memory
        if previous is not None and previous is not memory:
            previous.close()
        self.store_changed.publish(reason)

    def mark_first_content(self) -> None:
        if self.first_content_s is None:
            self.first_content_s = perf_counter() - self._started

    def require_memory(self) -> Memory:
        if self.memory is None:
            raise NotInitialisedError(
                "The store is not open yet. Wait a moment, or create one on the first screen."
            )
        return self.memory

    # ------------------------------------------------------------ errors: the one handler
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            self.report_error(event.worker.error)

    def on_facade_workers_failed(self, message: FacadeWorkers.Failed) -> None:
        self.report_error(message.error)

    def report_error(self, error: BaseException) -> None:
        """Turn a failed facade call into a notification (a locked store into the unlock screen)."""
        if isinstance(error, LockedError) and self.memory is not None:
            if not self._unlocking:
                self._unlocking = True
                self.push_screen(UnlockScreen(), self._unlocked)
            return
        if isinstance(error, VeramemError):
            self.notify(
                visible(error.message), title=visible(error.title), severity="error", timeout=10, markup=False
            )
        else:
            self.log.error(f"{type(error).__name__} in a worker")
            self.notify(
                f"Unexpected {type(error).__name__}. This is a bug in VeraMem; the rest of the app still works.",
                title="Something went wrong",
                severity="error",
                timeout=10,
            )

    def _unlocked(self, memory: Memory | None) -> None:
        self._unlocking = False
        if memory is not None:
            self.adopt_memory(memory, "unlocked")

    # ------------------------------------------------------------ actions
    def action_go(self, section: str) -> None:
        """Show a section; each section keeps its own stack (a memory opened stays open)."""
        if self.memory is None or section == self.current_mode:
            return
        self.switch_mode(section)

    def run_command(self, name: str) -> None:
        """Palette commands that act on a section: ``verify`` the ledger, load the ``demo``."""
        if self.memory is None:
            self.notify("The store is not open yet.", severity="warning")
        elif name == "verify":
            self.action_go("ledger")
            self.call_after_refresh(self._verify_on_ledger)
        elif name == "demo":
            self.load_demo()

    def _verify_on_ledger(self) -> None:
        if isinstance(self.screen, LedgerScreen):
            self.screen.action_verify()

    @work(thread=True, exclusive=True, exit_on_error=False, group="app.demo")
    def load_demo(self) -> None:
        self.post_message(self.DemoLoaded(summarise(load_demo_set(self.require_memory()))))

    def on_veramem_app_demo_loaded(self, message: DemoLoaded) -> None:
        self.notify(message.summary, title="Demo loaded")
        self.store_changed.publish("demo")

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT if self.theme == DARK else DARK


def run_app(home: str | Path | None = None) -> None:
    """Open the terminal app on the store in ``home`` (default: VERAMEM_HOME or the user folders)."""
    from veramem_desktop.keys import keyring_usable
    from veramem_desktop.memory import Memory

    def factory(passphrase: str | None) -> Memory:
        return Memory(home, passphrase=passphrase, channel="tui")

    def create(request: Any) -> Any:
        return Memory.create(
            home, passphrase=request.passphrase, use_keyring=request.use_keyring, channel="tui"
        )

    app = VeramemApp(factory, create_memory=create, keyring_probe=keyring_usable)
    try:
        app.run()
    finally:
        if app.memory is not None:
            app.memory.close()


# ------------------------------------------------------------ start-up timing (for `veramem bench`)
async def _time_start(memory: Memory, size: tuple[int, int], until_content: bool) -> float:
    from textual.worker import WorkerCancelled, WorkerFailed

    app = VeramemApp(lambda _passphrase: memory)
    async with app.run_test(size=size) as pilot:
        for _ in range(1000):  # a bound, not a timeout: each round waits for real work to finish
            done = app.first_content_s if until_content else app.first_paint_s
            if done is not None:
                break
            try:
                await app.workers.wait_for_complete()
            except WorkerFailed:
                break
            except WorkerCancelled:
                pass  # an exclusive worker replaced by a newer one; wait for that one next round
            await pilot.pause()
        try:
            await app.workers.wait_for_complete()
        except (WorkerCancelled, WorkerFailed):
            pass  # the timing is taken; what the app does next is not measured
    result = app.first_content_s if until_content else app.first_paint_s
    if result is None:
        raise RuntimeError("The app did not show the memories list; is the store readable?")
    return result


def measure_first_paint(memory: Memory, size: tuple[int, int] = (120, 40)) -> float:
    """Seconds from building the app to its first frame, headless, on ``memory`` (not closed)."""
    return asyncio.run(_time_start(memory, size, until_content=False))


def measure_first_content(memory: Memory, size: tuple[int, int] = (120, 40)) -> float:
    """Seconds from building the app to the memories list filled from the store, headless."""
    return asyncio.run(_time_start(memory, size, until_content=True))
