"""Forget reaches what restates it: the assistant's echo, a tool's copy or a summary that repeats a
forgotten memory's value goes with it (in its session by default, in every session with
reach="everywhere"), and the plan lists each one before anything is erased."""

from __future__ import annotations

import json
from pathlib import Path

from support.fixtures import init_store, run_cli
from support.internals import store_of

from veramem_desktop.agent_access import AgentAccess, Identity
from veramem_desktop.memory import Memory


def _readme_example(mem: Memory, session: str = "chat-42") -> tuple[str, str, str]:
    """The README's SDK example: the user's fact and the assistant's echo in one add. Returns the
    user's memory id and the two episode ids."""
    added = mem.add(
        [
            {"role": "user", "content": "I moved to Lisbon in March."},
            {"role": "assistant", "content": "Noted: Lisbon since March."},
        ],
        session_id=session,
    )
    user_memory = next(a["id"] for a in added.added if a["text"].startswith("User"))
    return user_memory, added.episodes[0].id, added.episodes[1].id


def _found(mem: Memory, words: str) -> list[str]:
    hits = mem.search(words, route="dual", k=50).results
    return [h.text for h in hits if "lisbon" in h.text.lower()]


def _rows_holding(mem: Memory, word: str) -> int:
    store = store_of(mem)
    eps = store.query_one("SELECT count(*) FROM episodes WHERE content LIKE ?", (f"%{word}%",))[0]
    mems = store.query_one("SELECT count(*) FROM memory_items WHERE text LIKE ?", (f"%{word}%",))[0]
    return int(eps) + int(mems)


def test_forgetting_the_readme_fact_erases_the_assistants_echo_and_its_memory(mem: Memory) -> None:
    target, user_ep, echo_ep = _readme_example(mem)
    assert _found(mem, "Lisbon")
    plan = mem.forget_preview(target)
    assert plan.reach == "session"
    listed = {(r["kind"], r["id"]) for r in plan.restatements}
    assert ("episode", echo_ep) in listed
    echo_memories = [r for r in plan.restatements if r["kind"] == "memory"]
    assert echo_memories and all("Lisbon" in r["text"] for r in echo_memories)
    assert {user_ep, echo_ep} <= set(plan.episodes)
    report = mem.forget(target)
    assert report.erased_episodes == len(plan.episodes) and report.erased_memories == len(plan.memories)
    assert _found(mem, "Lisbon") == [] and _found(mem, "where do I live") == []
    assert _rows_holding(mem, "Lisbon") == 0
    assert mem.verify().ok


def test_forgetting_only_the_memory_is_still_possible_and_leaves_the_echo(mem: Memory) -> None:
    target, _, echo_ep = _readme_example(mem)
    plan = mem.forget_preview(target, reach="none")
    assert plan.restatements == [] and echo_ep not in plan.episodes
    mem.forget(target, reach="none")
    assert mem.reading.episode(echo_ep) is not None


def test_restatements_are_found_by_their_skeleton_however_they_are_spelled(mem: Memory) -> None:
    target, _, _ = _readme_example(mem)
    copies = mem.add(
        [
            {"role": "tool", "name": "notes", "content": "Profile: city = LISBON; since 2026-03."},
            {
                "role": "assistant",
                "content": "Got it, you now live in L\u0456sbon (moved in March).",
            },  # Cyrillic і
            {"role": "user", "content": "I also bought a bicycle."},
        ],
        session_id="chat-42",
    )
    plan = mem.forget_preview(target)
    restated = {r["id"] for r in plan.restatements}
    assert {copies.episodes[0].id, copies.episodes[1].id} <= restated
    assert copies.episodes[2].id not in plan.episodes  # a message that does not repeat it stays
    mem.forget(target)
    assert mem.reading.episode(copies.episodes[2].id) is not None
    assert (
        mem.reading.episode(copies.episodes[0].id) is None
        and mem.reading.episode(copies.episodes[1].id) is None
    )


def test_by_default_only_the_same_session_is_reached_and_everywhere_reaches_the_others(mem: Memory) -> None:
    target, _, echo_ep = _readme_example(mem)
    later = mem.add(
        [{"role": "assistant", "content": "Summary of last week: the user lives in Lisbon."}],
        session_id="weekly",
    )
    other_ep = later.episodes[0].id
    session_plan = mem.forget_preview(target)
    assert other_ep not in session_plan.episodes and echo_ep in session_plan.episodes
    everywhere = mem.forget_preview(target, reach="everywhere")
    assert {echo_ep, other_ep} <= set(everywhere.episodes)
    assert any(r["id"] == other_ep and r["session_id"] == "weekly" for r in everywhere.restatements)
    mem.forget(target, reach="everywhere")
    assert mem.reading.episode(other_ep) is None and _rows_holding(mem, "Lisbon") == 0


def test_another_users_words_are_never_reached(mem: Memory) -> None:
    target, _, _ = _readme_example(mem)
    bob = mem.add([{"content": "I moved to Lisbon too."}], user_id="bob", session_id="chat-42")
    plan = mem.forget_preview(target, reach="everywhere")
    assert bob.episodes[0].id not in plan.episodes
    assert not {a["id"] for a in bob.added} & set(plan.memories)
    mem.forget(target, reach="everywhere")
    assert mem.reading.episode(bob.episodes[0].id) is not None


def test_an_agents_forget_preview_lists_the_restatements_it_may_erase(mem: Memory) -> None:
    target, _, echo_ep = _readme_example(mem)
    preview = AgentAccess(mem, Identity("me", None)).forget_preview(target)
    assert any(r["id"] == echo_ep for r in preview["restatements"])
    assert json.dumps(preview)  # REST and MCP return this dict as JSON


def test_the_cli_preview_lists_each_restatement_before_asking(isolated_home: Path) -> None:
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    assert run_cli("config", "set", "llm.backend", "rule-based").returncode == 0
    messages = [
        {"role": "user", "content": "I moved to Lisbon in March."},
        {"role": "assistant", "content": "Noted: Lisbon since March."},
    ]
    added = run_cli("add", "-", "--session", "chat-42", "--json", input=json.dumps(messages))
    assert added.returncode == 0, added.stderr
    target = next(a["id"] for a in json.loads(added.stdout)["added"] if a["text"].startswith("User"))
    shown = run_cli("forget", target)  # no terminal: the plan is shown, nothing is erased
    assert "that repeat it in the same session" in shown.stdout
    assert "Noted: Lisbon since March." in shown.stdout
    assert run_cli("forget", target, "--everywhere", "--only-this").returncode == 2
    done = run_cli("forget", target, "--yes", "--json")
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)["plan"]
    assert plan["reach"] == "session" and any(r["kind"] == "episode" for r in plan["restatements"])
    assert "Lisbon" not in run_cli("search", "Lisbon", "--json").stdout


def test_forgetting_the_message_itself_also_reaches_the_echo(mem: Memory) -> None:
    _, user_ep, echo_ep = _readme_example(mem)
    plan = mem.forget_preview(user_ep)
    assert echo_ep in plan.episodes and any(r["id"] == echo_ep for r in plan.restatements)
    mem.forget(user_ep)
    assert _rows_holding(mem, "Lisbon") == 0 and mem.verify().ok
