"""LLM backends behind the engine's task-level ``LLM`` protocol.

- :class:`RuleBasedLLM` needs nothing and is deterministic.
- :class:`JsonLLM` runs every task on a JSON transport: :class:`OllamaTransport`,
  :class:`OpenAICompatTransport` or :class:`AnthropicTransport`.
- :class:`FallbackLLM` wraps a model backend so failures degrade to the rule-based
  result with a notice.
- :func:`detect_backends` and :func:`choose_backend` find and build the one to use.

Transports and detection import ``httpx``/``ollama``; they are loaded on first use so
that importing the rule-based backend stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from veramem_desktop.models.llm.errors import BackendUnavailableError, MalformedReplyError
from veramem_desktop.models.llm.fallback import FallbackLLM
from veramem_desktop.models.llm.json_backend import JsonLLM, JsonTransport
from veramem_desktop.models.llm.rule_based import RuleBasedLLM
from veramem_desktop.models.llm.settings import LLMSettings

if TYPE_CHECKING:
    from veramem_desktop.models.llm.anthropic import AnthropicTransport
    from veramem_desktop.models.llm.detect import BackendStatus, choose_backend, detect_backends
    from veramem_desktop.models.llm.ollama import OllamaTransport
    from veramem_desktop.models.llm.openai_compat import OpenAICompatTransport

_LAZY = {
    "AnthropicTransport": "anthropic",
    "OllamaTransport": "ollama",
    "OpenAICompatTransport": "openai_compat",
    "BackendStatus": "detect",
    "choose_backend": "detect",
    "detect_backends": "detect",
}

__all__ = [
    "AnthropicTransport",
    "BackendStatus",
    "BackendUnavailableError",
    "FallbackLLM",
    "JsonLLM",
    "JsonTransport",
    "LLMSettings",
    "MalformedReplyError",
    "OllamaTransport",
    "OpenAICompatTransport",
    "RuleBasedLLM",
    "choose_backend",
    "detect_backends",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
