"""The extraction section: a generated set of statements per (who said it × what it says), scored
for coverage and wrong subject through the SDK, with metrics that fail when extraction is wrong."""

from __future__ import annotations

import pytest
from veramem_desktop.models.llm.rules import extract

from veramem_desktop.bench.extraction_section import (
    KINDS,
    ROLES,
    Derived,
    Statement,
    generate,
    run_extraction_section,
    score,
)
from veramem_desktop.bench.runner import SECTIONS, BenchContext, BenchOptions, bench_home


def test_the_set_is_generated_for_every_role_and_kind_with_varied_values_and_is_deterministic() -> None:
    first, again = generate(10), generate(10)
    assert [s.content for s in first] == [s.content for s in again]
    assert {(s.role, s.kind) for s in first} == {(r, k) for r in ROLES for k in KINDS} and len(first) == 240
    assert len({s.content for s in first}) > 150  # names and values vary, not one sentence per cell
    assert {s.about for s in first if s.role == "document" and s.kind != "world"} == {"author"}
    assert "extraction" in SECTIONS


PORTO = Statement("document", "attribute", "I live in Porto.", ("Porto",), "author", name="notes.md")


def test_a_document_first_person_said_of_its_file_is_a_wrong_subject() -> None:
    result = score([PORTO], lambda st: [Derived("According to document notes.md: Notes.md lives in Porto.")])
    assert result["all"] == {"n": 1, "coverage": 1.0, "wrong_subject": 1.0} and not result["met"]
    ok = score(
        [PORTO], lambda st: [Derived("According to document notes.md: The document's author lives in Porto.")]
    )
    assert ok["all"]["wrong_subject"] == 0.0 and ok["met"]


def test_a_statement_with_no_memory_holding_its_value_is_not_covered() -> None:
    world = Statement("user", "world", "Tomatoes need six hours of sun.", ("Tomatoes", "six"), "world")
    result = score([world], lambda st: [])
    assert result["all"]["coverage"] == 0.0 and not result["met"] and result["failures"]


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("According to tool crm: The assistant lives in Madrid.", None),  # no "User"
        ("According to tool crm: User lives in Madrid.", "assistant"),  # keyed to someone else
    ],
)
def test_a_claim_about_the_user_said_of_someone_else_is_a_wrong_subject(
    text: str, subject: str | None
) -> None:
    about_user = Statement("tool", "attribute", "The user lives in Madrid.", ("Madrid",), "user", name="crm")
    assert score([about_user], lambda st: [Derived(text, subject)])["all"]["wrong_subject"] == 1.0


def test_the_section_meets_its_targets_through_the_sdk_and_fails_when_a_document_speaks_as_its_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with bench_home() as home:
        ctx = BenchContext(BenchOptions(), home, lambda _: None)
        good = run_extraction_section(ctx, per_cell=1).data["extraction"]
        assert good["met"] and good["all"]["n"] == len(ROLES) * len(KINDS), good
        assert any(
            row[0].startswith("  per kind")
            for row in run_extraction_section(ctx, per_cell=1, roles=("user",)).rows
        )
        # the old behaviour: a document's "I" named after its file
        monkeypatch.setattr(extract, "speaker_of", lambda m: (m.name or "Someone").capitalize())
        bad = run_extraction_section(ctx, per_cell=2, roles=("document",)).data["extraction"]
    assert bad["role:document"]["wrong_subject"] > 0.02 and not bad["met"]
