"""The sharing pipeline: eligibility, the PII and canary gate, provenance, and the action gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.fixtures import init_store, run_cli
from support.internals import embedder_of, engine_of, store_of
from veramem_desktop.core.lifecycle.sharing import may_act_on
from veramem_desktop.core.storage import items
from veramem_desktop.core.storage.items import MemoryItem
from veramem_desktop.core.trust.pii import canary_leaks, find_pii

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
    emb = embedder_of(mem)
    base: dict[str, object] = {
        "kind": "experience",
        "authority": "authorized",
        "user_id": "me",
        "shareable": True,
        "successes": 3.0,
    }
    base.update(fields)
    from veramem_desktop.core.storage import index

    with store_of(mem).atomic() as conn:
        item = items.insert(conn, MemoryItem(id="", text=text, **base), [], device="d")  # type: ignore[arg-type]
        index.index_memory(conn, emb.name, item.id, text, emb.embed([text])[0])
    return item


def test_a_preference_is_never_shared(mem: Memory) -> None:
    pref = _fact(mem, "Prefers window seats on long flights.", kind="preference")
    report = mem.curation.share()
    assert [r["id"] for r in report.refused] == [pref.id]
    assert "never shared" in report.refused[0]["reason"]


def test_consent_utility_and_kind_decide_eligibility(mem: Memory) -> None:
    no_consent = _fact(mem, "Descaling the kettle monthly keeps it quiet.", shareable=False)
    low = _fact(mem, "Soaking beans overnight halves cooking time.", successes=0.0, failures=3.0)
    about_me = _fact(mem, "User is allergic to peanuts.", kind="fact", subject="user")
    report = mem.curation.share()
    reasons = {r["id"]: r["reason"] for r in report.refused}
    assert "consented" in reasons[no_consent.id]
    assert "utility" in reasons[low.id]
    assert "about the user" in reasons[about_me.id]
    assert not report.shared


def test_a_shared_copy_is_unendorsed_with_hmac_provenance_and_never_displaces_own_results(
    mem: Memory,
) -> None:
    tip = _fact(mem, "To pass airport security faster, keep liquids in one clear bag.")
    report = mem.curation.share()
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
    report = mem.curation.share()
    reasons = {r["id"]: r["reason"] for r in report.refused}
    assert "private memories" in reasons[leaky.id]
    # the rule-based abstraction already replaced the address by a slot
    assert [s["id"] for s in report.shared] == [pii.id] and "clean@example.com" not in report.shared[0][
        "text"
    ]
    # and when an abstraction leaves personal data in, the gate refuses it
    from veramem_desktop.core.lifecycle.sharing import Sharer
    from veramem_desktop.core.llm import Reply

    class Verbatim:
        def abstract_experience(self, text: str) -> Reply[str]:
            return Reply(text)

    again = Sharer(engine_of(mem), embedder_of(mem), Verbatim(), device="d").share("me", only=[pii.id])  # type: ignore[arg-type]
    assert "email" in again.refused[0]["reason"] and not again.shared
    assert (
        store_of(mem).query_one("SELECT count(*) FROM memory_items WHERE source = 'shared'")[0] == 1
    )  # only the abstracted copy


def test_an_unendorsed_tool_memory_never_passes_the_action_gate(mem: Memory) -> None:
    item = mem.add(
        [{"role": "tool", "name": "flights", "content": "Flight LX123 departs at 10:40 from gate B7."}]
    )
    tool_item = mem.get(item.added[0]["id"])
    mem.review.approve(tool_item.id)
    assert not mem.curation.may_act_on(mem.get(tool_item.id))


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The office wifi password is hunter2.", "password"),
        ("The wifi password is swordfish.", "password"),
        ("db password: Tr0ub4dor&3", "password"),
        ("the door PIN code is 4821", "pin"),
        ("The deploy token is Zx8Qw2Lp9Rt4Vb7Nm3Kd", "token"),
        ('set api_key = "sk-abc123def456ghi789" in the config', "password"),
        ("The CI uses AKIAIOSFODNN7EXAMPLE for uploads", "aws-access-key"),
        ("push with ghp_1234567890abcdefghijklmnopqrstuvwxyzAB", "github-token"),
        ("the bot runs as xoxb-123456789012-1234567890123-abcdefABCDEFabcdef123456", "slack-token"),
        ("charge through sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe-access-key"),
        ("connect to postgres://admin:s3cretPa55@db.example.com/prod", "basic-auth-credentials"),
        ("paste -----BEGIN RSA PRIVATE KEY----- into the box", "private-key"),
        (
            "the session cookie is eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "json-web-token",
        ),
        ("the signing seed 3q2+7w8mZkF1xT9vR0pL4sN6uY2hJ5bCk", "high-entropy-string"),
    ],
)
def test_each_secret_kind_is_caught_and_named(text: str, kind: str) -> None:
    from veramem_desktop.core.lifecycle.sharing import gate
    from veramem_desktop.core.trust.secret_scan import find_secrets

    assert kind in find_secrets(text)
    reason = gate(text, [])
    assert reason is not None and reason.startswith("secret found:") and kind in reason


@pytest.mark.parametrize(
    "text",
    [
        "The password is required to unlock the laptop.",
        "A strong password is long and unique.",
        "The password is stored in the team vault.",
        "Rotate the API key every 90 days.",
        "Keep tokens out of logs.",
        "The secret is patience.",
        "The login page is at the top right.",
        "Applies when: a task like this one: the password is {slot_2}.",
        "To pass airport security faster, keep liquids in one clear bag.",
        "Restarting the service fixes stale caches after an upgrade.",
    ],
)
def test_prose_about_secrets_without_one_is_not_refused(text: str) -> None:
    from veramem_desktop.core.trust.secret_scan import find_secrets

    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "my SSN is 536-90-4399",  # US, python-stdnum us.ssn
        "DNI 54362315K",  # Spain
        "codice fiscale RCCMNL83S18D969H",  # Italy
        "CPF 390.533.447-05",  # Brazil
        "Aadhaar 2341 2341 2346",  # India (Verhoeff)
        "NIR 2 95 10 99 126 111 93",  # France
        "AHV 756.1234.5678.97",  # Switzerland
        "NHS number 943 476 5919",  # UK
        "passport number X1234567",  # introduced as an identity document
    ],
)
def test_national_identifiers_are_caught(text: str) -> None:
    assert "national-id" in find_pii(text)


@pytest.mark.parametrize(
    "text",
    [
        "the years 2019-2020 were busy",  # a Danish number in shape, a range of years in fact
        "dates 2024-03-05 and 12-05-2023",
        "Order 123456789 shipped",
        "ticket 87654321",
        "invoice 2023-001234",
        "ref 2345 6789",
        "DNI 54362315A",  # wrong check letter
    ],
)
def test_numbers_that_are_not_phones_or_identifiers_pass(text: str) -> None:
    assert find_pii(text) == []


def test_an_identifier_failing_its_checksum_is_not_an_identifier() -> None:
    assert "national-id" not in find_pii("specimen 078-05-1120")  # the famous invalid US SSN
    assert "national-id" in find_pii("specimen 536-90-4399")


@pytest.mark.parametrize("number", ["+45 20 19 20 20", "030 12345678", "+1 (415) 555-2671"])
def test_phone_numbers_are_checked_against_their_numbering_plan(number: str) -> None:
    assert "phone" in find_pii(f"call {number} tomorrow")


def test_share_consent_refuses_a_stated_wifi_password_and_names_the_kind(mem: Memory) -> None:
    """The reproduction of issue 16: `share --consent` published the office wifi password to every user."""
    tip = _fact(mem, "The office wifi password is hunter2.", kind="fact", subject="office wifi")
    report = mem.curation.share()
    assert not report.shared and [r["id"] for r in report.refused] == [tip.id]
    assert report.refused[0]["reason"] == "secret found: password"
    assert store_of(mem).query_one("SELECT count(*) FROM memory_items WHERE source = 'shared'")[0] == 0
    assert mem.search("office wifi password", user_id="bob").shared == []


def test_a_secret_in_the_source_is_refused_even_when_the_abstraction_hides_it(mem: Memory) -> None:
    from veramem_desktop.core.lifecycle.sharing import Sharer
    from veramem_desktop.core.llm import Reply

    class Paraphrase:
        def abstract_experience(self, text: str) -> Reply[str]:
            return Reply("Procedure: connect to the office network with the usual credentials.")

    item = _fact(mem, "Connect to the office network with password Tr0ub4dor&3 at the door.")
    report = Sharer(engine_of(mem), embedder_of(mem), Paraphrase(), device="d").share("me", only=[item.id])  # type: ignore[arg-type]
    assert not report.shared and "password" in report.refused[0]["reason"]


def test_share_consent_through_the_cli_keeps_the_wifi_password_local(isolated_home: Path) -> None:
    """Issue 16, as a person ran it: `veramem share --consent ID` on "The office wifi password is hunter2."."""
    init_store()  # what `veramem init` makes, copied (tests/support/fixtures.py)
    assert run_cli("config", "set", "llm.backend", "rule-based").returncode == 0
    added = json.loads(run_cli("add", "The office wifi password is hunter2.", "--json").stdout)
    memory_id = added["added"][0]["id"]
    proc = run_cli("share", "--consent", memory_id, "--json")
    report = json.loads(proc.stdout)
    assert proc.returncode == 0 and report["shared"] == []
    assert report["refused"] == [{"id": memory_id, "reason": "secret found: password"}]
    found = json.loads(run_cli("search", "office wifi password", "--user", "bob", "--json").stdout)
    assert found["shared"] == [] and found["results"] == []


def test_without_its_secret_detectors_the_gate_shares_nothing() -> None:
    """A build that lost detect-secrets' plugins must fail closed, not share unchecked text."""
    from veramem_desktop.core.lifecycle.sharing import gate
    from veramem_desktop.core.trust.secret_scan import SecretScanner

    crippled = SecretScanner()
    crippled._plugins, crippled.ready = [], False
    reason = gate("Descaling the kettle monthly keeps it quiet.", [], scanner=crippled)
    assert reason is not None and "unavailable" in reason
    assert SecretScanner().ready


