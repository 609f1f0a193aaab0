"""The transport for Anthropic's Messages API.

The API has no JSON-schema output mode here, so the schema goes into the system prompt
and the JSON object is taken from the reply text (fences and leading prose tolerated).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from veramem_desktop.models.llm.errors import MalformedReplyError
from veramem_desktop.models.llm.http_json import post_json
from veramem_desktop.models.llm.jsonreply import extract_json_object
from veramem_desktop.models.llm.settings import DEFAULT_ANTHROPIC_BASE_URL, DEFAULT_ANTHROPIC_MODEL

API_VERSION = "2023-06-01"


class AnthropicTransport:
    """``complete_json`` over ``POST /v1/messages`` (the ``JsonTransport`` protocol)."""

    def __init__(
        self,
        api_key: str,
        model: str = DEFAULT_ANTHROPIC_MODEL,
        *,
        base_url: str = DEFAULT_ANTHROPIC_BASE_URL,
        timeout: float = 60.0,
        max_tokens: int = 4096,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.base_url = base_url.strip().rstrip("/")
        self.model = model
        self.max_tokens = max_tokens
        self._api_key = api_key
        self._client = http_client or httpx.Client(timeout=timeout)

    @property
    def name(self) -> str:
        return f"anthropic:{self.model}"

    def close(self) -> None:
        self._client.close()

    def complete_json(self, system: str, prompt: str, schema: dict[str, Any]) -> dict[str, Any]:
        instruction = (
            f"{system}\n\nWrite only the JSON object, with no text before or after it. "
            f"It must match this JSON schema:\n{json.dumps(schema, ensure_ascii=False)}"
        )
        body = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": 0,
            "system": instruction,
            "messages": [{"role": "user", "content": prompt}],
        }
        headers = {"x-api-key": self._api_key, "anthropic-version": API_VERSION}
        url = f"{self.base_url}/v1/messages"
        payload = post_json(
            self._client, url, body, headers, service="Anthropic", key_hint="ANTHROPIC_API_KEY"
        )
        blocks = payload.get("content")
        if not isinstance(blocks, list):
            raise MalformedReplyError(f"Anthropic at {url} answered without a content list.")
        text = "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
        if payload.get("stop_reason") == "max_tokens" and not text.rstrip().endswith("}"):
            raise MalformedReplyError(
                f"{self.name} stopped at the {self.max_tokens}-token limit before finishing its JSON reply."
            )
        return extract_json_object(text, source=self.name)
