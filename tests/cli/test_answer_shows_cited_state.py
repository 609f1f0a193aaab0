"""`veramem answer` shows each cited item's state as `veramem search` shows it, so a superseded message
the answer cites (to say what was corrected) never reads as current."""

from __future__ import annotations

from support.fixtures import init_store, run_cli


def test_an_answer_citing_a_corrected_message_labels_it_superseded_as_search_does() -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    assert run_cli("config", "set", "llm.backend", "rule-based").returncode == 0
    assert run_cli("add", "I moved to Lisbon in March 2024.").returncode == 0
    assert run_cli("add", "Actually I moved to Porto, not Lisbon.").returncode == 0
    search = run_cli("search", "where do I live?").stdout
    answer = run_cli("answer", "where do I live?").stdout
    assert "Porto" in answer.splitlines()[0]
    cited = answer.split("Cited:")[1]
    for line in cited.splitlines():
        if line.startswith("  [") and "Lisbon" in line:
            lisbon_id = line.split("]")[0].strip(" [")
            break
    else:
        raise AssertionError(f"the Lisbon statement was not cited: {answer}")
    badge = "superseded by mem_"
    assert badge in cited.split(lisbon_id)[1].splitlines()[1]  # the line under the cited item
    assert badge in search.split(lisbon_id)[1].splitlines()[0]  # the same state in search
    assert "corrects 'Lisbon'" in cited