def test_no_secret_or_personal_data_kind_reaches_the_pool(mem: Memory) -> None:
    """One shareable experience per kind, abstracted verbatim (the worst case): none is shared, and
    each refusal names the kind it found."""
    from veramem_desktop.core.lifecycle.sharing import Sharer
    from veramem_desktop.core.llm import Reply

    class Verbatim:
        def abstract_experience(self, text: str) -> Reply[str]:
            return Reply(text)

    samples = {
        "password": "Join the office network; the wifi password is hunter2.",
        "aws-access-key": "Upload nightly builds with key AKIAIOSFODNN7EXAMPLE to the bucket.",
        "github-token": "Push release tags with ghp_1234567890abcdefghijklmnopqrstuvwxyzAB from CI.",
        "private-key": "Paste -----BEGIN RSA PRIVATE KEY----- into the deploy settings.",
        "basic-auth-credentials": "Back up with pg_dump postgres://admin:s3cretPa55@db.example.com/prod nightly.",
        "high-entropy-string": "Sign webhooks with the seed 3q2+7w8mZkF1xT9vR0pL4sN6uY2hJ5bCk always.",
        "email": "Book the cleaner by emailing clean@example.com a week ahead.",
        "phone": "Book the cleaner by calling +351 912 345 678 a week ahead.",
        "card-number": "Pay the cleaner with card 4111 1111 1111 1111 after each visit.",
        "iban": "Pay the cleaner to GB82 WEST 1234 5698 7654 32 after each visit.",
        "national-id": "Fill the visa form with SSN 536-90-4399 in box four.",
        "ip-address": "Reach the printer admin page at 192.168.1.20 from the office.",
        "street-address": "Drop the parcels at 221B Baker Street before noon.",
        "url-with-query": "Track the order at https://shop.example/orders?customer=4821 weekly.",
    }
    ids = {kind: _fact(mem, text).id for kind, text in samples.items()}
    report = Sharer(engine_of(mem), embedder_of(mem), Verbatim(), device="d").share("me")  # type: ignore[arg-type]
    assert report.shared == [] and report.merged == []
    reasons = {r["id"]: r["reason"] for r in report.refused}
    for kind, memory_id in ids.items():
        assert kind in reasons[memory_id], (kind, reasons[memory_id])
    assert store_of(mem).query_one("SELECT count(*) FROM memory_items WHERE source = 'shared'")[0] == 0
