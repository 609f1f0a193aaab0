"""Finding the LLM backends this machine can use, and choosing one."""

from __future__ import annotations

import pytest
from support.fake_ollama import JsonContent, running_fake_ollama
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.models.llm.detect import BackendStatus, choose_backend, detect_backends, probe_ollama
from veramem_desktop.models.llm.fallback import FallbackLLM
from veramem_desktop.models.llm.json_backend import JsonLLM
from veramem_desktop.models.llm.rule_based import RuleBasedLLM
from veramem_desktop.models.llm.settings import LLMSettings, normalise_ollama_host

NO_ENV: dict[str, str] = {}


def closed_port_url() -> str:
    with running_fake_ollama() as server:
        url = server.url
    return url  # stopped: nothing listens there now


def kinds(statuses: list[BackendStatus]) -> dict[str, BackendStatus]:
    return {s.kind: s for s in statuses}


def test_a_running_ollama_is_found_with_its_models() -> None:
    with running_fake_ollama(models=["llama3.2:latest", "qwen2.5:3b"]) as server:
        status = probe_ollama(server.url)
        assert server.requests[-1].path == "/api/tags"
    assert status.available and status.models == ("llama3.2:latest", "qwen2.5:3b")
    assert status.endpoint == server.url


def test_an_ollama_that_is_not_running_is_reported_with_how_to_start_it() -> None:
    status = probe_ollama(closed_port_url())
    assert not status.available and "ollama serve" in status.detail


def test_an_ollama_without_models_is_not_usable_and_says_what_to_pull() -> None:
    with running_fake_ollama(models=[]) as server:
        status = probe_ollama(server.url)
    assert not status.available and "ollama pull llama3.2" in status.detail


def test_hosted_backends_count_as_available_when_their_settings_are_present() -> None:
    settings = LLMSettings(ollama_host=closed_port_url(), openai_api_key="sk-x", anthropic_api_key=None)
    found = kinds(detect_backends(settings, env=NO_ENV))
    assert list(found) == ["ollama", "openai", "anthropic", "rule-based"]
    assert found["openai"].available and not found["anthropic"].available and found["rule-based"].available
    assert "ANTHROPIC_API_KEY" in found["anthropic"].detail


def test_auto_chooses_ollama_when_it_runs_and_wraps_it_in_the_fallback() -> None:
    with running_fake_ollama() as server:
        llm = choose_backend(LLMSettings(ollama_host=server.url), env=NO_ENV)
        assert (
            isinstance(llm, FallbackLLM) and llm.capabilities.name == "ollama:llama3.2 (rule-based fallback)"
        )
        server.script(JsonContent({"summary": "from ollama"}))
        assert llm.summarise(["x"]).value == "from ollama"


def test_auto_takes_the_first_installed_model_when_llama32_is_missing() -> None:
    with running_fake_ollama(models=["qwen2.5:3b"]) as server:
        llm = choose_backend(LLMSettings(ollama_host=server.url), env=NO_ENV)
    assert llm.capabilities.name.startswith("ollama:qwen2.5:3b ")


def test_a_configured_model_is_used_as_given() -> None:
    with running_fake_ollama(models=["qwen2.5:3b"]) as server:
        llm = choose_backend(LLMSettings(ollama_host=server.url, ollama_model="mistral"), env=NO_ENV)
    assert llm.capabilities.name.startswith("ollama:mistral ")


def test_auto_falls_to_a_configured_hosted_backend_then_to_rules() -> None:
    down = closed_port_url()
    assert choose_backend(
        LLMSettings(ollama_host=down, anthropic_api_key="k"), env=NO_ENV
    ).capabilities.name == ("anthropic:claude-3-5-haiku-latest (rule-based fallback)")
    assert isinstance(choose_backend(LLMSettings(ollama_host=down), env=NO_ENV), RuleBasedLLM)


def test_an_explicit_ollama_choice_is_kept_even_when_it_is_down_so_notices_explain_it() -> None:
    llm = choose_backend(LLMSettings(backend="ollama", ollama_host=closed_port_url()), env=NO_ENV)
    assert isinstance(llm, FallbackLLM) and isinstance(llm.primary, JsonLLM)
    reply = llm.summarise(["User lives in Berlin."])
    assert reply.value == "User lives in Berlin."
    assert "refused the connection" in reply.notices[0].message


def test_an_explicit_hosted_choice_without_its_settings_is_a_clear_error() -> None:
    with pytest.raises(InvalidInputError, match="OPENAI_API_KEY"):
        choose_backend(LLMSettings(backend="openai"), statuses=[], env=NO_ENV)
    with pytest.raises(InvalidInputError, match="ANTHROPIC_API_KEY"):
        choose_backend(LLMSettings(backend="anthropic"), statuses=[], env=NO_ENV)


def test_rule_based_is_chosen_without_probing_anything() -> None:
    assert isinstance(choose_backend(LLMSettings(backend="rule-based"), env=NO_ENV), RuleBasedLLM)


# --- settings ---------------------------------------------------------------------------------


def test_settings_come_from_the_environment() -> None:
    env = {
        "VERAMEM_LLM": "Ollama",
        "OLLAMA_HOST": "10.0.0.5",
        "VERAMEM_OLLAMA_MODEL": "qwen2.5:3b",
        "OPENAI_API_KEY": "sk-secret",
        "VERAMEM_LLM_TIMEOUT": "12.5",
    }
    settings = LLMSettings.from_env(env)
    assert (settings.backend, settings.ollama_model, settings.timeout) == ("ollama", "qwen2.5:3b", 12.5)
    assert settings.resolved_ollama_host(env) == "http://10.0.0.5:11434"
    assert "sk-secret" not in repr(settings)


@pytest.mark.parametrize(
    ("env", "said"), [({"VERAMEM_LLM": "gpt"}, "VERAMEM_LLM"), ({"VERAMEM_LLM_TIMEOUT": "soon"}, "seconds")]
)
def test_bad_settings_are_refused_with_what_to_use(env: dict[str, str], said: str) -> None:
    with pytest.raises(InvalidInputError, match=said):
        LLMSettings.from_env(env)


def test_the_default_ollama_host_is_loopback() -> None:
    assert LLMSettings().resolved_ollama_host(NO_ENV) == "http://127.0.0.1:11434"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("localhost", "http://localhost:11434"),
        (":8080", "http://127.0.0.1:8080"),
        ("http://10.0.0.5", "http://10.0.0.5:80"),
        ("https://ollama.example", "https://ollama.example:443"),
        ("http://127.0.0.1:11434/", "http://127.0.0.1:11434"),
        ("[::1]:9000", "http://[::1]:9000"),
        ("[::1]", "http://[::1]:11434"),
    ],
)
def test_ollama_hosts_are_completed_like_the_official_client_does(given: str, expected: str) -> None:
    assert normalise_ollama_host(given) == expected
