"""A redaction reaches every synced device: the other device erases the old message, keeps the
redacted one and the sibling memory on it, and holds the removed sentence nowhere (rows or folder).
Real encrypted stores and the real sync engine, as the end-to-end sync tests use them."""

from __future__ import annotations

import sys
from pathlib import Path

_SYNC_E2E = str(Path(__file__).resolve().parents[1] / "sync_e2e")
if _SYNC_E2E not in sys.path:
    sys.path.insert(0, _SYNC_E2E)

from sync_e2e_helpers import USER, all_rows_text, converge, folder_plaintext, make_devices  # noqa: E402
from veramem_desktop.core.lifecycle import forget as forget_mod  # noqa: E402
from veramem_desktop.core.storage import episodes, items, ledger_verify  # noqa: E402
from veramem_desktop.core.storage.episodes import EpisodeInput, Scope  # noqa: E402
from veramem_desktop.core.storage.items import Evidence, MemoryItem  # noqa: E402

TEXT = "Ana is visiting on qxzsaturday. She is allergic to peanuts."


def test_a_redaction_converges_on_the_other_device(tmp_path: Path) -> None:
    a, b = make_devices(tmp_path, ["a", "b"])
    try:
        with a.store.atomic() as conn:
            ep = episodes.insert(
                conn,
                [EpisodeInput(content=TEXT)],
                Scope(user_id=USER, session_id="s"),
                device=a.ledger_device,
            )[0]
            first, second = TEXT.split(". ")
            first += "."
            start = TEXT.index(second)
            visit = items.insert(
                conn,
                MemoryItem(
                    id="",
                    kind="fact",
                    text="Ana is visiting on qxzsaturday.",
                    authority="authorized",
                    user_id=USER,
                ),
                [Evidence(ep.id, first, 0, len(first), 1.0, "user")],
                device=a.ledger_device,
            ).id
            allergy = items.insert(
                conn,
                MemoryItem(
                    id="",
                    kind="fact",
                    text="Ana is allergic to peanuts.",
                    authority="authorized",
                    user_id=USER,
                ),
                [Evidence(ep.id, second, start, start + len(second), 1.0, "user")],
                device=a.ledger_device,
            ).id
        converge([a, b])
        assert b.store.query_one("SELECT 1 FROM episodes WHERE id = ?", (ep.id,)) is not None

        report = forget_mod.forget(a.store, visit, device=a.ledger_device, redact=True)
        assert len(report.redacted) == 1
        new_ep = report.redacted[0]
        converge([a, b])

        for device in (a, b):
            store = device.store
            assert store.query_one("SELECT 1 FROM episodes WHERE id = ?", (ep.id,)) is None
            assert store.query_one("SELECT 1 FROM memory_items WHERE id = ?", (visit,)) is None
            content = store.query_one("SELECT content FROM episodes WHERE id = ?", (new_ep,))
            assert content is not None and content[0] == "She is allergic to peanuts."
            assert store.query_one("SELECT status FROM memory_items WHERE id = ?", (allergy,))[0] == "active"
            cited = {
                r[0] for r in store.query("SELECT episode_id FROM evidence WHERE memory_id = ?", (allergy,))
            }
            assert cited == {new_ep}, device.name
            assert "qxzsaturday" not in all_rows_text(store), device.name
            assert ledger_verify.verify(store).ok, device.name
        for device in (a, b):
            assert not any("qxzsaturday" in text for text in folder_plaintext(device))
    finally:
        a.store.close()
        b.store.close()
