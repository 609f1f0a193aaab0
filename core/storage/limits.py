"""Input limits: what an add accepts, checked here for every surface (CLI, SDK, REST, MCP).

Each check raises :class:`InvalidInputError` (exit code 9, HTTP 422) with a message that
names the message and the field at fault, and never echoes more than a few characters of
the value (it may be private text). The limits, documented in the README under "Input
limits":

- a JSON payload nests at most ``MAX_JSON_DEPTH`` levels (a message list is 2: the list
  and the message; metadata may use the rest);
- one add holds at most ``MAX_MESSAGES`` messages, each at most ``MAX_MESSAGE_CHARS``
  characters of text; the CLI reads at most ``MAX_INPUT_BYTES`` and REST bodies are
  limited to ``MAX_REQUEST_BYTES``;
- ``content`` is non-empty text; ``role`` one of the roles; ``name`` text of at most
  ``MAX_NAME_CHARS`` characters on one line; ``time`` an ISO 8601 text (or a datetime)
  between ``EARLIEST`` and ``LATEST``; ``metadata`` a JSON object of at most
  ``MAX_METADATA_BYTES``; user, agent, team and session ids text of at most
  ``MAX_ID_CHARS`` characters on one line;
- every text must be valid Unicode: an unpaired surrogate in ``content`` is replaced by
  U+FFFD (and the add says so), anywhere else it is refused.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.core.storage.ids import parse_iso

MAX_JSON_DEPTH = 32
MAX_MESSAGES = 10_000
MAX_MESSAGE_CHARS = 20_000_000
MAX_INPUT_BYTES = 64 * 1024 * 1024
MAX_REQUEST_BYTES = 20 * 1024 * 1024
MAX_NAME_CHARS = 200
MAX_ID_CHARS = 200
MAX_TIME_CHARS = 64
MAX_METADATA_BYTES = 64 * 1024
#: Message times: four-digit years keep the stored times in string order, and the margin
#: leaves room for the dates a message's words resolve to ("next year", "in a decade").
EARLIEST = datetime(1000, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)

#: control characters (C0, DEL, C1) and the Unicode line and paragraph separators
_NOT_ON_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


def _kind(value: Any) -> str:
    """A value's JSON kind, for messages (never the value itself)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


