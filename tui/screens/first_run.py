"""First run: choose how the key is kept, create the store, show the recovery code once,
and offer the demo conversations so there is something to look at in the first minute."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, ContentSwitcher, Footer, Input, Label, RadioSet, Static
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.tui.demo_loader import load_demo_set, summarise
from veramem_desktop.tui.screens.base import FacadeWorkers
from veramem_desktop.tui.types import InitRequest
from veramem_desktop.tui.widgets.choice_button import ChoiceButton
from veramem_desktop.tui.widgets.form_input import FormInput

from veramem_desktop.keys import MIN_PASSPHRASE_CHARS, WeakPassphraseError, passphrase_problem

if TYPE_CHECKING:
    from veramem_desktop.memory import Memory

MIN_PASSPHRASE = MIN_PASSPHRASE_CHARS
KEYRING_PROBING = "OS keyring: looking for one…"
KEYRING_FOUND = "OS keyring: unlocks by itself"
KEYRING_NONE = "OS keyring: not available on this system"


def check_passphrase(first: str, second: str) -> str:
    """The passphrase to use, or an InvalidInputError saying what is wrong with it (the strength rule
    is the CLI's and the SDK's: veramem_desktop/keys.py)."""
    problem = passphrase_problem(first)
    if problem is not None:
        raise WeakPassphraseError(problem)
    if first != second:
        raise InvalidInputError("The two passphrases differ. Type the same one twice.")
    return first


class FirstRunScreen(FacadeWorkers, Screen[Any]):
    """Guided init; dismisses with the new open Memory."""

    CSS_PATH = "first_run.tcss"
    BINDINGS: ClassVar[list[BindingType]] = []

    @dataclass
    class KeyringProbed(Message):
        available: bool

    @dataclass
    class Created(Message):
        memory: Memory
        recovery_code: str
        mode: str

    @dataclass
    class DemoLoaded(Message):
        summary: str

    def __init__(self, store_path: str) -> None:
        super().__init__()
        self.store_path = store_path
        self.created: Memory | None = None
        self.creating = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="first-run"):
            yield Static("Welcome to VeraMem", id="first-run-title")
            yield Static(
                f"Your memory will live in one encrypted file on this computer:\n[b]{self.store_path}[/b]",
                id="first-run-intro",
                markup=True,
            )
            with ContentSwitcher(initial="step-key", id="steps"):
                with Vertical(id="step-key"):
                    yield Static("How should the store's key be kept?")
                    with RadioSet(id="key-mode"):
                        yield ChoiceButton(KEYRING_PROBING, id="mode-keyring", disabled=True)
                        yield ChoiceButton(
                            "Passphrase: asked when the app opens", id="mode-passphrase", value=True
                        )
                    with Vertical(id="passphrase-fields"):
                        yield Label(
                            f"Passphrase ({MIN_PASSPHRASE}+ characters), then Enter", classes="field-label"
                        )
                        yield FormInput(password=True, id="passphrase", next_on_enter="#passphrase-again")
                        yield Label(
                            "The same passphrase again, then Enter to create the store", classes="field-label"
                        )
                        yield FormInput(password=True, id="passphrase-again")
                    yield Button("Create the store", id="create", variant="primary")
                    yield Static("", id="create-status")
                with Vertical(id="step-recovery"):
                    yield Static("Recovery code", classes="step-title")
                    yield Static("", id="recovery-code")
                    yield Static(
                        "Write it down and keep it somewhere safe. It is shown only this once. With it you "
                        "can open the store if the keyring or the passphrase is ever lost."
                    )
                    yield Button("I have written it down", id="recovery-done", variant="primary")
                with Vertical(id="step-demo"):
                    yield Static("Your store is ready.", classes="step-title")
                    yield Static(
                        "Load a small set of demo conversations (preferences, facts, a correction, a tool "
                        "claim and a conflict) so there is something to look at? You can forget them later."
                    )
                    with Horizontal(id="demo-buttons"):
                        yield Button("Load the demo", id="demo-yes", variant="primary")
                        yield Button("Start empty", id="demo-no")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#key-mode", RadioSet).can_focus = False  # until the probe finds a keyring to choose
        self.query_one("#passphrase", Input).focus()
        self.probe_keyring()

    # ------------------------------------------------------------ workers
    @work(thread=True, exclusive=True, exit_on_error=False, group="first-run.keyring")
    def probe_keyring(self) -> None:
        self.post_result(self.KeyringProbed(bool(self.vapp.keyring_probe())))

    @work(thread=True, exclusive=True, exit_on_error=False, group="first-run.create")
    def create(self, request: InitRequest) -> None:
        create = self.vapp.create_memory
        if create is None:
            raise InvalidInputError(
                "This app was started without a way to create a store; run `veramem init`."
            )
        memory, new_key = create(request)
        self.post_result(self.Created(memory, new_key.recovery_code, new_key.mode))

    @work(thread=True, exclusive=True, exit_on_error=False, group="first-run.demo")
    def load_demo(self, memory: Memory) -> None:
        self.post_result(self.DemoLoaded(summarise(load_demo_set(memory))))

    # ------------------------------------------------------------ results
    def on_first_run_screen_keyring_probed(self, message: KeyringProbed) -> None:
        keyring = self.query_one("#mode-keyring", ChoiceButton)
        keyring.disabled = not message.available
        keyring.label = KEYRING_FOUND if message.available else KEYRING_NONE
        # With one possible choice the set is not worth a Tab stop: Tab goes field, field, button.
        self.query_one("#key-mode", RadioSet).can_focus = message.available
        untouched = not any(field.value for field in self.query("#passphrase-fields Input").results(Input))
        if message.available and untouched:
            keyring.value = True  # the keyring is the default where there is one (no passphrase to type)

    def on_first_run_screen_created(self, message: Created) -> None:
        self.created = message.memory
        self.query_one("#recovery-code", Static).update(message.recovery_code)
        self.query_one("#steps", ContentSwitcher).current = "step-recovery"
        self.query_one("#recovery-done", Button).focus()

    def on_first_run_screen_demo_loaded(self, message: DemoLoaded) -> None:
        self.notify(message.summary, title="Demo loaded")
        self.dismiss(self.created)

    def worker_failed(self, group: str) -> None:
        self.creating = False
        self.query_one("#create-status", Static).display = False
        for button in self.query(Button):
            button.disabled = False

    # ------------------------------------------------------------ input
    @on(RadioSet.Changed, "#key-mode")
    def _mode_changed(self, event: RadioSet.Changed) -> None:
        use_passphrase = event.pressed.id == "mode-passphrase"
        self.query_one("#passphrase-fields").display = use_passphrase
        if use_passphrase:
            self.query_one("#passphrase", Input).focus()
        else:
            self.query_one("#create", Button).focus()

    @on(Input.Submitted, "#passphrase-again")
    @on(Button.Pressed, "#create")
    def _create(self) -> None:
        if self.creating:
            return  # an Enter typed ahead while the key is being stretched
        use_keyring = self.query_one("#mode-keyring", ChoiceButton).value
        passphrase: str | None = None
        if not use_keyring:
            try:
                passphrase = check_passphrase(
                    self.query_one("#passphrase", Input).value,
                    self.query_one("#passphrase-again", Input).value,
                )
            except InvalidInputError as exc:
                self.notify(exc.message, title=exc.title, severity="warning")
                return
        self.creating = True
        self.query_one("#create", Button).disabled = True
        status = self.query_one("#create-status", Static)
        status.display = True
        status.update(
            "Creating the store…"
            if use_keyring
            else "Creating the store (stretching the passphrase takes a few seconds)…"
        )
        self.create(InitRequest(use_keyring=use_keyring, passphrase=passphrase))

    @on(Button.Pressed, "#recovery-done")
    def _recovery_done(self) -> None:
        self.query_one("#steps", ContentSwitcher).current = "step-demo"
        self.query_one("#demo-yes", Button).focus()

    @on(Button.Pressed, "#demo-yes")
    def _demo_yes(self) -> None:
        if self.created is not None:
            for button in self.query("#demo-buttons Button").results(Button):
                button.disabled = True
            self.query_one("#demo-buttons").loading = True
            self.load_demo(self.created)

    @on(Button.Pressed, "#demo-no")
    def _demo_no(self) -> None:
        self.dismiss(self.created)
