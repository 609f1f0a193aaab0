"""First-run work shared by `veramem init` and the TUI's guided init."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .config import save_config

if TYPE_CHECKING:
    from .memory import Memory


def detect_and_record(mem: Memory) -> str:
    """Find which LLM backend is reachable and record it in the settings."""
    try:
        from .models.llm.detect import describe_choice
    except ImportError:
        mem.config.llm.detected = "rule-based"
        save_config(mem.paths, mem.config)
        return "rule-based (no LLM backends installed)"
    detected = describe_choice(mem.config.llm)
    mem.config.llm.detected = detected
    save_config(mem.paths, mem.config)
    return detected
