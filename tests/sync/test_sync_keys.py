"""Device identities, the account key, per-purpose subkeys and key grants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from veramem_desktop.core.errors import InvalidInputError
from veramem_desktop.sync.errors import RejectReason, SyncRejected
from veramem_desktop.sync.keys import (
    AccountKey,
    DeviceIdentity,
    DevicePublic,
    Purpose,
    derive,
    device_id_for,
    open_key_grant,
    seal_key_grant,
    verify_signature,
)

PURPOSES = [
    Purpose.BATCH,
    Purpose.KEY_ID,
    Purpose.PAIR_PAYLOAD,
    Purpose.PAIR_CONFIRM_APPROVER,
    Purpose.PAIR_CONFIRM_JOINER,
]


# --- derive -----------------------------------------------------------------------------


@given(st.binary(min_size=32, max_size=32))
def test_each_purpose_gets_its_own_subkey_and_none_equals_the_key(key: bytes) -> None:
    subkeys = [derive(key, p) for p in PURPOSES]
    assert len(set(subkeys)) == len(PURPOSES)
    assert key not in subkeys
    assert all(len(s) == 32 for s in subkeys)


def test_a_subkey_is_reproducible_and_depends_on_the_key() -> None:
    a, b = AccountKey.generate(), AccountKey.generate()
    assert derive(a.key, Purpose.BATCH) == derive(a.key, Purpose.BATCH)
    assert derive(a.key, Purpose.BATCH) != derive(b.key, Purpose.BATCH)


@pytest.mark.parametrize(("key", "purpose"), [(b"k" * 32, ""), (b"k" * 32, "clé"), (b"short", "batch")])
def test_derive_refuses_a_short_key_or_a_blank_purpose(key: bytes, purpose: str) -> None:
    with pytest.raises(InvalidInputError):
        derive(key, purpose)


# --- identities ---------------------------------------------------------------------------


def test_the_device_id_is_a_short_hash_of_the_verify_key(laptop: DeviceIdentity) -> None:
    assert laptop.device_id == device_id_for(laptop.verify_key)
    assert len(laptop.device_id) == 16 and int(laptop.device_id, 16) >= 0
    assert DeviceIdentity.generate().device_id != laptop.device_id


def test_signing_and_box_keys_are_separate(laptop: DeviceIdentity) -> None:
    assert laptop.verify_key != laptop.box_public_key


def test_an_identity_survives_the_keyring_round_trip(laptop: DeviceIdentity) -> None:
    restored = DeviceIdentity.from_secret_bytes(laptop.to_secret_bytes(), "laptop")
    assert restored.public == laptop.public
    assert verify_signature(laptop.verify_key, b"m", restored.sign(b"m"))


def test_a_damaged_stored_identity_is_refused(laptop: DeviceIdentity) -> None:
    with pytest.raises(InvalidInputError, match="pair this device again"):
        DeviceIdentity.from_secret_bytes(laptop.to_secret_bytes()[:-1])


def test_repr_of_secrets_shows_no_key_material(laptop: DeviceIdentity, key1: AccountKey) -> None:
    secret_hex = laptop.to_secret_bytes().hex()
    assert secret_hex[8:40] not in repr(laptop)
    assert key1.key.hex() not in repr(key1)


def test_a_device_record_round_trips_and_refuses_an_id_that_does_not_match_its_key(
    laptop: DeviceIdentity, phone: DeviceIdentity
) -> None:
    record = laptop.public
    assert DevicePublic.from_json(record.to_json()) == record
    forged = {**record.to_json(), "id": phone.device_id}
    with pytest.raises(InvalidInputError, match="does not match"):
        DevicePublic.from_json(forged)
    with pytest.raises(InvalidInputError):
        DevicePublic.from_json({**record.to_json(), "extra": "x"})
    with pytest.raises(InvalidInputError):
        DevicePublic.from_json({**record.to_json(), "box": record.box_key.hex().upper()})


def test_a_signature_does_not_verify_for_another_message_or_key(
    laptop: DeviceIdentity, phone: DeviceIdentity
) -> None:
    sig = laptop.sign(b"hello")
    assert verify_signature(laptop.verify_key, b"hello", sig)
    assert not verify_signature(laptop.verify_key, b"hellO", sig)
    assert not verify_signature(phone.verify_key, b"hello", sig)
    assert not verify_signature(laptop.verify_key, b"hello", sig[:-1])


# --- account keys -------------------------------------------------------------------------


def test_rotation_gives_the_next_epoch_a_fresh_unrelated_key(key1: AccountKey) -> None:
    key2 = key1.rotate()
    assert key2.epoch == 2
    assert key2.key != key1.key
    assert key2.key_id != key1.key_id


def test_an_account_key_round_trips_and_refuses_bad_records(key1: AccountKey) -> None:
    assert AccountKey.from_json(key1.to_json()) == key1
    for bad in ({"epoch": True, "key": key1.key.hex()}, {"epoch": 0, "key": key1.key.hex()}, {"epoch": 1}):
        with pytest.raises(InvalidInputError):
            AccountKey.from_json(bad)


def test_randomness_can_be_supplied_so_keys_are_reproducible_in_tests() -> None:
    def fixed(n: int) -> bytes:
        return b"\x07" * n

    assert AccountKey.generate(rng=fixed) == AccountKey.generate(rng=fixed)
    assert DeviceIdentity.generate(rng=fixed).device_id == DeviceIdentity.generate(rng=fixed).device_id


# --- key grants ---------------------------------------------------------------------------


def test_a_rotated_key_reaches_the_remaining_device_only(
    laptop: DeviceIdentity, phone: DeviceIdentity, mallory: DeviceIdentity, key1: AccountKey
) -> None:
    key2 = key1.rotate()
    grant = seal_key_grant(laptop, phone.public, key2)
    trusted = {laptop.device_id: laptop.public, phone.device_id: phone.public}
    assert open_key_grant(grant, phone, trusted) == key2
    assert key2.key not in grant
    # The removed device sees the grant in the folder but it is not addressed to it,
    # and relabelling the recipient breaks the box.
    with pytest.raises(SyncRejected) as caught:
        open_key_grant(grant, mallory, trusted)
    assert caught.value.reason is RejectReason.WRONG_RECIPIENT
    relabelled = grant[:25] + bytes.fromhex(mallory.device_id) + grant[33:]  # recipient field
    with pytest.raises(SyncRejected) as caught:
        open_key_grant(relabelled, mallory, trusted)
    assert caught.value.reason is RejectReason.MAC_FAILURE


def test_a_grant_from_an_untrusted_device_is_refused(
    laptop: DeviceIdentity, phone: DeviceIdentity, mallory: DeviceIdentity, key1: AccountKey
) -> None:
    grant = seal_key_grant(mallory, phone.public, key1.rotate())
    with pytest.raises(SyncRejected) as caught:
        open_key_grant(grant, phone, {laptop.device_id: laptop.public})
    assert caught.value.reason is RejectReason.UNKNOWN_DEVICE


@settings(max_examples=60)
@given(position=st.integers(min_value=0), bit=st.integers(min_value=0, max_value=7))
def test_any_flipped_bit_in_a_grant_is_refused(position: int, bit: int) -> None:
    sender, recipient = DeviceIdentity.generate(rng=lambda n: b"\x01" * n), DeviceIdentity.generate()
    grant = bytearray(seal_key_grant(sender, recipient.public, AccountKey.generate(3)))
    grant[position % len(grant)] ^= 1 << bit
    with pytest.raises(SyncRejected):
        open_key_grant(bytes(grant), recipient, {sender.device_id: sender.public})


def test_a_truncated_grant_is_refused_at_every_length(
    laptop: DeviceIdentity, phone: DeviceIdentity, key1: AccountKey
) -> None:
    grant = seal_key_grant(laptop, phone.public, key1)
    for length in range(len(grant)):
        with pytest.raises(SyncRejected):
            open_key_grant(grant[:length], phone, {laptop.device_id: laptop.public})
