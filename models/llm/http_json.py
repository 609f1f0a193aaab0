"""One JSON POST to a hosted model API, with every failure turned into a ``ModelError``.

Shared by the OpenAI-compatible and Anthropic transports. Messages name the service, the
URL and the HTTP status and say what to do; they never include the API key or the prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx
from veramem_desktop.models.llm.errors import BackendUnavailableError, MalformedReplyError

_FALLBACK_HINT = "or switch to the rule-based backend"


def post_json(
    client: httpx.Client,
    url: str,
    body: Mapping[str, Any],
    headers: Mapping[str, str],
    *,
    service: str,
    key_hint: str,
) -> dict[str, Any]:
    """POST ``body`` and return the decoded JSON object of a 2xx response."""
    try:
        response = client.post(url, json=dict(body), headers=dict(headers))
    except httpx.ConnectError:
        raise BackendUnavailableError(
            f"{service} at {url} refused the connection or could not be found; check the base URL "
            f"and that the server is running, {_FALLBACK_HINT}."
        ) from None
    except httpx.TimeoutException:
        timeout = client.timeout.read
        raise BackendUnavailableError(
            f"{service} at {url} did not answer within {timeout if timeout is not None else '?'} s; "
            f"raise the timeout, use a smaller model {_FALLBACK_HINT}."
        ) from None
    except httpx.HTTPError as error:
        raise BackendUnavailableError(
            f"The connection to {service} at {url} failed ({type(error).__name__}); {_FALLBACK_HINT}."
        ) from None
    if response.status_code >= 400:
        raise _status_error(response, url, service=service, key_hint=key_hint)
    try:
        payload = response.json()
    except ValueError:
        payload = None
    if not isinstance(payload, dict):
        raise MalformedReplyError(f"{service} at {url} answered with a body that is not a JSON object.")
    return payload


def _error_detail(response: httpx.Response) -> str:
    """The API's own error message when it gave one (both APIs nest it under "error")."""
    try:
        payload = response.json()
    except ValueError:
        return response.text[:200]
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error.get("type") or "")[:200]
    return str(error or "")[:200]


def _status_error(
    response: httpx.Response, url: str, *, service: str, key_hint: str
) -> BackendUnavailableError:
    code, detail = response.status_code, _error_detail(response)
    said = f" ({detail})" if detail else ""
    if code in (401, 403):
        return BackendUnavailableError(
            f"{service} at {url} refused the API key (HTTP {code}){said}; check {key_hint}."
        )
    if code == 404:
        return BackendUnavailableError(
            f"{service} at {url} answered HTTP 404{said}; check the base URL and the model name."
        )
    if code == 429 or code == 529:
        return BackendUnavailableError(
            f"{service} at {url} is rate-limiting or overloaded (HTTP {code}){said}; wait and try again "
            f"{_FALLBACK_HINT}."
        )
    if code >= 500:
        return BackendUnavailableError(
            f"{service} at {url} failed with HTTP {code}{said}; try again later {_FALLBACK_HINT}."
        )
    return BackendUnavailableError(
        f"{service} at {url} rejected the request with HTTP {code}{said}; the server may not support "
        f"the request format, {_FALLBACK_HINT}."
    )
