"""The web page in a real headless Chromium (Debian's, driven by Playwright): log in, search,
open a memory with its evidence highlighted, forget it. A screenshot of each step is saved
under the test's tmp folder (its path is printed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e


def test_log_in_search_open_evidence_and_forget_in_a_real_browser(
    mem: Any, live: Any, browser: Any, tmp_path: Path
) -> None:
    added = mem.add(
        [
            {
                "role": "user",
                "content": "Some small talk first. I moved to Lisbon in March. Then more small talk.",
            },
        ]
    )
    target = next(m for m in added.added if "Lisbon" in m["text"])
    shots = tmp_path / "screenshots"
    shots.mkdir()
    print(f"screenshots: {shots}")
    page = browser.new_page(viewport={"width": 1100, "height": 800})
    page.set_default_timeout(15_000)

    # 1. A wrong token is refused; the right one logs in.
    page.goto(live.url + "/")
    page.get_by_test_id("token").fill("wrong-token-wrong-token-wrong")
    page.get_by_test_id("login-button").click()
    page.get_by_role("alert").filter(has_text="Unauthorized").wait_for()
    page.get_by_test_id("token").fill(live.token)
    page.get_by_test_id("login-button").click()
    page.get_by_test_id("query").wait_for(state="visible")
    assert page.evaluate("sessionStorage.getItem('veramem-token')") == live.token
    page.screenshot(path=str(shots / "1-logged-in.png"), full_page=True)

    # 2. Search.
    page.get_by_test_id("query").fill("where did I move to?")
    page.get_by_test_id("search-button").click()
    result = page.locator(f"[data-testid=result][data-id='{target['id']}']")
    result.wait_for()
    page.screenshot(path=str(shots / "2-search.png"), full_page=True)

    # 3. Open the memory: its evidence is highlighted inside the source episode.
    result.click()
    page.get_by_test_id("detail-text").filter(has_text="Lisbon").wait_for()
    mark = page.get_by_test_id("evidence-mark")
    mark.wait_for()
    assert "moved to Lisbon in March" in mark.inner_text()
    episode_text = page.get_by_test_id("evidence").inner_text()
    assert "Some small talk first." in episode_text and "Then more small talk." in episode_text
    page.screenshot(path=str(shots / "3-detail-with-evidence.png"), full_page=True)

    # 4. Forget: the preview says what goes, cancel keeps it, confirm erases it.
    page.get_by_test_id("forget").click()
    preview = page.get_by_test_id("forget-preview")
    preview.wait_for(state="visible")
    assert target["id"] in preview.inner_text()
    page.screenshot(path=str(shots / "4-forget-preview.png"), full_page=True)
    page.get_by_test_id("cancel-forget").click()
    preview.wait_for(state="hidden")
    assert mem.get(target["id"]).id == target["id"]
    page.get_by_test_id("forget").click()
    page.get_by_test_id("confirm-forget").click()
    page.get_by_test_id("notice").filter(has_text="Forgotten").wait_for()
    assert page.locator(f"[data-testid=result][data-id='{target['id']}']").count() == 0
    page.screenshot(path=str(shots / "5-forgotten.png"), full_page=True)

    with live.client(headers=live.auth) as client:
        assert client.get(f"/v1/memories/{target['id']}").status_code == 404
    assert sorted(p.name for p in shots.iterdir()) == [
        "1-logged-in.png",
        "2-search.png",
        "3-detail-with-evidence.png",
        "4-forget-preview.png",
        "5-forgotten.png",
    ]
    page.close()


def test_recalled_text_is_shown_as_text_never_run_as_html(mem: Any, live: Any, browser: Any) -> None:
    mem.add("My note says <img src=x onerror=\"document.title='pwned'\"> and <b>bold</b> about Lisbon.")
    page = browser.new_page()
    page.set_default_timeout(15_000)
    page.goto(live.url + "/")
    page.get_by_test_id("token").fill(live.token)
    page.get_by_test_id("login-button").click()
    page.get_by_test_id("query").fill("my note about Lisbon")
    page.get_by_test_id("search-button").click()
    page.get_by_test_id("result").first.wait_for()
    assert "<img src=x" in page.get_by_test_id("results").inner_text()
    assert page.locator("#results img, #results b").count() == 0
    assert page.title() == "VeraMem"
    page.close()


def _logged_in(browser: Any, live: Any) -> Any:
    page = browser.new_page(viewport={"width": 1100, "height": 800})
    page.set_default_timeout(15_000)
    page.goto(live.url + "/")
    page.get_by_test_id("token").fill(live.token)
    page.get_by_test_id("login-button").click()
    page.get_by_test_id("query").wait_for(state="visible")
    return page


def test_a_script_tag_in_a_memory_shows_as_text_and_never_runs(mem: Any, live: Any, browser: Any) -> None:
    mem.add("My deploy note says <script>document.title='pwned'</script> about Lisbon.")
    page = _logged_in(browser, live)
    page.get_by_test_id("query").fill("deploy note about Lisbon")
    page.get_by_test_id("search-button").click()
    page.get_by_test_id("result").first.wait_for()
    assert "<script>document.title='pwned'</script>" in page.get_by_test_id("results").inner_text()
    page.get_by_test_id("result").first.click()
    page.get_by_test_id("detail-text").filter(has_text="<script>").wait_for()
    assert page.locator("#results script, #detail script, #evidence script").count() == 0
    assert page.title() == "VeraMem"
    page.close()


def test_escapes_and_bidi_overrides_in_a_memory_are_shown_as_visible_stand_ins(
    mem: Any, live: Any, browser: Any
) -> None:
    mem.add("The router in Lisbon reboots at noon.\x1b[2K\r\x1b[1A \u202eevil\u202c fine.")
    page = _logged_in(browser, live)
    page.get_by_test_id("query").fill("router in Lisbon reboots")
    page.get_by_test_id("search-button").click()
    page.get_by_test_id("result").first.wait_for()
    results = page.get_by_test_id("results").inner_text()
    assert "␛[2K␍␛[1A" in results and "\\u202eevil\\u202c" in results
    assert not any(ch in results for ch in "\x1b\r\u202e\u202c")
    page.get_by_test_id("result").first.click()
    page.get_by_test_id("detail-text").filter(has_text="Lisbon").wait_for()
    shown = page.get_by_test_id("detail-text").inner_text() + page.get_by_test_id("evidence").inner_text()
    assert not any(ch in shown for ch in "\x1b\u202e\u202c")
    page.close()


def test_the_page_applies_the_same_display_rules_as_the_cli_and_terminal_app(live: Any, browser: Any) -> None:
    from veramem_desktop.core.trust.display import visible

    samples = [
        "\x1b]0;title\x07 bell",
        "a\r\nb\u2028c\x85d",
        "over\rwrite\x0b\x0c",
        "csi\x9b31m del\x7f",
        "rtl\u202eevil\u202c iso\u2066x\u2069",
        "zw\u200bsp \u00ad \ufeff",
        "tag\U000e0041\U000e007f",
        "👩\u200d👩\u200d👧 می\u200cخواهم",
        "tab\there",
        "[bold]x[/bold] <b>y</b> 東京",
    ]
    page = browser.new_page()
    page.goto(live.url + "/")
    for multiline in (False, True):
        shown = page.evaluate("([texts, m]) => texts.map((t) => visible(t, m))", [samples, multiline])
        assert shown == [visible(s, multiline=multiline) for s in samples]
    page.close()


def test_the_page_shows_each_hits_state_and_trust_as_the_other_surfaces_do(
    mem: Any, live: Any, browser: Any
) -> None:
    """After Berlin → Munich: the current memory is badged "current", the replaced message "superseded"
    (struck through), and messages carry trust "raw"."""
    mem.add("I live in Berlin.")
    munich = mem.add("I live in Munich now.").updated[0]["id"]
    page = browser.new_page(viewport={"width": 1100, "height": 800})
    page.set_default_timeout(15_000)
    page.goto(live.url + "/")
    page.get_by_test_id("token").fill(live.token)
    page.get_by_test_id("login-button").click()
    page.get_by_test_id("query").fill("where do I live")
    page.get_by_test_id("search-button").click()
    first = page.get_by_test_id("result").first
    first.wait_for()
    assert first.get_attribute("data-id") == munich
    assert first.get_by_test_id("state").inner_text() == "current"
    states = page.get_by_test_id("state").all_inner_texts()
    assert "superseded" in states
    assert "raw" in page.get_by_test_id("results").inner_text()
