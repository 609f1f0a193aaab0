"""A hybrid logical clock: wall milliseconds, a counter, and the device id.

A timestamp stays close to the wall clock yet never goes backwards on one device,
and after ``receive`` it is later than every timestamp that device has seen, so
"newest wins" means the same thing on every device. Ties between devices break on
the device id, which makes the order total.

Everything here is pure: callers pass ``now_ms`` in and keep the returned value as
the clock's new state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from veramem_desktop.sync.errors import RejectReason, SyncRejected

# Fixed widths make the string encoding sort exactly like the values.
WALL_DIGITS = 15  # milliseconds up to the year 33658
COUNTER_HEX_DIGITS = 8
MAX_WALL_MS = 10**WALL_DIGITS - 1
MAX_COUNTER = 16**COUNTER_HEX_DIGITS - 1
# A remote clock this far ahead of ours is refused: accepting it would drag every
# later timestamp on this device forward with it.
DEFAULT_MAX_DRIFT_MS = 60 * 60 * 1000

_DEVICE_RE = re.compile(r"[0-9a-z]{1,64}")
_ENCODING = f"%0{WALL_DIGITS}d-%0{COUNTER_HEX_DIGITS}x-%s"  # wall-counter-device, fixed widths
_ENCODED_RE = re.compile(
    rf"(?P<wall>[0-9]{{{WALL_DIGITS}}})-(?P<counter>[0-9a-f]{{{COUNTER_HEX_DIGITS}}})-(?P<device>[0-9a-z]{{1,64}})"
)


class ClockError(SyncRejected):
    """A clock value that cannot be used (malformed, or too far in the future)."""

    title = "Clock refused"


@dataclass(frozen=True, order=True, slots=True)
class HLC:
    """One timestamp; also the state of a device's clock (its latest timestamp)."""

    wall_ms: int
    counter: int
    device: str

    def __post_init__(self) -> None:
        if not 0 <= self.wall_ms <= MAX_WALL_MS:
            raise ClockError(RejectReason.MALFORMED, f"Clock wall time {self.wall_ms} is out of range.")
        if not 0 <= self.counter <= MAX_COUNTER:
            raise ClockError(RejectReason.MALFORMED, f"Clock counter {self.counter} is out of range.")
        if not _DEVICE_RE.fullmatch(self.device):
            raise ClockError(RejectReason.MALFORMED, f"Clock device id {self.device!r} is not valid.")

    @classmethod
    def _known_valid(cls, wall_ms: int, counter: int, device: str) -> HLC:
        """A timestamp whose parts are already known to be in range (read by the encoding's pattern, or
        derived from a valid clock), made without checking them again."""
        clock = object.__new__(cls)
        object.__setattr__(clock, "wall_ms", wall_ms)
        object.__setattr__(clock, "counter", counter)
        object.__setattr__(clock, "device", device)
        return clock

    @classmethod
    def zero(cls, device: str) -> HLC:
        """The clock of a device that has not ticked yet."""
        return cls(0, 0, device)

    def tick(self, now_ms: int) -> HLC:
        """The next timestamp for a local event: later than ``self`` and not behind ``now_ms``."""
        if now_ms > self.wall_ms:
            return HLC._known_valid(min(now_ms, MAX_WALL_MS), 0, self.device)
        return self._bump(self.wall_ms, self.counter)

    def receive(self, remote: HLC, now_ms: int, *, max_drift_ms: int = DEFAULT_MAX_DRIFT_MS) -> HLC:
        """Our clock after seeing ``remote``: later than both ``self`` and ``remote``."""
        if remote.wall_ms > now_ms + max_drift_ms:
            raise ClockError(
                RejectReason.MALFORMED,
                f"A timestamp from device {remote.device} is {remote.wall_ms - now_ms} ms ahead of this "
                "device's clock. Check the date and time settings of both devices.",
            )
        wall = max(self.wall_ms, remote.wall_ms, now_ms)
        if wall == self.wall_ms and wall == remote.wall_ms:
            return self._bump(wall, max(self.counter, remote.counter))
        if wall == self.wall_ms:
            return self._bump(wall, self.counter)
        if wall == remote.wall_ms:
            return self._bump(wall, remote.counter)
        return HLC(min(wall, MAX_WALL_MS), 0, self.device)

    def _bump(self, wall: int, counter: int) -> HLC:
        # A full counter borrows one millisecond so the width of the encoding holds.
        if counter >= MAX_COUNTER:
            if wall >= MAX_WALL_MS:
                raise ClockError(RejectReason.MALFORMED, "The clock has reached its largest value.")
            return HLC._known_valid(wall + 1, 0, self.device)
        return HLC._known_valid(wall, counter + 1, self.device)

    def encode(self) -> str:
        """A string whose sort order is the clock order (``wall-counter-device``)."""
        return _ENCODING % (self.wall_ms, self.counter, self.device)

    def __str__(self) -> str:
        return self.encode()

    @classmethod
    def parse(cls, text: str) -> HLC:
        """Read a timestamp written by :meth:`encode`; anything else is refused."""
        match = _ENCODED_RE.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise ClockError(RejectReason.MALFORMED, f"{text!r} is not a sync clock value.")
        wall, counter, device = match.groups()
        # The pattern bounds every part: at most WALL_DIGITS digits, COUNTER_HEX_DIGITS hex digits, a valid device id.
        return cls._known_valid(int(wall), int(counter, 16), device)
