"""Recall agrees with what the memory knows: each reproduction of the truth-aware recall issue,
through the SDK as a new user without a model would meet it."""

from __future__ import annotations

from datetime import UTC, datetime

from support.internals import engine_of

from veramem_desktop.bench.truth_section import holds
from veramem_desktop.memory import Memory


def _mem_id(mem: Memory, value: str, *, status: str | None = "active") -> str:
    return next(m.id for m in mem.memories(status=status, limit=200) if holds(m.text, value))


def test_a_corrected_home_ranks_above_the_message_it_replaced(rmem: Memory) -> None:
    rmem.add("I live in Berlin.")
    munich = rmem.add("I live in Munich now.").updated[0]["id"]
    hits = rmem.search("where do I live").results
    assert holds(hits[0].text, "Munich"), [h.text for h in hits]
    old = next(h for h in hits if h.kind == "episode" and holds(h.text, "Berlin"))
    assert old.state == "superseded" and old.superseded_by == munich and old.trust == "raw"
    assert hits.index(old) > 0


def test_the_assistants_echo_of_an_old_value_ranks_below_the_users_correction(rmem: Memory) -> None:
    rmem.add(
        [
            {"role": "user", "content": "I live in Berlin."},
            {"role": "assistant", "content": "Noted, you live in Berlin."},
        ]
    )
    rmem.add("I live in Munich now.")
    hits = rmem.search("where do I live").results
    first_munich = next(i for i, h in enumerate(hits) if holds(h.text, "Munich"))
    assert all(i > first_munich for i, h in enumerate(hits) if holds(h.text, "Berlin"))
    echo = next(h for h in hits if h.kind == "episode" and h.authority == "attested")
    assert echo.state == "superseded" and echo.derived  # it restates the replaced memory


def test_a_replaced_message_ranks_below_the_message_that_holds_now(rmem: Memory) -> None:
    """The current memory heads its subject; of the two messages, the one that still holds comes before the
    one it replaced, however much better the old one's words match."""
    rmem.add("My favourite editor is Vim.")
    rmem.add("I use the terminal a lot.")
    assert rmem.add("Actually my favourite editor is Emacs now.").updated
    hits = rmem.search("what is my favourite editor").results
    assert holds(hits[0].text, "Emacs") and hits[0].state == "current", [(h.state, h.text) for h in hits]
    now = next(i for i, h in enumerate(hits) if h.kind == "episode" and holds(h.text, "Emacs"))
    old = next(i for i, h in enumerate(hits) if h.kind == "episode" and holds(h.text, "Vim"))
    assert hits[old].state == "superseded" and hits[now].state == "current"
    assert now < old, [(h.state, h.text) for h in hits]


def test_a_rejected_value_is_not_answered_and_the_earlier_version_is_current_again(rmem: Memory) -> None:
    rmem.add("I live in Munich.")
    wrong = rmem.add("I live in Porlamo.").updated[0]["id"]
    done = rmem.review.reject(wrong, "never lived there")
    assert done.reinstated is not None and rmem.get(done.reinstated).status == "active"
    answer = rmem.answer("Where do I live?")
    assert "Porlamo" not in answer.text and "Munich" in answer.text
    assert not any(holds(h.text, "Porlamo") for h in answer.cited)
    hits = rmem.search("Porlamo", k=50)
    assert not any(holds(h.text, "Porlamo") for h in hits.results + hits.shared)


def test_a_person_sees_rejected_material_only_when_they_ask(rmem: Memory) -> None:
    wrong = rmem.add("I live in Porlamo.").added[0]["id"]
    rmem.review.reject(wrong)
    assert not any(holds(e.content, "Porlamo") for e in rmem.episodes())
    assert any(holds(e.content, "Porlamo") for e in rmem.episodes(include_rejected=True))
    shown = rmem.search("Porlamo", include_rejected=True).results
    assert shown and all(h.state == "rejected" for h in shown if holds(h.text, "Porlamo"))
    assert rmem.history(wrong) == [] and rmem.history(wrong, include_rejected=True)[0].trust == "rejected"
    # An agent never gets it, even when it asks.
    assert (
        not engine_of(rmem).search("Porlamo", rmem.caller(agent_id="cursor", include_rejected=True)).results
    )


