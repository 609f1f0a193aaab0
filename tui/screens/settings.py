"""Settings: the LLM backend, the embedder, and where the store and its settings live."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static
from veramem_desktop.tui.screens.base import SectionScreen
from veramem_desktop.tui.widgets.field_table import FieldTable


def _size(n: int | None) -> str:
    if n is None:
        return ""
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n = n / 1024  # type: ignore[assignment]
    return str(n)


def model_rows(memory: Any, llm_name: str | None, embedder_name: str | None) -> list[tuple[str, str]]:
    config = memory.config
    llm = config.llm
    detail = llm.model if llm.backend in ("auto", "ollama", "openai", "anthropic") else ""
    return [
        ("LLM backend", f"{llm.backend}" + (f" ({detail})" if detail else "")),
        ("LLM in use", llm_name or "…"),
        ("Embedder", embedder_name or "…"),
        ("Embedder model", config.embedder.model_path or "bundled all-MiniLM-L6-v2 (int8 ONNX)"),
        (
            "Identity",
            f"user {config.identity.user_id}"
            + (f", agent {config.identity.agent_id}" if config.identity.agent_id else ""),
        ),
    ]


def store_rows(memory: Any, status: dict[str, Any]) -> list[tuple[str, str]]:
    counts = status.get("counts", {})
    return [
        ("Store", str(status.get("store", ""))),
        ("Settings file", str(memory.paths.config_file)),
        ("Key kept in", str(status.get("key", ""))),
        ("Size", _size(status.get("size_bytes"))),
        (
            "Holds",
            f"{counts.get('episodes', 0)} episodes, {counts.get('active_memories', 0)} active memories, "
            f"{counts.get('ledger', 0)} ledger entries",
        ),
    ]


class SettingsScreen(SectionScreen):
    """What is configured; `veramem config set …` (or the settings file) changes it."""

    SECTION = "settings"
    CSS_PATH = "settings.tcss"

    @dataclass
    class StatusLoaded(Message):
        status: dict[str, Any]

    @dataclass
    class ModelsLoaded(Message):
        llm_name: str | None
        embedder_name: str | None

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="settings"):
            yield Static("Models", classes="section-title")
            yield FieldTable(id="settings-models")
            yield Static("Store", classes="section-title")
            yield FieldTable(id="settings-store")
            yield Static(
                "To change a setting, run `veramem config set NAME VALUE` (`veramem config` lists them) "
                "or edit the settings file above, then reopen the app. ctrl+t switches between the dark "
                "and the light theme.",
                id="settings-hint",
            )

    def refresh_data(self) -> None:
        self.query_one("#settings-models", FieldTable).show(model_rows(self.memory, None, None))
        self.query_one("#settings-store").loading = True
        self.load_status()
        self.load_models()

    @work(thread=True, exclusive=True, exit_on_error=False, group="settings.status")
    def load_status(self) -> None:
        self.post_result(self.StatusLoaded(self.memory.status()))

    @work(thread=True, exclusive=True, exit_on_error=False, group="settings.models")
    def load_models(self) -> None:
        memory = self.memory
        self.post_result(
            self.ModelsLoaded(getattr(memory, "llm_name", None), getattr(memory, "embedder_name", None))
        )

    def on_settings_screen_status_loaded(self, message: StatusLoaded) -> None:
        table = self.query_one("#settings-store", FieldTable)
        table.show(store_rows(self.memory, message.status))
        table.loading = False

    def on_settings_screen_models_loaded(self, message: ModelsLoaded) -> None:
        self.query_one("#settings-models", FieldTable).show(
            model_rows(
                self.memory,
                message.llm_name or "not reported yet",
                message.embedder_name or "not reported yet",
            )
        )
