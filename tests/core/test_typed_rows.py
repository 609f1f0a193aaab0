"""Typed rows (issue 32, part 3): a repository's row type names its columns, and its statement's column
list is written from those names (core/storage/columns.py), so the two cannot drift apart; callers read
``row.status``, never ``row[1]``."""

from __future__ import annotations

from typing import NamedTuple

import pytest
from support.internals import embedder_of, store_of
from veramem_desktop.core.storage import episode_contents, item_search, ledger, traces
from veramem_desktop.core.storage.columns import select_list

from veramem_desktop.memory import Memory


class _Pair(NamedTuple):
    id: str
    withheld: str | None


def test_a_select_list_names_each_field_in_order_and_takes_an_expression_by_name() -> None:
    assert select_list(_Pair._fields) == "id, withheld"
    assert select_list(_Pair._fields, "m") == "m.id, m.withheld"
    assert select_list(_Pair._fields, "m", withheld="(SELECT 1)") == "m.id, (SELECT 1)"


def test_an_expression_for_no_field_is_refused() -> None:
    with pytest.raises(ValueError, match="withheld_reason"):
        select_list(_Pair._fields, "m", withheld_reason="(SELECT 1)")


def test_the_ledgers_and_traces_column_lists_are_their_row_types_fields() -> None:
    assert (
        ledger.LEDGER_COLUMNS
        == "seq, ts, device, op, target_kind, target_id, commitment, details, prev_hash, hash"
    )
    assert traces.RECORD_COLUMNS.split(", ") == list(traces.TraceRecord._fields)


def test_a_memorys_ranking_row_carries_the_truth_row_the_truth_stage_reads(mem: Memory) -> None:
    texts = ["Alice moved to Lisbon in March.", "Bob plays the cello."]
    mem.measuring.add_prepared(texts, user_id="alice", vectors=list(embedder_of(mem).embed(texts)))
    store = store_of(mem)
    ids = [r[0] for r in store.query("SELECT id FROM memory_items ORDER BY id")]
    assert ids
    hits = item_search.hit_rows(store, ids)
    truths = item_search.truth_rows(store, set(ids))
    assert sorted(h.truth() for h in hits) == truths  # truth_rows come in id order
    assert all(h.user_id == "alice" and h.status == "active" for h in hits)
    episode_ids = [r[0] for r in store.query("SELECT id FROM episodes ORDER BY id")]
    rows = episode_contents.hit_rows(store, episode_ids)
    assert {r.content for r in rows} == set(texts) and {r.user_id for r in rows} == {"alice"}
