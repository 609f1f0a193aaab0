"""Which LLM backends this machine can use, and building the one to use.

Ollama is probed with a short ``GET /api/tags`` (127.0.0.1:11434 unless configured);
OpenAI-compatible and Anthropic backends count as available when their settings are
present (no network call, no key check). The rule-based backend is always available.
Every model backend is wrapped in :class:`FallbackLLM`, so a failure degrades with a notice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import httpx
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.llm import LLM
from veramem_desktop.models.llm.anthropic import AnthropicTransport
from veramem_desktop.models.llm.fallback import FallbackLLM
from veramem_desktop.models.llm.json_backend import JsonLLM
from veramem_desktop.models.llm.ollama import OllamaTransport
from veramem_desktop.models.llm.openai_compat import OpenAICompatTransport
from veramem_desktop.models.llm.rule_based import RuleBasedLLM
from veramem_desktop.models.llm.settings import (
    DEFAULT_OLLAMA_MODEL,
    DEFAULT_OPENAI_BASE_URL,
    LLMSettings,
)

StatusKind = Literal["ollama", "openai", "anthropic", "rule-based"]
PROBE_TIMEOUT = 0.5  # seconds: a local Ollama answers /api/tags in milliseconds


@dataclass(frozen=True)
class BackendStatus:
    """One backend as found on this machine. ``detail`` is a sentence for ``veramem doctor``."""

    kind: StatusKind
    available: bool
    detail: str
    endpoint: str | None = None
    models: tuple[str, ...] = ()


def probe_ollama(host: str, *, timeout: float = PROBE_TIMEOUT) -> BackendStatus:
    """Ask Ollama at ``host`` which models it has."""
    url = f"{host}/api/tags"
    try:
        response = httpx.get(url, timeout=timeout)
    except httpx.ConnectError:
        return BackendStatus("ollama", False, f"not running at {host} (start it with `ollama serve`)", host)
    except httpx.TimeoutException:
        return BackendStatus("ollama", False, f"no answer from {host} within {timeout:g} s", host)
    except httpx.HTTPError as error:
        return BackendStatus("ollama", False, f"could not reach {host} ({type(error).__name__})", host)
    if response.status_code != 200:
        return BackendStatus(
            "ollama", False, f"{host} answered HTTP {response.status_code} to /api/tags", host
        )
    try:
        payload = response.json()
        models = tuple(str(m.get("model") or m["name"]) for m in payload["models"])
    except (ValueError, KeyError, TypeError, AttributeError):
        return BackendStatus("ollama", False, f"{host} does not answer like an Ollama server", host)
    if not models:
        return BackendStatus(
            "ollama",
            False,
            f"running at {host} with no model (run `ollama pull {DEFAULT_OLLAMA_MODEL}`)",
            host,
        )
    return BackendStatus("ollama", True, f"running at {host} with {len(models)} model(s)", host, models)


def detect_backends(
    settings: LLMSettings | None = None,
    *,
    timeout: float = PROBE_TIMEOUT,
    env: Mapping[str, str] | None = None,
) -> list[BackendStatus]:
    """Ollama, OpenAI-compatible, Anthropic and rule-based, in order of preference."""
    settings = settings or LLMSettings.from_env(env)
    statuses = [probe_ollama(settings.resolved_ollama_host(env), timeout=timeout)]
    base = settings.openai_base_url or DEFAULT_OPENAI_BASE_URL
    if settings.openai_api_key or settings.openai_base_url:
        statuses.append(
            BackendStatus("openai", True, f"configured: {base} (model {settings.openai_model})", base)
        )
    else:
        statuses.append(
            BackendStatus("openai", False, "not configured (set OPENAI_API_KEY or OPENAI_BASE_URL)", base)
        )
    if settings.anthropic_api_key:
        statuses.append(
            BackendStatus(
                "anthropic",
                True,
                f"configured (model {settings.anthropic_model})",
                settings.anthropic_base_url,
            )
        )
    else:
        statuses.append(
            BackendStatus(
                "anthropic", False, "not configured (set ANTHROPIC_API_KEY)", settings.anthropic_base_url
            )
        )
    statuses.append(BackendStatus("rule-based", True, "always available; needs no model"))
    return statuses


def pick_ollama_model(settings: LLMSettings, status: BackendStatus | None) -> str:
    """The configured model, else llama3.2 when installed, else the first installed model."""
    if settings.ollama_model:
        return settings.ollama_model
    installed = status.models if status else ()
    if not installed or any(m in (DEFAULT_OLLAMA_MODEL, f"{DEFAULT_OLLAMA_MODEL}:latest") for m in installed):
        return DEFAULT_OLLAMA_MODEL
    return installed[0]


def choose_backend(
    settings: LLMSettings | None = None,
    statuses: Sequence[BackendStatus] | None = None,
    *,
    env: Mapping[str, str] | None = None,
) -> LLM:
    """The backend ``settings.backend`` names, or with ``auto`` the first available one.

    Model backends come wrapped in :class:`FallbackLLM`; with nothing available the
    result is the :class:`RuleBasedLLM` itself.
    """
    settings = settings or LLMSettings.from_env(env)
    if settings.backend == "rule-based":
        return RuleBasedLLM()
    if statuses is None:
        statuses = detect_backends(settings, env=env)
    by_kind = {s.kind: s for s in statuses}
    kind: str = settings.backend
    if kind == "auto":
        kind = next((s.kind for s in statuses if s.available), "rule-based")
        if kind == "rule-based":
            return RuleBasedLLM()
    return FallbackLLM(
        JsonLLM(
            _transport(kind, settings, by_kind.get("ollama"), env),
            retries=settings.retries,
            context_tokens=settings.context_tokens,
        )
    )


def _transport(
    kind: str, settings: LLMSettings, ollama_status: BackendStatus | None, env: Mapping[str, str] | None
) -> OllamaTransport | OpenAICompatTransport | AnthropicTransport:
    if kind == "ollama":
        return OllamaTransport(
            settings.resolved_ollama_host(env),
            pick_ollama_model(settings, ollama_status),
            timeout=settings.timeout,
        )
    if kind == "openai":
        if not (settings.openai_api_key or settings.openai_base_url):
            raise InvalidInputError(
                "The OpenAI-compatible backend is selected but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set; "
                "set one, or choose another backend."
            )
        return OpenAICompatTransport(
            settings.openai_base_url or DEFAULT_OPENAI_BASE_URL,
            settings.openai_model,
            api_key=settings.openai_api_key,
            timeout=settings.timeout,
        )
    if kind == "anthropic":
        if not settings.anthropic_api_key:
            raise InvalidInputError(
                "The Anthropic backend is selected but ANTHROPIC_API_KEY is not set; set it, or choose another backend."
            )
        return AnthropicTransport(
            settings.anthropic_api_key,
            settings.anthropic_model,
            base_url=settings.anthropic_base_url,
            timeout=settings.timeout,
        )
    raise InvalidInputError(f"Unknown LLM backend {kind!r}; use ollama, openai, anthropic or rule-based.")
