"""Pairing over the shared folder: it works with the code, and the attacks on it fail.

The attacker in these tests reads and writes every pairing file but never saw the code.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.exceptions import CryptoError
from nacl.public import SealedBox
from nacl.secret import SecretBox
from spake2 import SPAKE2_A
from veramem_desktop.sync import pairing
from veramem_desktop.sync.errors import PairingFailed, PairingFailure
from veramem_desktop.sync.keys import AccountKey, DeviceIdentity, Purpose, canonical_json, derive
from veramem_desktop.sync.pairing import (
    CROCKFORD,
    REQUEST_TTL_MS,
    AccountGrant,
    Approval,
    Confirmation,
    JoinerSession,
    JoinRequest,
    PairingCode,
    PendingApproval,
    approve_join,
    complete_approval,
    find_request,
    finish_join,
    pending_requests,
    start_join,
)

T0 = 1_700_000_000_000
MINUTE = 60_000


@pytest.fixture
def grant(laptop: DeviceIdentity, key1: AccountKey) -> AccountGrant:
    return AccountGrant(keys=(key1, key1.rotate()), devices=(laptop.public,), removed=frozenset({"d" * 16}))


def via_folder_request(session: JoinerSession) -> JoinRequest:
    return JoinRequest.from_bytes(session.request.to_bytes())


def failure(excinfo: pytest.ExceptionInfo[PairingFailed]) -> PairingFailure:
    return excinfo.value.reason


def wrong_code_with_same_tag(code: PairingCode) -> PairingCode:
    secret = ("1" if code.secret[0] != "1" else "2") + code.secret[1:]
    return PairingCode(code.tag, secret)


def resign(request: JoinRequest, signer: DeviceIdentity, **changes: object) -> JoinRequest:
    """What an attacker can do to a request: change fields and sign with her own key."""
    changed = replace(request, **changes)  # type: ignore[arg-type]
    signature = signer.sign(pairing._REQUEST_SIG_CONTEXT + canonical_json(changed.signed_part()))
    return replace(changed, signature=signature)


# --- the happy path -------------------------------------------------------------------------


def test_a_new_device_joins_with_the_code_and_both_sides_end_up_trusting_each_other(
    laptop: DeviceIdentity, phone: DeviceIdentity, grant: AccountGrant
) -> None:
    session = start_join(phone, T0)
    typed = PairingCode.parse(session.code.display())
    request = find_request([via_folder_request(session)], typed, T0 + MINUTE)
    pending, approval = approve_join(request, typed, laptop, grant, T0 + MINUTE)

    result = finish_join(session, Approval.from_bytes(approval.to_bytes()), T0 + 2 * MINUTE)
    assert result.grant.keys == grant.keys
    assert result.grant.devices == (laptop.public,)
    assert result.grant.removed == grant.removed
    assert result.approver_id == laptop.device_id

    joined = complete_approval(
        pending, Confirmation.from_bytes(result.confirmation.to_bytes()), T0 + 3 * MINUTE
    )
    assert joined == phone.public


def test_the_code_is_short_typeable_and_forgiving() -> None:
    code = PairingCode.generate()
    shown = code.display()
    assert len(shown) == 12 and shown[2] == "-" and shown[7] == "-"
    assert PairingCode.parse(shown.lower()) == code
    assert PairingCode.parse(" " + shown.replace("-", " ") + "\n") == code
    assert PairingCode.parse("0o-1iL0-0000") == PairingCode("00", "11100000")
    assert code.secret not in repr(code)
    for bad in ("", "AB-CDEF-GHJ", "AB-CDEF-GHJKM", "AB-CDEF-GHJU", "AB-CDÉF-GHJK"):
        with pytest.raises(PairingFailed) as caught:
            PairingCode.parse(bad)
        assert failure(caught) is PairingFailure.BAD_CODE_FORMAT


def test_codes_are_not_repeated() -> None:
    assert len({PairingCode.generate().display() for _ in range(200)}) == 200


def test_the_code_is_never_written_to_the_folder(phone: DeviceIdentity) -> None:
    session = start_join(phone, T0)
    written = session.request.to_bytes()
    assert session.code.secret.encode() not in written
    assert session.code.secret.lower().encode() not in written


# --- a wrong code ---------------------------------------------------------------------------


def test_a_wrong_code_fails_clearly_and_hands_over_no_key(
    laptop: DeviceIdentity, phone: DeviceIdentity, grant: AccountGrant
) -> None:
    session = start_join(phone, T0)
    wrong = wrong_code_with_same_tag(session.code)
    pending, approval = approve_join(via_folder_request(session), wrong, laptop, grant, T0 + MINUTE)
    with pytest.raises(PairingFailed) as caught:
        finish_join(session, approval, T0 + MINUTE)
    assert failure(caught) is PairingFailure.CONFIRMATION_FAILED
    assert "code" in str(caught.value) and "No key" in str(caught.value)
    # The approver never hears a valid confirmation, so it never trusts the phone.
    with pytest.raises(PairingFailed):
        complete_approval(pending, Confirmation(pending.request_id, bytes(32)), T0 + MINUTE)


def test_a_code_whose_tag_points_nowhere_finds_no_request(phone: DeviceIdentity) -> None:
    session = start_join(phone, T0)
    other_tag = "00" if session.code.tag != "00" else "11"
    with pytest.raises(PairingFailed) as caught:
        find_request([session.request], PairingCode(other_tag, session.code.secret), T0)
    assert failure(caught) is PairingFailure.NO_REQUEST


# --- the folder reader ----------------------------------------------------------------------


def test_a_folder_reader_cannot_open_the_approval_even_if_it_later_learns_the_code(
    laptop: DeviceIdentity, phone: DeviceIdentity, grant: AccountGrant
) -> None:
    session = start_join(phone, T0)
    pending, approval = approve_join(via_folder_request(session), session.code, laptop, grant, T0)
    result = finish_join(session, approval, T0)
    folder = [session.request.to_bytes(), approval.to_bytes(), result.confirmation.to_bytes()]

    # No key appears in the folder, in any encoding.
    for key in grant.keys:
        for encoded in (key.key, key.key.hex().encode()):
            assert all(encoded not in data for data in folder)

    # The reader replays the joiner's side with the right code, but lacks the joiner's
    # SPAKE2 secret, so the session key differs and the payload stays shut.
    request_id = session.request.request_id.encode()
    reader = SPAKE2_A(session.code.password(), idA=pairing._ID_JOINER + request_id, idB=pairing._ID_APPROVER)
    reader.start()
    reader_key = reader.finish(approval.spake_msg)
    with pytest.raises(CryptoError):
        SecretBox(derive(reader_key, Purpose.PAIR_PAYLOAD)).decrypt(approval.sealed)


def test_an_active_attacker_gets_one_guess_per_attempt_and_learns_nothing_from_a_miss(
    laptop: DeviceIdentity, phone: DeviceIdentity, mallory: DeviceIdentity, grant: AccountGrant
) -> None:
    # Mallory replaces the phone's request with her own, made with a guessed code.
    session = start_join(phone, T0)
    guess = wrong_code_with_same_tag(session.code)
    mallory_session = start_join(mallory, T0, rng=rng_making_code(guess))
    assert mallory_session.code == guess
    requests = [resign(mallory_session.request, mallory)]
    pending, approval = approve_join(
        find_request(requests, session.code, T0), session.code, laptop, grant, T0 + MINUTE
    )
    with pytest.raises(PairingFailed) as caught:
        finish_join(mallory_session, approval, T0 + MINUTE)
    assert failure(caught) is PairingFailure.CONFIRMATION_FAILED
    # Her session is used up: the miss cannot be retried against the same answer.
    with pytest.raises(PairingFailed):
        finish_join(mallory_session, approval, T0 + MINUTE)
    with pytest.raises(CryptoError):
        SealedBox(mallory.box_private_key).decrypt(approval.sealed)


def rng_making_code(code: PairingCode) -> Callable[[int], bytes]:
    """An rng that makes start_join produce ``code`` (and random bytes for the rest)."""
    first = [True]

    def rng(n: int) -> bytes:
        if first[0]:
            first[0] = False
            return bytes(CROCKFORD.index(c) for c in code.tag + code.secret)
        return os.urandom(n)

    return rng


def test_the_joiner_stops_after_one_failed_answer_even_if_the_real_one_comes_later(
    laptop: DeviceIdentity, phone: DeviceIdentity, mallory: DeviceIdentity, grant: AccountGrant
) -> None:
    session = start_join(phone, T0)
    # Mallory answers first, as an approver with a guessed code and her own account.
    fake_grant = AccountGrant((AccountKey.generate(),), (mallory.public,))
    _, fake = approve_join(session.request, wrong_code_with_same_tag(session.code), mallory, fake_grant, T0)
    with pytest.raises(PairingFailed):
        finish_join(session, fake, T0)
    _, real = approve_join(session.request, session.code, laptop, grant, T0)
    with pytest.raises(PairingFailed, match="used up"):
        finish_join(session, real, T0)


# --- swapped public keys --------------------------------------------------------------------


def test_a_request_whose_keys_were_swapped_is_caught_by_the_joiner_and_never_trusted_by_the_approver(
    laptop: DeviceIdentity, phone: DeviceIdentity, mallory: DeviceIdentity, grant: AccountGrant
) -> None:
    session = start_join(phone, T0)
    # Mallory keeps the phone's SPAKE2 message, tag and id but puts in her own keys,
    # and signs the result so the approver sees a consistent request.
    swapped = resign(session.request, mallory, device=mallory.public)
    pending, approval = approve_join(swapped, session.code, laptop, grant, T0 + MINUTE)
    assert pending.joiner == mallory.public

    # The phone compares the transcript with the request it really wrote: it stops.
    with pytest.raises(PairingFailed) as caught:
        finish_join(session, approval, T0 + MINUTE)
    assert failure(caught) is PairingFailure.CONFIRMATION_FAILED

    # Mallory has her box key but not the session key: the keys stay sealed.
    with pytest.raises(CryptoError):
        SealedBox(mallory.box_private_key).decrypt(approval.sealed)
    # And she cannot produce the confirmation that would make the laptop trust her key.
    for attempt in (bytes(32), approval.confirm):
        with pytest.raises(PairingFailed) as caught:
            complete_approval(pending, Confirmation(pending.request_id, attempt), T0 + 2 * MINUTE)
        assert failure(caught) is PairingFailure.CONFIRMATION_FAILED


def test_a_request_edited_without_re_signing_is_refused_by_the_approver(
    laptop: DeviceIdentity, phone: DeviceIdentity, mallory: DeviceIdentity, grant: AccountGrant
) -> None:
    session = start_join(phone, T0)
    body = json.loads(session.request.to_bytes())
    body["device"]["box"] = mallory.box_public_key.hex()
    edited = JoinRequest.from_bytes(canonical_json(body))
    with pytest.raises(PairingFailed) as caught:
        approve_join(edited, session.code, laptop, grant, T0)
    assert failure(caught) is PairingFailure.BAD_SIGNATURE


def test_a_swapped_approver_record_is_caught_by_the_joiner(
    laptop: DeviceIdentity, phone: DeviceIdentity, mallory: DeviceIdentity, grant: AccountGrant
) -> None:
    session = start_join(phone, T0)
    _, approval = approve_join(session.request, session.code, laptop, grant, T0)
    with pytest.raises(PairingFailed) as caught:
        finish_join(session, replace(approval, approver=mallory.public), T0)
    assert failure(caught) is PairingFailure.CONFIRMATION_FAILED


# --- replays and expiry ---------------------------------------------------------------------


def test_an_old_approval_cannot_complete_a_new_join(
    laptop: DeviceIdentity, phone: DeviceIdentity, grant: AccountGrant
) -> None:
    first = start_join(phone, T0)
    _, old_approval = approve_join(first.request, first.code, laptop, grant, T0)
    finish_join(first, old_approval, T0)

    second = start_join(phone, T0 + 20 * MINUTE)
    with pytest.raises(PairingFailed) as caught:
        finish_join(second, old_approval, T0 + 21 * MINUTE)
    assert failure(caught) is PairingFailure.WRONG_REQUEST
    relabelled = replace(old_approval, request_id=second.request.request_id)
    with pytest.raises(PairingFailed) as caught:
        finish_join(second, relabelled, T0 + 21 * MINUTE)
    assert failure(caught) is PairingFailure.CONFIRMATION_FAILED


def test_an_old_confirmation_cannot_complete_a_new_approval(
    laptop: DeviceIdentity, phone: DeviceIdentity, grant: AccountGrant
) -> None:
    first = start_join(phone, T0)
    _, approval = approve_join(first.request, first.code, laptop, grant, T0)
    old_confirmation = finish_join(first, approval, T0).confirmation

    second = start_join(phone, T0)
    pending, _ = approve_join(second.request, second.code, laptop, grant, T0)
    with pytest.raises(PairingFailed) as caught:
        complete_approval(pending, old_confirmation, T0)
    assert failure(caught) is PairingFailure.WRONG_REQUEST
    with pytest.raises(PairingFailed) as caught:
        complete_approval(pending, replace(old_confirmation, request_id=pending.request_id), T0)
    assert failure(caught) is PairingFailure.CONFIRMATION_FAILED


def test_a_replayed_request_of_a_paired_or_removed_device_is_refused(
    laptop: DeviceIdentity, phone: DeviceIdentity, grant: AccountGrant
) -> None:
    session = start_join(phone, T0)
    paired = replace(grant, devices=(*grant.devices, phone.public))
    with pytest.raises(PairingFailed) as caught:
        approve_join(session.request, session.code, laptop, paired, T0)
    assert failure(caught) is PairingFailure.ALREADY_PAIRED
    removed = replace(grant, removed=grant.removed | {phone.device_id})
    with pytest.raises(PairingFailed) as caught:
        approve_join(session.request, session.code, laptop, removed, T0)
    assert failure(caught) is PairingFailure.REMOVED_DEVICE


def test_every_step_refuses_after_its_deadline(
    laptop: DeviceIdentity, phone: DeviceIdentity, grant: AccountGrant
) -> None:
    session = start_join(phone, T0)
    late = T0 + REQUEST_TTL_MS
    with pytest.raises(PairingFailed) as caught:
        find_request([session.request], session.code, late)
    assert failure(caught) is PairingFailure.EXPIRED
    with pytest.raises(PairingFailed) as caught:
        approve_join(session.request, session.code, laptop, grant, late)
    assert failure(caught) is PairingFailure.EXPIRED

    pending, approval = approve_join(session.request, session.code, laptop, grant, late - 1)
    with pytest.raises(PairingFailed) as caught:
        finish_join(session, approval, late)
    assert failure(caught) is PairingFailure.EXPIRED

    fresh = start_join(phone, T0)
    pending, approval = approve_join(fresh.request, fresh.code, laptop, grant, T0)
    confirmation = finish_join(fresh, approval, T0).confirmation
    with pytest.raises(PairingFailed) as caught:
        complete_approval(pending, confirmation, pending.deadline_ms + 1)
    assert failure(caught) is PairingFailure.EXPIRED


def test_a_request_cannot_stretch_its_own_lifetime(
    laptop: DeviceIdentity, phone: DeviceIdentity, grant: AccountGrant
) -> None:
    session = start_join(phone, T0)
    stretched = resign(session.request, phone, expires_ms=T0 + 24 * 60 * MINUTE)
    with pytest.raises(PairingFailed) as caught:
        approve_join(stretched, session.code, laptop, grant, T0 + MINUTE)
    assert failure(caught) is PairingFailure.EXPIRED
    future = resign(session.request, phone, created_ms=T0 + 60 * MINUTE, expires_ms=T0 + 65 * MINUTE)
    with pytest.raises(PairingFailed):
        approve_join(future, session.code, laptop, grant, T0)


def test_two_live_requests_with_the_same_tag_stop_the_approval(
    phone: DeviceIdentity, mallory: DeviceIdentity
) -> None:
    session = start_join(phone, T0)
    planted = resign(start_join(mallory, T0).request, mallory, tag=session.code.tag)
    with pytest.raises(PairingFailed) as caught:
        find_request([session.request, planted], session.code, T0 + MINUTE)
    assert failure(caught) is PairingFailure.DUPLICATE_REQUEST
    # An expired look-alike does not block a live request.
    stale = resign(planted, mallory, created_ms=T0 - 20 * MINUTE, expires_ms=T0 - 10 * MINUTE)
    assert find_request([stale, session.request], session.code, T0 + MINUTE) == session.request


# --- malformed messages ---------------------------------------------------------------------


@settings(max_examples=200)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_garbage_in_a_pairing_file_is_refused_as_malformed(data: bytes) -> None:
    for parse in (JoinRequest.from_bytes, Approval.from_bytes, Confirmation.from_bytes):
        with pytest.raises(PairingFailed) as caught:
            parse(data)
        assert failure(caught) is PairingFailure.MALFORMED


def test_a_mutated_field_in_a_real_message_is_refused_or_caught_later(
    laptop: DeviceIdentity, phone: DeviceIdentity, grant: AccountGrant
) -> None:
    session = start_join(phone, T0)
    body = json.loads(session.request.to_bytes())
    for field, value in [("spake", "00" * 33), ("v", 2), ("sig", "zz"), ("created_ms", -1), ("tag", "U0")]:
        mutated = canonical_json({**body, field: value})
        with pytest.raises(PairingFailed):
            approve_join(JoinRequest.from_bytes(mutated), session.code, laptop, grant, T0)
    requests, reports = pending_requests(
        [session.request.to_bytes(), b"{}", canonical_json({**body, "x": 1})]
    )
    assert requests == [session.request] and len(reports) == 2


def test_an_approval_with_a_point_off_the_curve_is_refused(
    laptop: DeviceIdentity, phone: DeviceIdentity, grant: AccountGrant
) -> None:
    session = start_join(phone, T0)
    _, approval = approve_join(session.request, session.code, laptop, grant, T0)
    with pytest.raises(PairingFailed) as caught:
        finish_join(session, replace(approval, spake_msg=b"B" + b"\xff" * 32), T0)
    assert failure(caught) is PairingFailure.MALFORMED


def test_the_approvers_pending_state_survives_a_restart(
    laptop: DeviceIdentity, phone: DeviceIdentity, grant: AccountGrant
) -> None:
    session = start_join(phone, T0)
    pending, approval = approve_join(session.request, session.code, laptop, grant, T0)
    restored = PendingApproval.from_json(json.loads(json.dumps(pending.to_json())))
    confirmation = finish_join(session, approval, T0).confirmation
    assert complete_approval(restored, confirmation, T0) == phone.public
    assert pending.expected_confirm.hex() not in repr(pending)
