"""Batch, head and pairing signatures are made and checked through OpenSSL (sync/keys.py), whose SHA-512
is faster on large batches, with libsodium's point checks in front: the signatures are the bytes libsodium
makes, and every signature libsodium refuses is refused, including the ones OpenSSL alone accepts."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey
from veramem_desktop.sync.keys import DeviceIdentity, verify_signature

GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493
IDENTITY_POINT = bytes([1]) + bytes(31)  # the neutral element: a key of order 1


def _libsodium_accepts(key: bytes, message: bytes, signature: bytes) -> bool:
    try:
        VerifyKey(key).verify(message, signature)
    except (BadSignatureError, ValueError, TypeError):
        return False
    return True


@settings(max_examples=50, deadline=None)
@given(st.binary(max_size=2_000), st.binary(min_size=32, max_size=32))
def test_a_device_signs_the_bytes_libsodium_would_and_its_signature_verifies(
    message: bytes, seed: bytes
) -> None:
    identity = DeviceIdentity(SigningKey(seed), DeviceIdentity.generate().box_private_key)
    signature = identity.sign(message)
    assert signature == SigningKey(seed).sign(message).signature
    assert verify_signature(identity.verify_key, message, signature)


@settings(max_examples=200, deadline=None)
@given(
    st.binary(max_size=200), st.integers(min_value=0, max_value=63), st.integers(min_value=1, max_value=255)
)
def test_a_changed_signature_or_message_is_refused_as_libsodium_refuses_it(
    message: bytes, at: int, flip: int
) -> None:
    identity = DeviceIdentity.generate()
    signature = bytearray(identity.sign(message))
    signature[at] ^= flip
    assert not verify_signature(identity.verify_key, message, bytes(signature))
    assert not _libsodium_accepts(identity.verify_key, message, bytes(signature))
    assert not verify_signature(identity.verify_key, message + b"x", identity.sign(message))
    assert not verify_signature(DeviceIdentity.generate().verify_key, message, identity.sign(message))


def test_a_small_order_key_that_would_sign_anything_is_refused() -> None:
    forged = IDENTITY_POINT + bytes(32)  # R = neutral element, S = 0: the equation holds for every message
    for message in (b"", b"any batch at all", os.urandom(1000)):
        assert not _libsodium_accepts(IDENTITY_POINT, message, forged)
        assert not verify_signature(IDENTITY_POINT, message, forged)


def test_a_signature_with_s_past_the_group_order_is_refused() -> None:
    identity = DeviceIdentity.generate()
    signature = identity.sign(b"batch")
    s = int.from_bytes(signature[32:], "little") + GROUP_ORDER
    malleated = signature[:32] + s.to_bytes(32, "little")
    assert not _libsodium_accepts(identity.verify_key, b"batch", malleated)
    assert not verify_signature(identity.verify_key, b"batch", malleated)


@pytest.mark.parametrize(
    ("key", "signature"),
    [
        (b"", bytes(64)),
        (bytes(32), b"short"),
        (None, bytes(64)),
        (bytes(31), bytes(64)),
        (b"\xff" * 32, bytes(64)),
    ],
    ids=["empty key", "short signature", "no key", "short key", "key off the curve"],
)
def test_malformed_keys_and_signatures_are_refused_without_an_error(key: object, signature: bytes) -> None:
    assert verify_signature(key, b"batch", signature) is False  # type: ignore[arg-type]
