"""Summaries and experiences follow what they were built on: revised or retired when a source is
superseded, rejected or forgotten, and a retired one is served by no search (issue 18, part 6 d)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from consolidation_support import entries, one, open_memory, rate, rows, searched_ids, sources
from veramem_desktop.core.llm import Reply
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

from veramem_desktop.memory import Memory


@pytest.fixture
def mem(isolated_home: Path) -> Iterator[Memory]:
    m = open_memory(isolated_home, linking=True)
    yield m
    m.close()


def _session(mem: Memory) -> list[str]:
    return [
        one(mem, "I work as a nurse at Lisbon General.", session_id="s1"),
        one(mem, "I moved to Porto in 2024.", session_id="s1"),
        one(mem, "My sister Maria lives in Madrid.", session_id="s1"),
    ]


def _summary(mem: Memory) -> str:
    [summary] = mem.consolidate().stages["summarise"].ids
    assert mem.organiser.wait_for_links()
    return summary


def _texts(mem: Memory, where: str) -> str:
    return " ".join(r[3] for r in rows(mem, where))


def test_a_summary_is_revised_when_a_source_is_superseded_and_the_old_one_is_not_served(mem: Memory) -> None:
    nurse, *_ = _session(mem)
    one(mem, "I have a cat named Tom.", session_id="s1")
    summary = _summary(mem)
    assert mem.get(nurse).status == "active"  # a summary restates its sources; it does not hide them
    teacher = one(mem, "I work as a teacher now.", session_id="s2")
    assert mem.get(nurse).status == "superseded"  # the update reached the summarised fact
    report = mem.consolidate()
    [revised] = report.stages["revise"].ids
    summarise = report.stages["summarise"]
    assert summarise.written == 0 and summarise.skipped["up_to_date"] == 1  # revised once, not written twice
    assert mem.get(summary).status == "superseded" and mem.get(revised).supersedes == summary
    assert "teacher" in mem.get(revised).text and "nurse" not in mem.get(revised).text
    assert teacher in sources(mem, revised) and nurse not in sources(mem, revised)
    assert any(f"{summary} revised as {revised}" in n for n in report.notices)
    assert summary not in searched_ids(mem, "nurse Lisbon General sister Porto")
    # current truth: no active summary or experience still says nurse
    assert "nurse" not in _texts(mem, "status = 'active'")
    assert mem.consolidate().stages["revise"].found == 0  # nothing left to revise


def test_a_summary_stating_a_rejected_value_leaves_search_at_once_and_is_written_again_without_it(
    mem: Memory,
) -> None:
    _session(mem)
    cat = one(mem, "I have a cat named Tom.", session_id="s1")
    maria = rows(mem, "text LIKE '%Maria%' AND kind = 'fact'")[0][0]
    summary = _summary(mem)
    assert summary in searched_ids(mem, "Maria Madrid sister") and cat in sources(mem, summary)
    mem.review.reject(maria, "she moved away")
    assert mem.get(summary).status == "retracted"  # it states the rejected value: retracted with it
    assert summary not in searched_ids(mem, "Maria Madrid sister")
    [again] = mem.consolidate().stages["summarise"].ids  # three sources still stand
    assert maria not in sources(mem, again) and "Madrid" not in mem.get(again).text
    assert "Madrid" not in _texts(mem, "status IN ('active', 'archived') AND trust != 'rejected'")


class ParaphrasingLLM(RuleBasedLLM):
    """Rule-based, except that summaries and abstractions reword instead of quoting (as a model
    does), so a rejected value's words are not in them and only their sources tell."""

    def summarise(self, texts: Sequence[str]) -> Reply[str]:
        return Reply(f"A session of {len(texts)} things the person said about their life.")

    def abstract_experience(self, text: str) -> Reply[str]:
        return Reply(
            "## Answering a question about the person\nApplies when: the person asks about themselves\n"
            "Inputs: none\nProcedure: 1. Look up what they said. 2. Answer from it.\nCaution: none"
        )


