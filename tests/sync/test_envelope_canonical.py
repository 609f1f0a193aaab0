"""A batch signed by a paired device opens only in its one canonical spelling: every other spelling of
the same events (key order, spaces, escapes, number forms, duplicate keys) is refused as not canonical,
and a body that is not JSON at all as not valid JSON. Opening checks this by encoding the decoded events
once, so these cases pin down what that single pass must still refuse."""

from __future__ import annotations

import pytest
from veramem_desktop.core.storage.canonical import canonical_json as core_canonical_json
from veramem_desktop.sync.errors import RejectReason, SyncRejected
from veramem_desktop.sync.keys import AccountKey, DeviceIdentity, canonical_json

from tests.sync.test_envelope import events_for, forge, open_as

LAPTOP = DeviceIdentity.generate("laptop")
KEY1 = AccountKey.generate(1)


def _body() -> bytes:
    events = events_for(LAPTOP, 2)
    events[1]["payload"] = {"n": 1.5, "k": 10, "t": 'caf\u00e9 / "quoted"\n', "z": None, "b": True}
    return canonical_json(events)


def _refusal(body: bytes, count: int = 2) -> SyncRejected:
    forged = forge(LAPTOP, KEY1, claimed_device=LAPTOP.device_id, body=body, count=count)
    with pytest.raises(SyncRejected) as caught:
        open_as(forged, [LAPTOP], [KEY1])
    return caught.value


def test_the_canonical_body_opens_and_both_canonical_encoders_agree_on_it() -> None:
    body = _body()
    assert core_canonical_json(events_for(LAPTOP, 2)) == canonical_json(events_for(LAPTOP, 2))
    forged = forge(LAPTOP, KEY1, claimed_device=LAPTOP.device_id, body=body, count=2)
    assert len(open_as(forged, [LAPTOP], [KEY1]).events) == 2


@pytest.mark.parametrize(
    ("label", "old", "new"),
    [
        ("keys out of order", b'"b":true,"k":10', b'"k":10,"b":true'),
        ("a space after a colon", b'"k":10', b'"k": 10'),
        ("a space between events", b"},{", b"}, {"),
        ("a trailing newline", b"]", b"]\n"),
        ("an escaped non-ASCII letter", "caf\u00e9".encode(), b"caf\\u00e9"),
        ("an escaped slash", b" / ", b" \\/ "),
        ("a float written with an exponent", b'"n":1.5', b'"n":15e-1'),
        ("a float with a trailing zero", b'"n":1.5', b'"n":1.50'),
        ("a duplicate key", b'"k":10', b'"k":10,"k":10'),
        ("a newline escaped as \\u000a", b"\\n", b"\\u000a"),
    ],
)
def test_another_spelling_of_a_signed_batch_is_refused_as_not_canonical(
    label: str, old: bytes, new: bytes
) -> None:
    body = _body()
    assert body.count(old) >= 1, label
    variant = body.replace(old, new, 1) if old != b"]" else body + b"\n"
    refusal = _refusal(variant)
    assert refusal.reason is RejectReason.MALFORMED, label
    assert "not canonical JSON" in refusal.message, label


@pytest.mark.parametrize("body", [b"[1,", b"[010]", b'["\\ud800"]', b"[NaN]", b"[1e999]", b"[\xff]"])
def test_a_signed_body_that_is_not_json_or_cannot_be_written_back_is_refused_as_not_valid_json(
    body: bytes,
) -> None:
    refusal = _refusal(body, count=1)
    assert refusal.reason is RejectReason.MALFORMED
    assert "not valid JSON" in refusal.message


def test_a_canonical_body_with_the_wrong_count_or_a_bad_event_is_refused_for_that() -> None:
    assert "wrong event count" in _refusal(_body(), count=3).message
    assert "wrong fields" in _refusal(canonical_json([{"device": LAPTOP.device_id}]), count=1).message