def test_an_equivalent_memory_stored_before_the_rejection_is_retracted_with_it(rmem: Memory) -> None:
    mine = rmem.add("I live in Madrid.").added[0]["id"]
    tool = rmem.add(
        [{"role": "tool", "name": "crm", "content": "Home address on file: Calle Mayor 3, Madrid."}]
    ).added[0]["id"]
    done = rmem.review.reject(mine)
    assert tool in done.retracted and rmem.get(tool).status == "retracted"
    assert not any(holds(h.text, "Madrid") for h in rmem.search("where do I live", k=50).results)
    assert not any(holds(h.text, "Madrid") for h in rmem.search("home address", k=50).results)


def test_restatements_by_any_role_after_a_rejection_are_refused_and_never_recalled(rmem: Memory) -> None:
    wrong = rmem.add("I live in Porlamo.").added[0]["id"]
    rmem.review.reject(wrong)
    for message in (
        {"role": "user", "content": "I live in Porlamo."},
        {"role": "user", "content": "i live in PORLAMO"},
        {"role": "user", "content": "I live in P\u043erlamo."},  # Cyrillic o
        {"role": "user", "content": "I live in\tPorlamo."},
        {"role": "user", "content": "I reside in Porlamo."},
        {"role": "tool", "name": "crm", "content": "The user lives in Porlamo."},
        {"role": "document", "name": "notes.md", "content": "Home: Porlamo."},
        {"role": "assistant", "content": "Got it, you live in Porlamo."},
    ):
        result = rmem.add([message])
        assert not result.added and not result.updated, (message, result.added, result.updated)
    hits = rmem.search("where do I live Porlamo", k=50)
    assert not any(holds(h.text, "Porlamo") for h in hits.results + hits.shared)


def test_a_close_paraphrase_of_a_rejected_value_is_held_for_review_not_recalled(rmem: Memory) -> None:
    wrong = rmem.add("I live in Porlamo.").added[0]["id"]
    rmem.review.reject(wrong)
    result = rmem.add("I live in Porlammo.")  # a misspelling: not the same word, the same meaning
    held = [a for a in result.added if "resembles" in a["reason"]]
    assert held, result.added
    queue = {r.item.id: r.reason for r in rmem.review.queue()}
    assert "resembles a rejected value" in queue[held[0]["id"]]
    assert held[0]["id"] not in {h.id for h in rmem.search("where do I live", k=50).results}
    rmem.review.approve(held[0]["id"])  # a person decides it is not the rejected value
    assert held[0]["id"] in {h.id for h in rmem.search("where do I live", k=50).results}


def test_trust_labels_say_raw_for_messages_and_verified_only_after_a_person_approves(rmem: Memory) -> None:
    vim = rmem.add("My editor is Vim.").added[0]["id"]
    rmem.add([{"role": "tool", "name": "ide", "content": "Opened the project."}])
    before = {h.id: h for h in rmem.search("editor Vim project", route="dual", k=20).results}
    assert {h.trust for h in before.values() if h.kind == "episode"} == {"raw"}
    assert before[vim].trust == "candidate"
    rmem.review.approve(vim)
    after = {h.id: h for h in rmem.search("editor Vim", k=20).results}
    assert after[vim].trust == "verified" and after[vim].actionable


def test_repeated_tool_claims_never_outrank_the_users_approved_value(rmem: Memory) -> None:
    vim = rmem.add("My editor is Vim.").added[0]["id"]
    rmem.review.approve(vim)
    for _ in range(6):
        rmem.add([{"role": "tool", "name": "ide", "content": "The user's editor is Emacs."}])
    hits = rmem.search("which editor do I use").results
    assert hits[0].id == vim
    answer = rmem.answer("Which editor do I use?")
    assert answer.text.startswith("Your editor is Vim")
    assert "Emacs" not in answer.text or "tool ide" in answer.text  # attributed, never unattributed


