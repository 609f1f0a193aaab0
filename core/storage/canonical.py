"""Canonical JSON, hashing and keyed commitments (pure functions)."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from typing import Any

# One encoder for every call (json.dumps with these options builds a new one each time); it keeps no state.
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
# The C encoder that _CANONICAL.encode builds on every call, with the same arguments in the same order
# (json.encoder.JSONEncoder.iterencode); called directly it skips the Python set-up around it, about
# a quarter of the time of encoding a ledger entry. None where the json module has no C speedups.
_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)


def canonical_json(value: Any) -> bytes:
    """Deterministic JSON: sorted keys, no spaces, UTF-8, no NaN."""
    if isinstance(value, str):
        return _CANONICAL.encode(value).encode("utf-8")
    return _c_encode(_CANONICAL, value).encode("utf-8")


def _c_encode(template: json.JSONEncoder, value: Any) -> str:
    """``template.encode(value)`` for a container, by json's C encoder called directly (without the
    Python set-up ``encode`` runs per call); the same text and the same errors."""
    if _C_ENCODER is None:
        return template.encode(value)
    encode = _C_ENCODER(
        {},  # a fresh markers dict per call, as encode builds it: circular references still raise
        template.default,
        json.encoder.encode_basestring_ascii if template.ensure_ascii else json.encoder.encode_basestring,
        None,  # no indent
        template.key_separator,
        template.item_separator,
        template.sort_keys,
        template.skipkeys,
        template.allow_nan,
    )
    return "".join(encode(value, 0))


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_sha256(text: str) -> str:
    return sha256_hex(text.encode("utf-8", "surrogatepass"))


Encoder = Callable[[Any], bytes]
"""``canonical_json`` or another way to the same bytes (sync lands batches through orjson,
sync/canonical_fast.canonical_plain)."""


def commitment(secret: bytes, content: Any, encode: Encoder = canonical_json) -> str:
    """A keyed commitment to ``content``: HMAC-SHA256 under a per-item secret.

    Once the secret is erased, nobody can test a guess of the content against it.
    """
    return hmac.digest(secret, encode(content), "sha256").hex()


def chain_hash(prev_hash: str, entry: dict[str, Any], encode: Encoder = canonical_json) -> str:
    """``sha256(prev_hash || canonical_json(entry))`` with ``prev_hash`` as raw bytes."""
    return hashlib.sha256(bytes.fromhex(prev_hash) + encode(entry)).hexdigest()


GENESIS_HASH = "0" * 64


#: how ledger details are stored (``json.dumps(details, sort_keys=True)``: the hash covers canonical_json of
#: the entry, not this text), one encoder for every entry
_DETAILS = json.JSONEncoder(sort_keys=True)


def details_text(details: dict[str, Any]) -> str:
    """``json.dumps(details, sort_keys=True)``: the same text, and the same errors."""
    return _c_encode(_DETAILS, details)
