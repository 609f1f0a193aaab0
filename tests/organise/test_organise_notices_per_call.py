"""An add or an import reports its own model notices only, never those of the background linker,
which shares the same backend (issue 20: the notices used to sit in one list the backend kept, so the
next add drained what the linker had left there)."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path

from support.fake_embedder import HashEmbedder
from veramem_desktop.core.llm import Candidate, Capabilities, LinkVerdict, Message, Notice, Reply
from veramem_desktop.models.llm.rule_based import RuleBasedLLM

from veramem_desktop.memory import Memory

PASSPHRASE = "correct horse battery staple"
LINKER_SAYS = "the linker's own notice"
ADD_SAYS = "the extraction's own notice"


class NoisyModel(RuleBasedLLM):
    """Rule-based answers, declared as a model (so the linker asks it), with a notice on every reply."""

    def __init__(self) -> None:
        super().__init__()
        self.linked = threading.Event()

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities("noisy", rule_based=False)

    def extract(self, messages: Sequence[Message], context: Sequence[Message] = ()) -> Reply[list[Candidate]]:
        found = super().extract(messages, context)
        return Reply(found.value, (*found.notices, Notice("noisy", "extract", ADD_SAYS)))

    def link(self, a: str, b: str) -> Reply[LinkVerdict]:
        self.linked.set()
        return Reply(LinkVerdict("supports"), (Notice("noisy", "link", LINKER_SAYS),))


def _open(home: Path, llm: NoisyModel) -> Memory:
    mem, _ = Memory.create(home, passphrase=PASSPHRASE, use_keyring=False, embedder=HashEmbedder(), llm=llm)
    return mem


def test_an_add_after_the_linker_worked_reports_only_its_own_notices(isolated_home: Path) -> None:
    llm = NoisyModel()
    mem = _open(isolated_home, llm)
    try:
        mem.add("Ann plays tennis on Sundays.")
        assert mem.organiser.wait_for_links(10)
        mem.add("Ann plays squash on Mondays.")
        assert llm.linked.wait(10) and mem.organiser.wait_for_links(
            10
        )  # the linker asked the model and got a notice
        later = mem.add("Ann swims on Fridays.")
        assert any(ADD_SAYS in n for n in later.notices), later.notices
        assert not any(LINKER_SAYS in n for n in later.notices), later.notices
    finally:
        mem.close()


def test_an_import_after_the_linker_worked_reports_only_its_own_notices(
    isolated_home: Path, tmp_path: Path
) -> None:
    llm = NoisyModel()
    mem = _open(isolated_home, llm)
    try:
        mem.add("Ann plays tennis on Sundays.")
        mem.add("Ann plays squash on Mondays.")
        assert llm.linked.wait(10) and mem.organiser.wait_for_links(10)
        source = tmp_path / "chat.json"
        source.write_text(json.dumps([{"role": "user", "content": "Ann cycles on Tuesdays."}]), "utf-8")
        report = mem.import_history(source)
        assert report.stored == 1
        assert any(ADD_SAYS in n for n in report.notices), report.notices
        assert not any(LINKER_SAYS in n for n in report.notices), report.notices
    finally:
        mem.close()
