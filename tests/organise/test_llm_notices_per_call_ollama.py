"""Issue 20's reproduction: the model's notices sat in a list on the backend, shared with the
linker, so an add reported what the linker's model calls had gone through. Each call's notices
now come back with its own reply: an add says what happened to its own calls, nothing else.
Against a real HTTP server on 127.0.0.1 speaking the Ollama API."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from support.fake_embedder import HashEmbedder
from support.fake_ollama import FakeOllama, FromRequest, JsonContent, RawContent, running_fake_ollama
from support.fixtures import PASSPHRASE
from veramem_desktop.models.llm.fallback import FallbackLLM
from veramem_desktop.models.llm.json_backend import JsonLLM
from veramem_desktop.models.llm.ollama import OllamaTransport

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory

# message → the memory a model makes of it; the first two are alike enough to be linked
SAID = {
    "I play tennis with Tom on Sundays.": "User plays tennis with Tom on Sundays.",
    "I play tennis with Ann on Sundays.": "User plays tennis with Ann on Sundays.",
    "I keep bees in the garden.": "User keeps bees in the garden.",
}


def _prompt(request: dict[str, Any]) -> str:
    return " ".join(str(m.get("content", "")) for m in request.get("messages", []))


def _reply(request: dict[str, Any]) -> Any:
    """Extraction cites the message whole, reconciliation adds, and every link question gets junk."""
    properties = request["format"]["properties"]
    if "memories" in properties:
        [message_id] = properties["memories"]["items"]["properties"]["message_id"]["enum"]
        said = next(m for m in SAID if m in _prompt(request))
        memory = {"message_id": message_id, "quote": said, "text": SAID[said], "kind": "fact"}
        return JsonContent({"memories": [memory]})
    if "op" in properties:
        return JsonContent({"op": "ADD", "target_id": None, "text": None, "reason": "new"})
    return RawContent("not a link verdict")


def _link_requests(server: FakeOllama) -> int:
    return sum("type" in r.body["format"]["properties"] for r in server.chat_requests)


def test_an_add_never_reports_the_notices_of_the_background_linkers_model_calls(isolated_home: Path) -> None:
    config = Config()
    config.organise.linking = True
    with running_fake_ollama() as server:
        server.script(*[FromRequest(_reply)] * 30)
        llm = FallbackLLM(JsonLLM(OllamaTransport(server.url, "llama3.2", timeout=5), retries=0))
        mem, _ = Memory.create(
            isolated_home,
            passphrase=PASSPHRASE,
            use_keyring=False,
            config=config,
            embedder=HashEmbedder(),
            llm=llm,
        )
        try:
            first, second, third = list(SAID)
            assert mem.add(first).added and mem.add(second).added
            deadline = time.monotonic() + 20
            while (
                mem.organiser.links_pending() and time.monotonic() < deadline
            ):  # the linker is done with both
                time.sleep(0.02)
            assert mem.organiser.links_pending() == 0
            assert _link_requests(server) >= 1, "the linker asked the model (and got junk)"
            result = mem.add(third)
            assert result.added and result.notices == [], result.notices  # not the linker's
        finally:
            mem.close()


def test_an_adds_own_fallback_is_reported_with_that_add(isolated_home: Path) -> None:
    config = Config()
    config.organise.linking = False
    with running_fake_ollama() as server:
        server.script(RawContent("no JSON here"), *[FromRequest(_reply)] * 5)  # the first extraction fails
        llm = FallbackLLM(JsonLLM(OllamaTransport(server.url, "llama3.2", timeout=5), retries=0))
        mem, _ = Memory.create(
            isolated_home,
            passphrase=PASSPHRASE,
            use_keyring=False,
            config=config,
            embedder=HashEmbedder(),
            llm=llm,
        )
        try:
            result = mem.add("I keep bees in the garden.")
            [notice] = [n for n in result.notices if "Used the rule-based result instead." in n]
            assert notice.startswith("ollama:llama3.2 extract: ") and "no JSON object" in notice
            assert result.added  # the rule-based extraction's memory
            later = mem.add("I play tennis with Tom on Sundays.")  # the model answers this time
            assert later.added and not [n for n in later.notices if "rule-based" in n], later.notices
        finally:
            mem.close()
