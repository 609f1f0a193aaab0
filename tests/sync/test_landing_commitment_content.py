"""A memory landed by sync is committed to in the ledger with what items.content_of covers, read from
its row (items.content_of_row) rather than from an item built for it: same keys, same values, so the
commitment ledger_verify recomputes from the stored item matches."""

from __future__ import annotations

from dataclasses import asdict

from hypothesis import given
from hypothesis import strategies as st
from veramem_desktop.core.storage.canonical import commitment
from veramem_desktop.core.storage.items import MemoryItem, content_of, content_of_row
from veramem_desktop.sync.canonical_fast import canonical_plain

texts = st.text(max_size=12)
items = st.builds(
    MemoryItem,
    id=texts,
    kind=st.sampled_from(["fact", "preference", "event", "experience", "summary"]),
    text=texts,
    authority=st.sampled_from(["authorized", "attested", "unendorsed"]),
    trust=st.sampled_from(["candidate", "verified", "rejected"]),
    status=st.sampled_from(["active", "superseded", "retracted", "archived"]),
    value=st.none() | texts,
    subject=st.none() | texts,
    confidence=st.floats(0, 1),
)


@given(items)
def test_a_rows_committed_content_is_the_items(item: MemoryItem) -> None:
    row = asdict(item)
    assert content_of_row(row) == content_of(item)
    assert list(content_of_row(row)) == list(content_of(item))


@given(items, st.binary(min_size=32, max_size=32))
def test_landing_commits_to_a_row_as_the_ledger_check_commits_to_its_item(
    item: MemoryItem, secret: bytes
) -> None:
    landed = commitment(secret, content_of_row(asdict(item)), canonical_plain)
    assert landed == commitment(secret, content_of(item))
