"""A document is dated by its own words (a dated title, a labelled date line, front matter) or its file's
time, never by the day it was imported."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from support.internals import store_of
from veramem_desktop.core.text.explicit_dates import document_period, document_time

from veramem_desktop.memory import Memory

IMPORT_DAY = datetime(2026, 12, 4, 15, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "period"),
    [
        ("Reading list 2024\n\n- a history of salt\n- two novels", (date(2024, 1, 1), date(2024, 12, 31))),
        ("# Savings plan 2027\n\nPut 300 a month aside.", (date(2027, 1, 1), date(2027, 12, 31))),
        ("Quarterly review\nLast updated: 14 March 2024\nWe shipped two features.", (date(2024, 3, 14),) * 2),
        ("Allotment log (started April 2023)\nPlanted leeks.", (date(2023, 4, 1), date(2023, 4, 30))),
        ("---\ntitle: Ferry trip\ndate: 2022-08-19\n---\nThe crossing was rough.", (date(2022, 8, 19),) * 2),
        # a whole date is more precise than the title's year
        ("Budget 2025\nWritten on 30 December 2024\n- rent\n- food", (date(2024, 12, 30),) * 2),
    ],
)
def test_a_document_takes_the_date_it_gives_itself(text: str, period: tuple[date, date]) -> None:
    assert document_period(text) == period


@pytest.mark.parametrize(
    "text",
    [
        "Packing list\n- passport\n- charger",
        "We moved to Ghent in 2019 and never looked back.\nThe canals are lovely.",  # a sentence, not a title
        "Notes\n- sell the car in 2026\n- visit Tom",  # a plan in the body is not the document's date
        "Meeting\nDate: 04/05/2024\nAgenda",  # May 4 or April 5: not guessed
    ],
)
def test_dates_in_a_documents_body_or_ambiguous_ones_do_not_date_it(text: str) -> None:
    assert document_period(text) is None


def test_the_files_time_counts_only_when_it_falls_in_the_period_the_text_names() -> None:
    goals = "Goals 2025\n- run a half marathon"
    assert document_time(goals, IMPORT_DAY) == datetime(2025, 1, 1, tzinfo=UTC)
    saved_in_time = datetime(2024, 12, 20, 8, 0, tzinfo=UTC)  # written just before the year it plans
    assert document_time(goals, saved_in_time) == saved_in_time
    assert document_time("Packing list\n- passport", IMPORT_DAY) == IMPORT_DAY


def _write(folder: Path, name: str, text: str, saved: datetime) -> None:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    os.utime(path, (saved.timestamp(), saved.timestamp()))


def test_imported_notes_are_dated_by_their_own_words_not_the_import_day(mem: Memory, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    _write(notes, "goals.md", "# Goals 2025\n\n- learn to sail\n- read twelve books\n", IMPORT_DAY)
    _write(notes, "review.md", "Team review\nUpdated: 3 February 2024\n\nThe team grew to six.\n", IMPORT_DAY)
    old = datetime(2021, 5, 2, 10, 0, tzinfo=UTC)
    _write(notes, "undated.md", "Packing list\n\n- passport\n- charger\n", old)
    mem.import_history(notes)
    rows = store_of(mem).query("SELECT source_name, event_time FROM episodes")
    times = {name: when[:10] for name, when in rows}
    assert times == {"goals.md": "2025-01-01", "review.md": "2024-02-03", "undated.md": "2021-05-02"}


def test_an_added_document_is_dated_by_its_own_words(mem: Memory) -> None:
    mem.adding.add_document("Holiday plan 2023\n\nWe rent a cabin by the lake.\n", name="plan.md")
    (when,) = store_of(mem).query_one("SELECT event_time FROM episodes")
    assert when.startswith("2023-01-01")