@pytest.fixture
def pmem(isolated_home: Path) -> Iterator[Memory]:
    m = open_memory(isolated_home, llm=ParaphrasingLLM(), linking=True)
    yield m
    m.close()


def test_a_summary_left_with_too_few_sources_by_a_rejection_is_retired_and_never_searched(
    pmem: Memory,
) -> None:
    mem = pmem
    nurse, porto, maria = _session(mem)
    summary = _summary(mem)
    assert summary in searched_ids(mem, "A session of things the person said")
    mem.review.reject(maria, "she moved away")
    assert (
        mem.get(summary).status == "active"
    )  # its words do not show the rejected value: only its sources do
    report = mem.consolidate()
    assert report.stages["revise"].ids == [summary] and report.stages["summarise"].written == 0
    retired = mem.get(summary)
    assert (
        retired.status == "retracted"
        and retired.valid_to is not None
        and "rejected" in retired.metadata["retired"]
    )
    [entry] = entries(mem, "memory.retire", summary)
    assert entry.details["status"] == "retracted"
    # Maria's message states two attributes (the relation, and Maria's home): the rejection withholds
    # both of its memories, and the notice may name either
    said_by_maria = {r[0] for r in rows(mem, "text LIKE '%Madrid%' AND kind = 'fact'")} | {maria}
    assert any(
        n.startswith(f"summary {summary} retired: its source") and f"{source} rejected" in n
        for source in said_by_maria
        for n in report.notices
    ), report.notices
    assert summary not in searched_ids(mem, "A session of things the person said")  # archived included
    assert mem.get(nurse).status == mem.get(porto).status == "active"
    assert mem.consolidate().stages["revise"].found == 0  # retired for good, not written again


def test_an_experience_is_revised_when_its_source_is_superseded_and_retired_when_none_stands(
    pmem: Memory,
) -> None:
    mem = pmem
    nurse, porto, _ = _session(mem)
    rate(mem, "What do I work as?", [nurse, porto], times=2)
    [experience] = mem.consolidate().stages["distil"].ids
    teacher = one(mem, "I work as a teacher now.", session_id="s2")
    report = mem.consolidate()
    [new] = [i for i in report.stages["revise"].ids if mem.get(i).kind == "experience"]
    assert mem.get(new).supersedes == experience and mem.get(experience).status == "superseded"
    assert mem.get(new).metadata["support"] == 2 and sources(mem, new) == {porto, teacher}
    mem.review.reject(porto)
    mem.review.reject(teacher)  # nothing the experience was built on stands now
    assert mem.get(new).status == "active"
    report = mem.consolidate()
    assert new in report.stages["revise"].ids and mem.get(new).status == "retracted"
    assert new not in searched_ids(mem, "What do I work as?")


def test_forgetting_a_source_leaves_no_summary_or_experience_holding_its_words(mem: Memory) -> None:
    nurse, porto, maria = _session(mem)
    rate(mem, "Where does my sister live?", [maria, porto], times=2)
    first = mem.consolidate()
    assert first.stages["summarise"].written == 1 and first.stages["distil"].written == 1
    one(mem, "I work as a teacher now.", session_id="s2")
    mem.consolidate()  # the summary and the experience now have two versions each
    assert len(rows(mem, "kind IN ('summary', 'experience')")) >= 3
    assert "Maria" in _texts(mem, "kind IN ('summary', 'experience')")
    mem.forget(maria)
    assert "Maria" not in _texts(mem, "1") and "Madrid" not in _texts(mem, "1")  # every version, every status
    assert rows(mem, "kind IN ('summary', 'experience') AND status = 'active'") == []
    assert not searched_ids(mem, "Maria Madrid sister") & {r[0] for r in rows(mem, "kind = 'summary'")}
    # the rest is summarised again at the next run, without the forgotten words
    mem.consolidate()
    assert "Maria" not in _texts(mem, "1")
