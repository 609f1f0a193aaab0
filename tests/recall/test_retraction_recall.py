"""A value a message retracted never outranks what replaced it, and answers say what holds now.

"I no longer work at Acme; I'm consulting for Globex since last week." retracts the memory "User works at
Acme" (a new employer in its place, "I joined Globex", would be a new version of it instead);
recall then brings in the retracting message and the memory made from it, ranks them above the
retired message, labels that one with what retired it, and an answer states what holds now, cites
the retracting statement and gives the old value only as no longer holding. Rejections and
superseded versions behave as they did.
"""

from __future__ import annotations

from support.internals import engine_of
from veramem_desktop.core.recall import Hit

from veramem_desktop.bench.truth_section import holds
from veramem_desktop.memory import Memory

OLD = "I work at Acme as a data engineer."
RETRACTION = "I no longer work at Acme; I'm consulting for Globex since last week."


def _retracted(rmem: Memory, retraction: str = RETRACTION) -> tuple[str, str]:
    """The ids of the old message and of the message that retracted what was made from it."""
    old = rmem.add(OLD).episodes[0].id
    done = rmem.add(retraction)
    assert done.retracted, done  # the write path retracted the Acme memory
    return old, done.episodes[0].id


def _index(hits: list[Hit], hit_id: str) -> int:
    return next(i for i, h in enumerate(hits) if h.id == hit_id)


def test_a_retracted_message_is_not_first_and_ranks_below_the_statement_that_retracted_it(
    rmem: Memory,
) -> None:
    old, retraction = _retracted(rmem)
    hits = rmem.search("where do I work?").results
    assert hits[0].id != old and not holds(hits[0].text, "Acme as a data engineer"), [h.text for h in hits]
    stale = hits[_index(hits, old)]  # still in view, labelled
    assert stale.state == "retracted" and stale.retracted_by == retraction and stale.trust == "raw"
    assert _index(hits, retraction) < _index(hits, old)
    globex = hits[_index(hits, stale.superseded_by or "")]
    assert (
        globex.state == "current" and "Globex" in globex.text and _index(hits, globex.id) < _index(hits, old)
    )


def test_the_truth_stage_brings_in_the_retracting_statement_when_relevance_found_only_the_old_message(
    rmem: Memory,
) -> None:
    from datetime import UTC, datetime

    from veramem_desktop.core.recall import rank, truth

    old, retraction = _retracted(rmem)
    engine = engine_of(rmem)
    asked: list[str] = []

    def fetch(ids: list[str]) -> list[Hit]:  # as the engine's, without the access predicate
        asked.extend(ids)
        return rank.hydrate(engine.store, dict.fromkeys(ids, 0.0), {}, datetime.now(UTC), engine.config, None)

    alone = Hit(old, "episode", OLD, 1.0, "authorized", "raw")
    hits, groups = truth.annotate(engine.store, [alone], fetch)
    assert retraction in asked and any(i.startswith("mem_") for i in asked)
    ordered = truth.order(hits, groups)
    assert ordered[0].id != old and ordered[-1].id == old and alone.retracted_by == retraction
    assert {h.id: h.channels.get("truth") for h in ordered}[retraction] == 1


def test_an_answer_after_a_retraction_says_what_holds_now_and_cites_the_retracting_statement(
    rmem: Memory,
) -> None:
    old, retraction = _retracted(rmem)
    answer = rmem.answer("where do I work?")
    cited = [h.id for h in answer.cited]
    assert not answer.abstained and retraction in cited, answer.text
    assert answer.text.startswith("You are consulting for Globex"), answer.text
    # The old value comes after the current one, and only as no longer holding.
    assert answer.text.index("Globex") < answer.text.index("Acme")
    assert "before that, Acme, which no longer holds" in answer.text
    assert cited.index(retraction) < cited.index(old)


