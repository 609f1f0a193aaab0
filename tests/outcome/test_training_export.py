"""The training export: write decisions and answers in the documented schema (issue 18, part 7)."""

from __future__ import annotations

import json
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from support.fixtures import init_store, run_cli
from support.internals import store_of
from veramem_desktop.core.errors import InvalidInputError, NotFoundError

from veramem_desktop.memory import Memory

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "docs" / "schema" / "training-export.schema.json"
VALIDATOR = Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def export(mem: Memory, tmp_path: Path, name: str = "training.jsonl", **options: Any) -> list[dict[str, Any]]:
    target = tmp_path / name
    mem.export_training(target, overwrite=True, **options)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    records = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    for record in records:
        VALIDATOR.validate(record)
    return records


def test_the_schema_file_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def test_an_exported_write_record_validates_against_the_schema_and_holds_the_texts_the_decision_saw(
    mem: Memory, tmp_path: Path
) -> None:
    first = mem.add("I live in Lisbon.", session_id="s1")
    lisbon = first.added[0]
    second = mem.add("I moved to Porto.", session_id="s1")
    records = export(mem, tmp_path, kinds=["write"])
    assert [r["kind"] for r in records] == ["write", "write"]
    record = records[1]
    assert [m["text"] for m in record["messages"]] == ["I moved to Porto."]
    assert record["messages"][0]["id"] == second.episodes[0].id and record["messages"][0]["role"] == "user"
    assert record["candidate"]["message_id"] == second.episodes[0].id
    assert record["candidate"]["quote"] in "I moved to Porto."
    assert [(n["id"], n["text"]) for n in record["neighbours"]] == [(lisbon["id"], "User lives in Lisbon.")]
    assert record["proposed"] == {
        "op": "UPDATE",
        "target_id": lisbon["id"],
        "text": "User moved to Porto.",
        "reason": "a new value for lives_in",
    }
    assert record["operation"] == "UPDATE" and record["guard"] is None and record["outcome"] == "updated"
    assert record["memory"] == {
        "id": second.updated[0]["id"],
        "text": "User moved to Porto.",
        "kind": "fact",
        "authority": "authorized",
        "status": "active",
    }
    assert records[0]["neighbours"] == [] and records[0]["proposed"]["op"] == "ADD"
    assert records[0]["memory"]["id"] == lisbon["id"] and records[0]["guard"] is None


def test_a_restatement_is_recorded_as_a_noop_on_the_memory_it_repeats(mem: Memory, tmp_path: Path) -> None:
    kept = mem.add("I am allergic to peanuts.").added[0]
    again = mem.add("I am allergic to peanuts.")
    assert again.unchanged and not again.added
    record = export(mem, tmp_path, kinds=["write"])[-1]
    assert record["operation"] == "NOOP" and record["outcome"] == "unchanged"
    assert record["memory"]["id"] == kept["id"] and record["target_id"] == kept["id"]
    assert record["neighbours"][0]["text"] == "User is allergic to peanuts."


def test_an_answer_record_holds_question_retrieved_texts_citations_answer_and_reward(
    mem: Memory, tmp_path: Path
) -> None:
    added = mem.add("I work as a nurse at the city hospital.").added[0]
    answer = mem.answer("What do I work as?")
    assert not answer.abstained
    mem.feedback(answer.trace_id, 1.0)
    mem.search("nurse")  # a search trace is no answer record
    records = export(mem, tmp_path)
    [rec] = [r for r in records if r["kind"] == "answer"]
    assert rec["id"] == answer.trace_id and rec["question"] == "What do I work as?"
    assert rec["answer"] == answer.text and rec["reward"] == 1.0 and rec["abstained"] is False
    texts = {r["id"]: r["text"] for r in rec["retrieved"]}
    assert texts[added["id"]] == added["text"]
    assert rec["cited_ids"] == [c.id for c in answer.cited] and added["id"] in rec["cited_ids"]
    # the reward reached the memory the write decision made: its record says so
    [write] = [r for r in records if r["kind"] == "write"]
    assert [(w["trace_id"], w["reward"]) for w in write["rewards"]] == [(answer.trace_id, 1.0)]


def test_since_and_kind_filter_the_export(mem: Memory, tmp_path: Path) -> None:
    mem.add("I like green tea.")
    mem.answer("Which tea do I like?")
    cut = datetime.now(UTC)
    mem.add("I like black coffee.")
    mem.answer("Which coffee do I like?")
    everything = export(mem, tmp_path, "all.jsonl")
    assert sorted(r["kind"] for r in everything) == ["answer", "answer", "write", "write"]
    writes = export(mem, tmp_path, "w.jsonl", kinds=["write"])
    answers = export(mem, tmp_path, "a.jsonl", kinds=["answer"])
    assert {r["kind"] for r in writes} == {"write"} and len(writes) == 2
    assert {r["kind"] for r in answers} == {"answer"} and len(answers) == 2
    later = export(mem, tmp_path, "later.jsonl", since=cut)
    assert [r.get("question") or r["candidate"]["text"] for r in later] == [
        everything[2].get("question") or everything[2]["candidate"]["text"],
        "Which coffee do I like?",
    ]
    assert "coffee" in later[0]["messages"][0]["text"]
    assert export(mem, tmp_path, "none.jsonl", since=datetime.now(UTC) + timedelta(days=1)) == []
    with pytest.raises(InvalidInputError):
        mem.export_training(tmp_path / "bad.jsonl", kinds=["search"])


