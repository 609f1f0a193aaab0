"""Choosing the LLM backend: detected at init, recorded in the settings, built per process."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .config import Config, save_config

if TYPE_CHECKING:
    from veramem_desktop.core.llm import LLM

    from .memory import Memory
    from .models.llm.settings import LLMSettings


def llm_settings(config: Config) -> LLMSettings:
    """The model layer's settings: environment variables, then what config.toml says."""
    from .models.llm.settings import LLMSettings

    cfg = config.llm
    overrides: dict[str, object] = {
        "timeout": cfg.timeout_s,
        "retries": cfg.retries,
        "context_tokens": cfg.context_tokens,
    }
    if cfg.backend != "auto" and not os.environ.get("VERAMEM_LLM"):
        overrides["backend"] = cfg.backend
    if cfg.host:
        overrides["ollama_host"] = cfg.host
    if cfg.model:
        overrides["ollama_model"] = cfg.model
    if cfg.base_url:
        overrides["openai_base_url"] = cfg.base_url
    return LLMSettings.from_env(None, **overrides)


def describe(config: Config) -> list[dict[str, object]]:
    """What each backend looks like from here (a live probe of Ollama)."""
    from .models.llm.detect import detect_backends

    return [
        {"backend": s.kind, "available": s.available, "detail": s.detail}
        for s in detect_backends(llm_settings(config), timeout=1.0)
    ]


def detect_and_record(mem: Memory) -> str:
    """Find the first reachable backend and record it, so later processes need not probe."""
    statuses = describe(mem.config)
    chosen = next(s for s in statuses if s["available"])
    mem.config.llm.detected = f"{chosen['backend']}: {chosen['detail']}"
    save_config(mem.paths, mem.config)
    return mem.config.llm.detected


def make_llm(config: Config) -> LLM:
    """The backend to use in this process. With no model reachable, the rule-based one."""
    from .models.llm.rule_based import RuleBasedLLM

    settings = llm_settings(config)
    if settings.backend == "rule-based":
        return RuleBasedLLM()
    if settings.backend == "auto" and config.llm.detected.startswith("rule-based"):
        return RuleBasedLLM()
    from .models.llm.detect import choose_backend  # imports the model clients: only when one may be used

    return choose_backend(settings)
