"""Which LLM backend to use and how to reach it.

The shell's configuration maps onto :class:`LLMSettings`; :meth:`LLMSettings.from_env`
fills what the configuration leaves open from the usual environment variables:

- ``VERAMEM_LLM``: ``auto`` (default), ``ollama``, ``openai``, ``anthropic`` or ``rule-based``
- ``OLLAMA_HOST``, ``VERAMEM_OLLAMA_MODEL``
- ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``VERAMEM_OPENAI_MODEL``
- ``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``, ``VERAMEM_ANTHROPIC_MODEL``
- ``VERAMEM_LLM_TIMEOUT`` (seconds per request)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.llm import DEFAULT_CONTEXT_TOKENS

BackendKind = Literal["auto", "ollama", "openai", "anthropic", "rule-based"]
BACKEND_KINDS: tuple[BackendKind, ...] = ("auto", "ollama", "openai", "anthropic", "rule-based")

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
DEFAULT_OLLAMA_MODEL = "llama3.2"
DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"
DEFAULT_ANTHROPIC_MODEL = "claude-3-5-haiku-latest"


@dataclass(frozen=True)
class LLMSettings:
    """Everything needed to build an LLM backend. API keys are kept out of ``repr``."""

    backend: BackendKind = "auto"
    timeout: float = 60.0  # seconds for one model request
    retries: int = 1  # extra attempts after an unusable reply
    context_tokens: int = DEFAULT_CONTEXT_TOKENS  # a session's earlier turns given to extraction
    ollama_host: str | None = None  # None: OLLAMA_HOST, else 127.0.0.1:11434
    ollama_model: str | None = None  # None: llama3.2 if installed, else the first installed model
    openai_base_url: str | None = None
    openai_api_key: str | None = field(default=None, repr=False)
    openai_model: str = DEFAULT_OPENAI_MODEL
    anthropic_api_key: str | None = field(default=None, repr=False)
    anthropic_base_url: str = DEFAULT_ANTHROPIC_BASE_URL
    anthropic_model: str = DEFAULT_ANTHROPIC_MODEL

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> LLMSettings:
        """Settings from environment variables, then ``overrides`` (values that are not None)."""
        env = os.environ if env is None else env
        backend = env.get("VERAMEM_LLM", "auto").strip().lower() or "auto"
        if backend not in BACKEND_KINDS:
            raise InvalidInputError(f"VERAMEM_LLM is {backend!r}; use one of {', '.join(BACKEND_KINDS)}.")
        timeout_raw = env.get("VERAMEM_LLM_TIMEOUT", "60")
        try:
            timeout = float(timeout_raw)
        except ValueError:
            raise InvalidInputError(
                f"VERAMEM_LLM_TIMEOUT is {timeout_raw!r}; give a number of seconds."
            ) from None
        values: dict[str, object] = {
            "backend": backend,
            "timeout": timeout,
            "ollama_host": env.get("OLLAMA_HOST") or None,
            "ollama_model": env.get("VERAMEM_OLLAMA_MODEL") or None,
            "openai_base_url": env.get("OPENAI_BASE_URL") or None,
            "openai_api_key": env.get("OPENAI_API_KEY") or None,
            "openai_model": env.get("VERAMEM_OPENAI_MODEL") or DEFAULT_OPENAI_MODEL,
            "anthropic_api_key": env.get("ANTHROPIC_API_KEY") or None,
            "anthropic_base_url": env.get("ANTHROPIC_BASE_URL") or DEFAULT_ANTHROPIC_BASE_URL,
            "anthropic_model": env.get("VERAMEM_ANTHROPIC_MODEL") or DEFAULT_ANTHROPIC_MODEL,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]

    def resolved_ollama_host(self, env: Mapping[str, str] | None = None) -> str:
        """The Ollama base URL with scheme and port: settings, then OLLAMA_HOST, then 127.0.0.1:11434."""
        env = os.environ if env is None else env
        return normalise_ollama_host(self.ollama_host or env.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST)


def normalise_ollama_host(host: str) -> str:
    """``localhost`` -> ``http://localhost:11434``; ``:8080`` -> ``http://127.0.0.1:8080``."""
    host = host.strip().rstrip("/")
    scheme, sep, rest = host.partition("://")
    if not sep:
        scheme, rest = "http", host
    hostport, slash, path = rest.partition("/")
    if hostport.startswith(":"):
        hostport = "127.0.0.1" + hostport
    has_port = hostport.rsplit("]", 1)[-1].count(":") == 1 if hostport.startswith("[") else ":" in hostport
    if not has_port:
        default_port = {"http": 11434 if not sep else 80, "https": 443}.get(scheme, 11434)
        hostport = f"{hostport}:{default_port}"
    return f"{scheme}://{hostport}{slash}{path}"
