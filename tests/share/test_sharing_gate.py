"""The sharing pipeline: eligibility, the PII and canary gate, provenance, and the action gate."""

from __future__ import annotations

import pytest
from veramem_desktop.core import items
from veramem_desktop.core.items import MemoryItem
from veramem_desktop.core.pii import canary_leaks, find_pii
from veramem_desktop.core.sharing import may_act_on

from veramem_desktop.memory import Memory


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("write to ana.silva@example.org for access", "email"),
        ("the office line is +351 912 345 678", "phone"),
        ("call 212-555-0199 after nine", "phone"),
        ("reception: (021) 555 0199", "phone"),
        ("pay with 4111 1111 1111 1111", "card-number"),
        ("card 5500-0000-0000-0004 on file", "card-number"),
        ("transfer to GB82 WEST 1234 5698 7654 32", "iban"),
        ("the NAS is at 192.168.1.20", "ip-address"),
        ("bind to 2001:db8::1", "ip-address"),
        ("open https://shop.example/cart?session=abc123", "url-with-query"),
        ("deliver to 221B Baker Street", "street-address"),
        ("meet at 1600 Pennsylvania Avenue", "street-address"),
    ],
)
def test_each_pii_class_is_caught(text: str, kind: str) -> None:
    assert kind in find_pii(text)


@pytest.mark.parametrize(
    "text",
    [
        "email is the best way to reach support",  # no address
        "the build number 4111 1111 1111 1112 failed",  # fails the Luhn check
        "GB82 WEST 1234 5698 7654 33",  # fails the IBAN checksum
        "upgrade to version 300.1.1.1",  # not an IP address
        "meeting at 10:40:00 sharp",  # a time, not IPv6
        "read https://docs.example/guide",  # a URL without a query
        "it took 10 steps and 3 tries",
        "the years 2019-2020 were busy",
        "score was 3-2 at half time",
        "room 12 34 56",  # too few digits for a phone
    ],
)
def test_near_misses_pass(text: str) -> None:
    assert find_pii(text) == []


def test_the_canary_catches_a_two_word_leak() -> None:
    private = ["User's favourite restaurant is Casa Pedro in the old town."]
    assert canary_leaks("## Dinner\nProcedure: book Casa Pedro early.", private)
    assert not canary_leaks("## Dinner\nProcedure: book the {slot_1} early.", private)


def _fact(mem: Memory, text: str, **fields: object) -> MemoryItem:
    emb = mem.embedder
    base: dict[str, object] = {"kind": "experience", "authority": "authorized", "user_id": "me", "shareable": True,
                               "successes": 3.0}
    base.update(fields)
    from veramem_desktop.core import index

    with mem.store.atomic() as conn:
        item = items.insert(conn, MemoryItem(id="", text=text, **base), [], device="d")  # type: ignore[arg-type]
        index.index_memory(conn, emb.name, item.id, text, emb.embed([text])[0])
    return item


def test_a_preference_is_never_shared(mem: Memory) -> None:
    pref = _fact(mem, "Prefers window seats on long flights.", kind="preference")
    report = mem.share_experiences()
    assert [r["id"] for r in report.refused] == [pref.id]
    assert "never shared" in report.refused[0]["reason"]


def test_consent_utility_and_kind_decide_eligibility(mem: Memory) -> None:
    no_consent = _fact(mem, "Descaling the kettle monthly keeps it quiet.", shareable=False)
    low = _fact(mem, "Soaking beans overnight halves cooking time.", successes=0.0, failures=3.0)
    about_me = _fact(mem, "User is allergic to peanuts.", kind="fact", subject="user")
    report = mem.share_experiences()
    reasons = {r["id"]: r["reason"] for r in report.refused}
    assert "consented" in reasons[no_consent.id]
    assert "utility" in reasons[low.id]
    assert "about the user" in reasons[about_me.id]
    assert not report.shared


def test_a_shared_copy_is_unendorsed_with_hmac_provenance_and_never_displaces_own_results(mem: Memory) -> None:
    tip = _fact(mem, "To pass airport security faster, keep liquids in one clear bag.")
    report = mem.share_experiences()
    (shared,) = report.shared
    copy = mem.get(shared["shared_id"])
    assert copy.authority == "unendorsed" and copy.visibility == "public" and copy.user_id is None
    assert copy.provenance and "me" not in copy.provenance.replace("hmac:", "")
    assert not may_act_on(copy) and may_act_on(tip)
    # another user sees it only in the labelled shared block
    other = mem.search("airport security liquids", user_id="bob")
    assert copy.id in {h.id for h in other.shared} and copy.id not in {h.id for h in other.results}
    # the owner's own result stays first and the copy does not displace it
    own = mem.search("airport security liquids", k=1)
    assert own.results[0].id == tip.id


def test_pii_and_canary_refusals_stay_local(mem: Memory) -> None:
    _fact(mem, "User hides the spare key under the blue flowerpot.", kind="fact", shareable=False)
    leaky = _fact(mem, "Before a long trip, leave the spare key under a blue flowerpot for the sitter.")
    pii = _fact(mem, "Book the cleaner by emailing clean@example.com a week ahead.")
    report = mem.share_experiences()
    reasons = {r["id"]: r["reason"] for r in report.refused}
    assert "private memories" in reasons[leaky.id]
    # the rule-based abstraction already replaced the address by a slot
    assert [s["id"] for s in report.shared] == [pii.id] and "clean@example.com" not in report.shared[0]["text"]
    # and when an abstraction leaves personal data in, the gate refuses it
    from veramem_desktop.core.sharing import Sharer

    class Verbatim:
        def abstract_experience(self, text: str) -> str:
            return text

    again = Sharer(mem.engine, mem.embedder, Verbatim(), device="d").share("me", only=[pii.id])  # type: ignore[arg-type]
    assert "email" in again.refused[0]["reason"] and not again.shared
    assert mem.store.query_one("SELECT count(*) FROM memory_items WHERE source = 'shared'")[0] == 1  # only the abstracted copy


def test_an_unendorsed_tool_memory_never_passes_the_action_gate(mem: Memory) -> None:
    item = mem.add([{"role": "tool", "name": "flights", "content": "Flight LX123 departs at 10:40 from gate B7."}])
    tool_item = mem.get(item.added[0]["id"])
    mem.approve(tool_item.id)
    assert not mem.may_act_on(mem.get(tool_item.id))