def test_forget_erases_a_decision_records_text(mem: Memory, tmp_path: Path) -> None:
    secret = mem.add("My door code is 4242.").added[0]
    mem.add("I like oolong tea.", user_id="bob")  # another scope: it never saw the code
    assert any("4242" in json.dumps(r) for r in export(mem, tmp_path, "before.jsonl"))
    mem.forget(secret["id"])
    rows = store_of(mem).query("SELECT query, returned_ids, metadata FROM traces")
    assert rows and not any("4242" in " ".join(str(c) for c in row) for row in rows)
    after = export(mem, tmp_path, "after.jsonl")
    assert after and not any("4242" in json.dumps(r) for r in after)


def test_expiry_erases_a_decision_records_text(mem: Memory, tmp_path: Path) -> None:
    mem.add("Park in bay 17 today.", expires_in="1h")
    mem.add("I like oolong tea.", user_id="bob")
    mem.curation.expire(datetime.now(UTC) + timedelta(hours=2))
    rows = store_of(mem).query("SELECT query, metadata FROM traces")
    assert rows and not any("bay 17" in " ".join(str(c) for c in row) for row in rows)
    assert not any("bay 17" in json.dumps(r) for r in export(mem, tmp_path))


def test_a_rejected_or_withheld_value_never_reaches_the_export(mem: Memory, tmp_path: Path) -> None:
    berlin = mem.add("I live in Berlin.").added[0]
    mem.add("My favourite colour is green.")  # offered Berlin as a neighbour: left out with it
    mem.add("I like oolong tea.", user_id="bob")
    mem.review.reject(berlin["id"], "wrong")
    target = tmp_path / "t.jsonl"
    counts = mem.export_training(target)
    text = target.read_text(encoding="utf-8")
    assert "Berlin" not in text and "oolong" in text
    assert counts == {"write": 1, "answer": 0, "withheld": 2}


def test_a_write_record_takes_no_feedback_and_stays_out_of_the_trace_export(
    mem: Memory, tmp_path: Path
) -> None:
    mem.add("I like green tea.")
    [record] = export(mem, tmp_path, kinds=["write"])
    with pytest.raises(NotFoundError):
        mem.feedback(record["id"], 1.0)
    assert mem.export_trajectories(tmp_path / "traces.jsonl") == 0


@pytest.mark.e2e
def test_export_training_from_the_command_line_filters_and_says_it_is_plaintext(
    isolated_home: Path, tmp_path: Path
) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    assert run_cli("add", "I live in Lisbon.").returncode == 0
    assert run_cli("answer", "Where do I live?").returncode == 0
    target = tmp_path / "w.jsonl"
    proc = run_cli("export", "training", str(target), "--kind", "write", "--since", "2000-01-01")
    assert proc.returncode == 0, proc.stderr
    assert "PLAINTEXT" in proc.stderr and "0600" in proc.stderr and proc.stdout == ""
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    records = [json.loads(line) for line in target.read_text().splitlines()]
    assert [r["kind"] for r in records] == ["write"]
    VALIDATOR.validate(records[0])
    piped = run_cli("export", "training", "-", "--kind", "answer")
    assert piped.returncode == 0 and [json.loads(x)["kind"] for x in piped.stdout.splitlines()] == ["answer"]
    future = run_cli("export", "training", "-", "--since", "2999-01-01")
    assert future.returncode == 0 and future.stdout == ""


def test_forgetting_a_message_or_a_user_erases_the_decision_records_that_name_them(
    mem: Memory, tmp_path: Path
) -> None:
    first = mem.add("My locker number is 318.")
    mem.add("I like oolong tea.", user_id="bob")
    mem.add("I like rooibos tea.", user_id="carol")
    assert mem.forget_preview(first.episodes[0].id).traces == 1
    mem.forget(first.episodes[0].id)
    assert [r["user_id"] for r in export(mem, tmp_path, "a.jsonl")] == ["bob", "carol"]
    mem.forget("user:bob")
    assert [r["user_id"] for r in export(mem, tmp_path, "b.jsonl")] == ["carol"]
    assert not any("318" in str(row) for row in store_of(mem).query("SELECT query, metadata FROM traces"))
