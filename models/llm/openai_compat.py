"""The transport for OpenAI-compatible chat endpoints (OpenAI, vLLM, llama.cpp, LM Studio…).

One ``POST {base_url}/chat/completions`` per request, with the reply schema as
``response_format`` ``json_schema`` and temperature 0. The API key is optional so local
servers without one work.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx
from veramem_desktop.models.llm.errors import MalformedReplyError
from veramem_desktop.models.llm.http_json import post_json
from veramem_desktop.models.llm.jsonreply import extract_json_object
from veramem_desktop.models.llm.settings import DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL


class OpenAICompatTransport:
    """``complete_json`` over ``/v1/chat/completions`` (the ``JsonTransport`` protocol)."""

    def __init__(
        self,
        base_url: str = DEFAULT_OPENAI_BASE_URL,
        model: str = DEFAULT_OPENAI_MODEL,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        http_client: httpx.Client | None = None,
    ) -> None:
        base = base_url.strip().rstrip("/")
        if not urlsplit(base).path:
            base += "/v1"  # "http://localhost:8000" means the usual /v1 prefix
        self.base_url = base
        self.model = model
        self._api_key = api_key
        self._client = http_client or httpx.Client(timeout=timeout)

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    def close(self) -> None:
        self._client.close()

    def complete_json(self, system: str, prompt: str, schema: dict[str, Any]) -> dict[str, Any]:
        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
            "temperature": 0,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": schema, "strict": False},
            },
        }
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        url = f"{self.base_url}/chat/completions"
        payload = post_json(
            self._client,
            url,
            body,
            headers,
            service="The OpenAI-compatible endpoint",
            key_hint="OPENAI_API_KEY",
        )
        try:
            message = payload["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            raise MalformedReplyError(f"The endpoint at {url} answered without choices[0].message.") from None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            refused = isinstance(message, dict) and message.get("refusal")
            raise MalformedReplyError(
                f"The model {self.model} at {url} {'refused the request' if refused else 'returned no text content'}."
            )
        return extract_json_object(content, source=f"{self.name} at {self.base_url}")
