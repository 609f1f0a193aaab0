"""The Ollama transport, through the official ``ollama`` Python client.

Each request is one non-streaming ``/api/chat`` call with the reply's JSON schema as
``format`` (Ollama constrains decoding to it) and temperature 0. Every way it can fail
becomes a ``ModelError`` whose message says what happened and what to do about it.
"""

from __future__ import annotations

from typing import Any

import httpx
import ollama
from veramem_desktop.models.llm.errors import BackendUnavailableError, MalformedReplyError
from veramem_desktop.models.llm.jsonreply import extract_json_object
from veramem_desktop.models.llm.settings import DEFAULT_OLLAMA_MODEL, normalise_ollama_host

_FALLBACK_HINT = "or switch to the rule-based backend"


class OllamaTransport:
    """``complete_json`` over Ollama's chat API (the ``JsonTransport`` protocol)."""

    def __init__(self, host: str, model: str = DEFAULT_OLLAMA_MODEL, *, timeout: float = 60.0) -> None:
        self.host = normalise_ollama_host(host)
        self.model = model
        self.timeout = timeout
        self._client = ollama.Client(host=self.host, timeout=timeout)

    @property
    def name(self) -> str:
        return f"ollama:{self.model}"

    def close(self) -> None:
        self._client.close()  # type: ignore[no-untyped-call]  # ollama's Client.close is not annotated

    def complete_json(self, system: str, prompt: str, schema: dict[str, Any]) -> dict[str, Any]:
        where = f"Ollama at {self.host}"
        try:
            response = self._client.chat(
                model=self.model,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": prompt}],
                format=schema,
                options={"temperature": 0},
                stream=False,
            )
        except ConnectionError:  # the client's translation of httpx.ConnectError
            raise BackendUnavailableError(
                f"{where} refused the connection; start it with `ollama serve` {_FALLBACK_HINT}."
            ) from None
        except httpx.TimeoutException:
            raise BackendUnavailableError(
                f"{where} did not answer within {self.timeout:g} s (model {self.model}). The first request "
                f"loads the model and can be slow: raise the timeout, use a smaller model {_FALLBACK_HINT}."
            ) from None
        except ollama.ResponseError as error:
            raise self._status_error(error) from None
        except httpx.HTTPError as error:
            raise BackendUnavailableError(
                f"The connection to {where} failed ({type(error).__name__}); check that `ollama serve` "
                f"is running {_FALLBACK_HINT}."
            ) from None
        except ValueError:  # the body was not JSON, or not shaped like a chat response
            raise MalformedReplyError(
                f"{where} sent a response that is not an Ollama chat reply; check that {self.host} is an "
                "Ollama server and that the client and server versions match."
            ) from None
        content = response.message.content
        if content is None:
            raise MalformedReplyError(f"{where} sent a chat reply without content (model {self.model}).")
        return extract_json_object(content, source=f"{where} (model {self.model})")

    def _status_error(self, error: ollama.ResponseError) -> BackendUnavailableError:
        where = f"Ollama at {self.host}"
        detail = str(error.error)[:200]
        if error.status_code == 404:
            return BackendUnavailableError(
                f"{where} does not have the model {self.model!r}; run `ollama pull {self.model}` "
                f"or choose an installed model ({detail})."
            )
        if error.status_code >= 500:
            return BackendUnavailableError(
                f"{where} failed with HTTP {error.status_code} ({detail}). Check the `ollama serve` log; "
                f"the model may not fit in memory. Try a smaller model {_FALLBACK_HINT}."
            )
        return BackendUnavailableError(
            f"{where} rejected the request with HTTP {error.status_code} ({detail}); "
            f"update Ollama {_FALLBACK_HINT}."
        )
