"""Find the JSON object in a model's reply text.

Models asked for JSON sometimes wrap it in a ```json fence or put a sentence before it.
The first JSON object found is taken; anything else is a :class:`MalformedReplyError`.
Error messages give sizes, never the reply itself, because replies quote memories.
"""

from __future__ import annotations

import json
import re
from typing import Any

from veramem_desktop.models.llm.errors import MalformedReplyError

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def extract_json_object(text: str, *, source: str = "the model") -> dict[str, Any]:
    """Return the first JSON object in ``text``; raise ``MalformedReplyError`` if there is none."""
    stripped = text.strip()
    if not stripped:
        raise MalformedReplyError(f"{source} returned an empty reply where a JSON object was expected.")
    candidates = [stripped] + [m.group(1).strip() for m in _FENCE.finditer(stripped)]
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    decoder = json.JSONDecoder()
    for m in re.finditer(r"\{", stripped):
        try:
            value, _end = decoder.raw_decode(stripped, m.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    raise MalformedReplyError(
        f"{source} returned {len(stripped)} characters that contain no JSON object; "
        "the model may be too small to follow the output format, try another model "
        "or the rule-based backend."
    )
