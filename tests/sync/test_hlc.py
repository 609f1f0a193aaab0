"""The hybrid logical clock: monotonic per device, causal across devices, totally ordered."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from veramem_desktop.sync.errors import SyncRejected
from veramem_desktop.sync.hlc import (
    DEFAULT_MAX_DRIFT_MS,
    HLC,
    MAX_COUNTER,
    ClockError,
)

DEVICE_A = "a" * 16
DEVICE_B = "b" * 16

devices = st.sampled_from([DEVICE_A, DEVICE_B, "0123456789abcdef", "z"])
walls = st.integers(min_value=0, max_value=2**45)
clocks = st.builds(HLC, walls, st.integers(min_value=0, max_value=MAX_COUNTER), devices)
# Wall-clock readings that jump around, as a real clock does after NTP corrections.
nows = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=50)


@given(nows)
def test_tick_always_moves_forward_even_when_the_wall_clock_goes_back(readings: list[int]) -> None:
    clock = HLC.zero(DEVICE_A)
    for now in readings:
        after = clock.tick(now)
        assert after > clock
        assert after.wall_ms >= now
        clock = after


@given(clocks, clocks, st.integers(min_value=0, max_value=2**45))
def test_receive_is_later_than_both_the_local_and_the_remote_clock(local: HLC, remote: HLC, now: int) -> None:
    now = max(now, remote.wall_ms)  # the remote is not in our future
    after = local.receive(remote, now)
    assert after > local
    assert (after.wall_ms, after.counter) > (remote.wall_ms, remote.counter)
    assert after.device == local.device
    assert after.wall_ms >= now


@given(st.lists(st.tuples(st.booleans(), st.integers(min_value=0, max_value=5_000)), max_size=60))
def test_an_event_caused_by_another_device_is_ordered_after_it(steps: list[tuple[bool, int]]) -> None:
    a, b = HLC.zero(DEVICE_A), HLC.zero(DEVICE_B)
    for a_sends, now in steps:
        if a_sends:
            a = a.tick(now)
            received = b.receive(a, max(now, a.wall_ms))
            assert received > a
            b = received
        else:
            b = b.tick(now)
            received = a.receive(b, max(now, b.wall_ms))
            assert received > b
            a = received


@given(clocks, clocks)
def test_the_string_encoding_sorts_exactly_like_the_clock(x: HLC, y: HLC) -> None:
    assert (x.encode() < y.encode()) == (x < y)
    assert (x.encode() == y.encode()) == (x == y)


@given(clocks)
def test_parse_reads_back_what_encode_wrote(clock: HLC) -> None:
    assert HLC.parse(clock.encode()) == clock
    assert HLC.parse(str(clock)) == clock


def test_clocks_with_the_same_time_are_ordered_by_device() -> None:
    a, b = HLC(5, 1, DEVICE_A), HLC(5, 1, DEVICE_B)
    assert a < b and a != b
    assert sorted([b, a]) == [a, b]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "000000000000005-00000000",  # no device
        "5-0-" + DEVICE_A,  # not padded
        "000000000000005-0000000A-" + DEVICE_A,  # uppercase hex
        "000000000000005-00000000-" + DEVICE_A.upper(),
        "٠٠٠٠٠٠٠٠٠٠٠٠٠٠٥-00000000-" + DEVICE_A,  # non-ASCII digits
        "000000000000005-00000000-" + DEVICE_A + "\n",
        "000000000000005-00000000-../etc",
    ],
)
def test_parse_refuses_anything_encode_would_not_write(text: str) -> None:
    with pytest.raises(ClockError) as caught:
        HLC.parse(text)
    assert isinstance(caught.value, SyncRejected)


def test_parse_refuses_a_value_that_is_not_text() -> None:
    with pytest.raises(ClockError):
        HLC.parse(12345)  # type: ignore[arg-type]


def test_a_remote_clock_far_in_the_future_is_refused_and_does_not_move_ours() -> None:
    local = HLC(1_000, 0, DEVICE_A)
    far = HLC(1_000 + DEFAULT_MAX_DRIFT_MS + 1, 0, DEVICE_B)
    with pytest.raises(ClockError, match="ahead"):
        local.receive(far, 1_000)
    near = HLC(1_000 + DEFAULT_MAX_DRIFT_MS, 0, DEVICE_B)
    assert local.receive(near, 1_000).wall_ms == near.wall_ms


def test_a_full_counter_borrows_a_millisecond_and_keeps_the_encoding_width() -> None:
    clock = HLC(7, MAX_COUNTER, DEVICE_A)
    after = clock.tick(7)
    assert after == HLC(8, 0, DEVICE_A)
    assert len(after.encode()) == len(clock.encode())


@pytest.mark.parametrize(
    ("wall", "counter", "device"),
    [(-1, 0, DEVICE_A), (0, -1, DEVICE_A), (0, MAX_COUNTER + 1, DEVICE_A), (0, 0, ""), (0, 0, "A-B")],
)
def test_out_of_range_clock_values_cannot_be_built(wall: int, counter: int, device: str) -> None:
    with pytest.raises(ClockError):
        HLC(wall, counter, device)


@given(
    st.integers(min_value=0, max_value=10**15 - 1),
    st.integers(min_value=0, max_value=MAX_COUNTER),
    st.text(alphabet="0123456789abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=64),
)
def test_a_parsed_clock_is_the_one_the_checked_constructor_builds(
    wall: int, counter: int, device: str
) -> None:
    """parse builds clocks without checking their parts again (its pattern bounds them): the result, at
    the limits of every part too, is the clock the constructor builds and checks."""
    text = f"{wall:015d}-{counter:08x}-{device}"
    parsed = HLC.parse(text)
    assert parsed == HLC(wall, counter, device)
    assert parsed.encode() == text
    assert _tick_or_refusal(parsed) == _tick_or_refusal(HLC(wall, counter, device))


def _tick_or_refusal(clock: HLC) -> HLC | str:
    """The next clock, or the refusal's message (the largest clock has no next one)."""
    try:
        return clock.tick(0)
    except ClockError as exc:
        return exc.message