def test_an_answer_states_the_current_value_once_with_what_it_replaced(rmem: Memory) -> None:
    rmem.add("I live in Porto.")
    rmem.add("I live in Madrid.")
    rmem.add([{"role": "assistant", "content": "You no longer live in Porto."}])
    text = rmem.answer("Where do I live?").text
    assert text.startswith("You live in Madrid")
    assert "before that, Porto" in text and text.count("Madrid") == 1


def test_an_answer_never_repeats_an_episode_and_its_own_memory(rmem: Memory) -> None:
    rmem.add("My dog is called Biscuit.")
    answer = rmem.answer("What is my dog called?")
    assert answer.text.count("Biscuit") == 1, answer.text
    assert len(answer.cited) == 1


def test_validity_is_the_time_of_the_message_that_changed_it(rmem: Memory) -> None:
    first = rmem.add(
        [{"role": "user", "content": "I live in Lisbon.", "time": "2024-01-10T09:00:00Z"}]
    ).added[0]["id"]
    rmem.add([{"role": "user", "content": "I live in Porto now.", "time": "2024-06-01T09:00:00Z"}])
    assert "Porto" in rmem.history(first, as_of="2024-09-01")[0].text
    assert "Lisbon" in rmem.history(first, as_of="2024-03-01")[0].text


def test_natural_language_time_bounds_filter_and_an_unreadable_one_is_reported(rmem: Memory) -> None:
    rmem.add(
        [
            {"role": "user", "content": "I visited Kyoto.", "time": "2024-01-10T09:00:00Z"},
            {"role": "user", "content": "I visited Oslo.", "time": "2024-05-10T09:00:00Z"},
        ]
    )
    since = rmem.search("what did I visit since March 2024").results
    assert any("Oslo" in h.text for h in since) and not any("Kyoto" in h.text for h in since)
    before = rmem.search("what did I visit before March 2024").results
    assert any("Kyoto" in h.text for h in before) and not any("Oslo" in h.text for h in before)
    recent = rmem.search("what did I visit in the last two weeks")
    assert not recent.results and not recent.notices  # read, and nothing is that recent
    odd = rmem.search("what did I visit since the blorp of zing")
    assert odd.notices and "blorp" in odd.notices[0] and odd.results


def test_last_summer_is_the_start_of_the_latest_summer_begun() -> None:
    from veramem_desktop.core.text.time_values import parse_bound

    now = datetime(2026, 11, 30, tzinfo=UTC)
    assert parse_bound("last summer", now) == datetime(2026, 6, 1, tzinfo=UTC)
    assert parse_bound("last summer", datetime(2026, 7, 15, tzinfo=UTC)) == datetime(2025, 6, 1, tzinfo=UTC)
    assert parse_bound("the last two weeks", now) == datetime(2026, 11, 16, tzinfo=UTC)
    assert parse_bound("the blorp of zing", now) is None


def test_reading_time_bounds_leaves_relative_dates_in_messages_resolved() -> None:
    """The bound parser shares the date module's number words ("a few", "a couple of")."""
    from veramem_desktop.core.text.relative_dates import resolve_relative_dates
    from veramem_desktop.core.text.time_values import parse_bound

    now = datetime(2026, 11, 30, tzinfo=UTC)
    assert resolve_relative_dates("I went there a few days ago.", now) == "I went there around 2026-11-27."
    assert parse_bound("the past few days", now) == datetime(2026, 11, 27, tzinfo=UTC)
    assert parse_bound("the last couple of weeks", now) == datetime(2026, 11, 16, tzinfo=UTC)


def test_an_answer_finds_the_current_value_asked_in_other_words_than_the_memorys(rmem: Memory) -> None:
    """ "Where do I live?" after "I moved to Yorkel.": the memory states lives_in, so it answers."""
    rmem.add("I live in Zanfen.")
    rmem.add("I moved to Yorkel.")
    text = rmem.answer("Where do I live?").text
    assert text.startswith("You moved to Yorkel") and "before that, Zanfen" in text


