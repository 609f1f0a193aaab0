"""now_iso writes what iso() writes for the same moment (issue 17 made it skip iso()'s conversion)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from veramem_desktop.core.storage.ids import iso, now_iso, parse_iso


def test_now_iso_is_the_canonical_utc_string_of_now() -> None:
    before = datetime.now(UTC)
    stamp = now_iso()
    after = datetime.now(UTC)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", stamp)
    assert before <= parse_iso(stamp) <= after
    assert iso(parse_iso(stamp)) == stamp