# ------------------------------------------------------------------ JSON shape
def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when the JSON ``text`` nests deeper than ``limit`` (checked before parsing it,
    so a hostile document cannot exhaust the parser's stack)."""
    depth = 0
    for m in _BRACKETS.finditer(_JSON_STRING.sub('""', text)):
        if m.group() in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def parse_json(text: str, where: str) -> Any:
    """Parse JSON from a person or agent within the depth limit; any failure is invalid input."""
    if json_depth_exceeds(text):
        raise InvalidInputError(f"{where} nests deeper than {MAX_JSON_DEPTH} levels; flatten it.")
    try:
        return json.loads(text)
    except RecursionError:
        raise InvalidInputError(f"{where} nests too deeply to read; flatten it.") from None
    except ValueError as exc:
        detail = f" ({exc.msg} at line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) else ""
        raise InvalidInputError(f"{where} is not valid JSON{detail}. Fix it, or pass plain text.") from None


def check_json_value(value: Any, where: str, *, depth: int = 1) -> None:
    """A JSON value (str, finite number, bool, null, list, object with text keys) of valid
    Unicode, nested at most ``MAX_JSON_DEPTH - depth + 1`` levels. Walks without recursion."""
    stack: list[tuple[Any, int]] = [(value, depth)]
    while stack:
        node, level = stack.pop()
        if level > MAX_JSON_DEPTH:
            raise InvalidInputError(f"{where} nests deeper than {MAX_JSON_DEPTH} levels; flatten it.")
        # the scalars that need no check, in the order (and with the tests) the walk always made them
        if node is None or isinstance(node, (bool, int)) or (isinstance(node, float) and math.isfinite(node)):
            continue
        if isinstance(node, str):
            _check_unicode(node, where)
        elif isinstance(node, Mapping):
            for key, child in node.items():
                if not isinstance(key, str):
                    raise InvalidInputError(f"{where} has a key that is {_kind(key)}; keys must be text.")
                _check_unicode(key, where)
                stack.append((child, level + 1))
        elif isinstance(node, (list, tuple)):
            stack.extend((child, level + 1) for child in node)
        else:
            raise InvalidInputError(_not_json_problem(node, where))


def _not_json_problem(node: Any, where: str) -> str:
    """Why ``node`` is no JSON value: a number that is not finite, or a type JSON does not have."""
    if isinstance(node, float):
        return f"{where} holds a number that is not finite (NaN or infinity)."
    return f"{where} holds {_kind(node)}, which is not a JSON value."


def _check_unicode(text: str, where: str) -> None:
    if _SURROGATE.search(text):
        raise InvalidInputError(f"{where} is not valid Unicode text: it holds an unpaired surrogate.")


# ------------------------------------------------------------------ fields
def check_line(value: Any, field: str, where: str, *, limit: int) -> str | None:
    """Optional one-line text (a name or an id): text, valid Unicode, no control characters."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInputError(f"{where}: {field} must be text, not {_kind(value)}.")
    if len(value) > limit:
        raise InvalidInputError(f"{where}: {field} is {len(value):,} characters; the limit is {limit:,}.")
    _check_unicode(value, f"{where}: {field}")
    if _NOT_ON_ONE_LINE.search(value):
        raise InvalidInputError(
            f"{where}: {field} holds a control character or line break; it must be one line."
        )
    return value


def check_time(value: Any, where: str) -> datetime | None:
    """A message time: None (now), a datetime, or ISO 8601 text, between EARLIEST and LATEST."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    elif isinstance(value, str):
        if len(value) > MAX_TIME_CHARS:
            raise InvalidInputError(f"{where}: time is {len(value):,} characters; give an ISO 8601 time.")
        _check_unicode(value, f"{where}: time")
        try:
            moment = parse_iso(value)
        except (ValueError, OverflowError):
            raise InvalidInputError(
                f"{where}: could not read the time {value[:40]!r}. Use ISO 8601, e.g. 2024-05-08T13:56:00Z."
            ) from None
    else:
        raise InvalidInputError(f"{where}: time must be ISO 8601 text, not {_kind(value)}.")
    try:
        in_range = EARLIEST <= moment < LATEST
    except (OverflowError, ValueError):
        in_range = False
    if not in_range:
        raise InvalidInputError(
            f"{where}: the time {value!s:.40} is outside the supported range "
            f"({EARLIEST.year} to {LATEST.year - 1}); check the year."
        )
    return moment


def check_metadata(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"{where}: metadata must be an object, not {_kind(value)}.")
    check_json_value(value, f"{where}: metadata", depth=3)  # inside a list and a message
    try:
        size = len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
    except (ValueError, TypeError):
        raise InvalidInputError(f"{where}: metadata cannot be written as JSON.") from None
    if size > MAX_METADATA_BYTES:
        raise InvalidInputError(f"{where}: metadata is {size:,} bytes; the limit is {MAX_METADATA_BYTES:,}.")
    return dict(value)


def check_content(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(f"{where}: content must be text, not {_kind(value)}.")
    if len(value) > MAX_MESSAGE_CHARS:
        raise InvalidInputError(
            f"{where} is {len(value):,} characters; the limit is {MAX_MESSAGE_CHARS:,}. "
            "Split it (e.g. add it as a document with --file, which is chunked)."
        )
    if not value.strip():
        raise InvalidInputError(f"{where} is empty.")
    return value


def check_role(value: Any, where: str, roles: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in roles:
        shown = repr(value[:20]) if isinstance(value, str) else _kind(value)
        raise InvalidInputError(f"{where}: role {shown} is not one of {', '.join(roles)}.")
    return value


def check_count(count: int) -> None:
    if count == 0:
        raise InvalidInputError("Nothing to add: give at least one message.")
    if count > MAX_MESSAGES:
        raise InvalidInputError(
            f"{count:,} messages in one add; the limit is {MAX_MESSAGES:,}. Add them in parts."
        )


def check_scope(**ids: Any) -> None:
    """User, agent, team and session ids: optional one-line text."""
    for field, value in ids.items():
        check_line(value, field.replace("_", " "), "The add", limit=MAX_ID_CHARS)


def check_size(data: bytes | str, where: str, limit: int = MAX_INPUT_BYTES) -> None:
    if len(data) > limit:
        raise InvalidInputError(f"{where} is {len(data):,} bytes; the limit is {limit:,}. Split it.")