def test_an_answer_never_states_a_retracted_value_as_current_when_nothing_replaced_it(rmem: Memory) -> None:
    old, retraction = _retracted(rmem, "I don't work at Acme anymore.")
    hits = rmem.search("where do I work?").results
    assert hits[0].id == retraction and hits[0].state == "current"
    assert hits[_index(hits, old)].retracted_by == retraction
    answer = rmem.answer("where do I work?")
    assert not answer.text.startswith(OLD) and not answer.text.startswith("You work at Acme"), answer.text
    assert answer.text.startswith("You said on ") and "I don't work at Acme anymore." in answer.text
    assert answer.text.endswith("which no longer holds).") and [h.id for h in answer.cited][0] == retraction


def test_a_model_that_answers_from_the_retracted_message_alone_is_refused(rmem: Memory) -> None:
    from veramem_desktop.core.llm import AnswerDraft, ContextItem, Reply
    from veramem_desktop.core.recall.answer import Answerer

    old, retraction = _retracted(rmem)
    shown: list[tuple[list[ContextItem], str]] = []

    class StaleModel:
        """A model that answers from the retracted message only."""

        name = "scripted"

        def answer(self, question: str, items: list[ContextItem], fenced: str) -> Reply[AnswerDraft]:
            shown.append((list(items), fenced))
            return Reply(AnswerDraft(OLD, (old,), False, True))

    result = Answerer(engine_of(rmem), StaleModel()).answer("where do I work?", rmem.caller())  # type: ignore[arg-type]
    items, fenced = shown[0]
    assert f"retracted_by={retraction}" in fenced  # the model sees what retired it
    assert any(i.id == retraction for i in items)  # and the retracting message itself, to cite
    assert next(i for i in items if i.id == old).retracted_by == retraction
    assert result.abstained and not result.cited
    assert any(old in n and "no longer hold" in n for n in result.notices)


def test_a_superseded_version_still_ranks_and_answers_as_before(rmem: Memory) -> None:
    rmem.add("I live in Berlin.")
    munich = rmem.add("I live in Munich now.").updated[0]["id"]
    hits = rmem.search("where do I live").results
    assert hits[0].id == munich
    old = next(h for h in hits if h.kind == "episode" and holds(h.text, "Berlin"))
    assert old.state == "superseded" and old.superseded_by == munich and old.retracted_by is None
    text = rmem.answer("Where do I live?").text
    assert text.startswith("You live in Munich") and "before that, Berlin)" in text
    assert "no longer holds" not in text


def test_a_rejected_value_still_reaches_no_result_and_what_it_retracted_names_no_message(
    rmem: Memory,
) -> None:
    mine = rmem.add("I live in Madrid.").added[0]["id"]
    tool = rmem.add([{"role": "tool", "name": "crm", "content": "Home address on file: Madrid."}]).added[0][
        "id"
    ]
    done = rmem.review.reject(mine, "wrong")  # as `veramem review reject`
    assert tool in done.retracted
    for found in (rmem.search("where do I live", k=50), rmem.search("Madrid", k=50)):
        assert not any(holds(h.text, "Madrid") for h in found.results + found.shared)
    shown = rmem.search("Madrid", include_rejected=True).results
    assert shown and all(h.retracted_by is None for h in shown)
    answer = rmem.answer("Where do I live?")
    assert "Madrid" not in answer.text and not any(holds(h.text, "Madrid") for h in answer.cited)


def test_the_cli_shows_the_retracting_statement_first_and_names_it_on_the_retired_message(
    rmem: Memory,
) -> None:
    import re

    from support.fixtures import run_cli

    _retracted(rmem)  # the store is shared with the command, as with a running terminal app
    found = run_cli("search", "where do I work?")
    lines = [line for line in found.stdout.splitlines() if re.match(r"\s*\d+\. ", line)]
    assert lines and "Globex" in lines[0] and "Acme as a data engineer" not in lines[0], found.stdout
    assert "raw · retracted by ep_" in found.stdout
    said = run_cli("answer", "where do I work?").stdout
    assert said.startswith("You are consulting for Globex") and "which no longer holds" in said, said