def test_the_truth_bench_counts_a_stale_value_ranked_first_as_a_failure() -> None:
    """The bench's metrics can fail: a stale value above the current one is counted, and so is a leak."""
    from veramem_desktop.bench.truth_section import _answer, _leak, _ranking, _Tally
    from veramem_desktop.bench.truth_set import Scenario

    sc = Scenario(
        "chain", "plain", "u", "home", "Where do I live?", [], "Munich", stale=["Berlin"], rejected="Porlamo"
    )
    t = _Tally()
    _ranking(t, "search", sc, ["I live in Berlin.", "User lives in Munich."])
    _leak(t, "search", sc, ["I live in P\u043erlamo."])
    _answer(t, "answer", sc, "You live in Berlin. Also Munich.", [])
    assert t.rate("search.current_at_1") == 0.0 and t.rate("search.stale_above_current") == 1.0
    assert t.rate("search.rejected_leak") == 1.0 and t.rate("answer.answer_current") == 0.0


def test_a_models_answer_sees_each_items_state_and_cannot_present_a_replaced_value_as_current(
    rmem: Memory,
) -> None:
    from veramem_desktop.core.llm import AnswerDraft, ContextItem, Reply
    from veramem_desktop.core.recall.answer import Answerer

    rmem.add("I live in Berlin.")
    rmem.add("I live in Munich now.")
    shown: list[tuple[list[ContextItem], str]] = []

    class StaleModel:
        """A model that answers from the replaced message only."""

        name = "scripted"

        def answer(self, question: str, items: list[ContextItem], fenced: str) -> Reply[AnswerDraft]:
            shown.append((list(items), fenced))
            stale = next(i.id for i in items if i.state == "superseded")
            return Reply(AnswerDraft("You live in Berlin.", (stale,), False, True))

    result = Answerer(engine_of(rmem), StaleModel()).answer("where do I live", rmem.caller())  # type: ignore[arg-type]
    items, fenced = shown[0]
    assert "state=superseded" in fenced and "state=current" in fenced
    assert any(i.state == "superseded" and i.superseded_by for i in items)
    assert result.abstained and not result.cited  # its only citation was refused
    assert any("no longer hold" in n for n in result.notices)


def test_in_the_demo_the_users_correction_ranks_above_the_assistants_echo(rmem: Memory) -> None:
    from veramem_desktop.demo import load_demo

    load_demo(rmem)
    hits = rmem.search("where do I live", k=20).results
    first = next(i for i, h in enumerate(hits) if "Porto" in h.text)
    assert first == 0 and hits[0].state == "current" and hits[0].authority == "authorized"


def test_a_change_in_other_words_still_puts_the_new_value_first(rmem: Memory) -> None:
    rmem.add("My editor is Vim.")
    rmem.add("I switched my editor to Helix.")
    rmem.add([{"role": "tool", "name": "crm", "content": "Editor: Vim"}])
    assert holds(rmem.search("Which editor do I use?").results[0].text, "Helix")
    text = rmem.answer("Which editor do I use?").text
    assert text.startswith("You switched your editor to Helix") and "before that, Vim" in text


def test_a_listed_memory_has_the_state_search_gives_it(rmem: Memory) -> None:
    """Memory.states (the TUI list's badges) reads the same rows through the same rule as search's truth
    stage: current, superseded, rejected, and held for resembling a rejected value."""
    old = rmem.add("My favourite editor is Vim.").added[0]["id"]
    new = rmem.add("Actually my favourite editor is Emacs now.").updated[0]["id"]
    wrong = rmem.add("I live in Porlamo.").added[0]["id"]
    rmem.review.reject(wrong)
    held = next(a["id"] for a in rmem.add("I live in Porlammo.").added if "resembles" in a["reason"])
    items = [rmem.get(i) for i in (old, new, wrong, held)]
    assert rmem.reading.states(items) == {old: "superseded", new: "current", wrong: "rejected", held: "held"}
    searched = {h.id: h.state for h in rmem.search("favourite editor", k=50, include_archived=True).results}
    assert searched[new] == "current" and searched.get(old, "superseded") == "superseded"
    rmem.review.approve(held)  # a person decides it is not the rejected value
    assert rmem.reading.states([rmem.get(held)]) == {held: "current"}
