"""Helpers for the consolidation regression tests: a store opened through the SDK as a new user
without a model has it (rule-based backend), with the fast hash embedder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support.fake_embedder import HashEmbedder
from support.fixtures import PASSPHRASE
from support.internals import store_of
from veramem_desktop.core.llm import LLM
from veramem_desktop.core.storage import ledger

from veramem_desktop.config import Config
from veramem_desktop.memory import Memory


def open_memory(home: Path, *, llm: LLM | None = None, linking: bool = False, **organise: Any) -> Memory:
    config = Config()
    config.llm.backend = "rule-based"
    config.organise.linking = linking
    for name, value in organise.items():
        setattr(config.organise, name, value)
    mem, _ = Memory.create(
        home,
        passphrase=PASSPHRASE,
        use_keyring=False,
        embedder=HashEmbedder(),
        config=config,
        **({"llm": llm} if llm is not None else {}),
    )
    return mem


def one(mem: Memory, text: str, **kw: Any) -> str:
    """Add one message; the id of the memory it states first (a statement of several attributes, "My
    sister Maria lives in Madrid", gives one memory per attribute: the relation, then Maria's home)."""
    result = mem.add(text, **kw)
    ids = [a["id"] for a in result.added] + [u["id"] for u in result.updated]
    assert ids, (text, result)
    return str(ids[0])


def rate(mem: Memory, question: str, cited: list[str], reward: float = 1.0, times: int = 1) -> list[str]:
    """Ask ``question`` ``times`` times, crediting ``cited`` with ``reward`` each time; the trace ids."""
    out = []
    for _ in range(times):
        trace = mem.search(question).trace_id
        mem.feedback(trace, reward, cited_ids=cited, by="person")
        out.append(trace)
    return out


def rows(mem: Memory, where: str = "1", params: tuple[Any, ...] = ()) -> list[tuple[str, str, str, str]]:
    """(id, kind, status, text) of the memories matching ``where``."""
    return [
        (r[0], r[1], r[2], r[3])
        for r in store_of(mem).query(
            f"SELECT id, kind, status, text FROM memory_items WHERE {where} ORDER BY created_at, id", params
        )
    ]


def entries(mem: Memory, op: str, target: str | None = None) -> list[ledger.LedgerEntry]:
    return [
        e for e in ledger.entries(store_of(mem)) if e.op == op and (target is None or e.target_id == target)
    ]


def sources(mem: Memory, derived_id: str) -> set[str]:
    return {
        r[0]
        for r in store_of(mem).query("SELECT source_id FROM derivations WHERE derived_id = ?", (derived_id,))
    }


def searched_ids(mem: Memory, query: str) -> set[str]:
    """Every id any route returns for ``query``, archived ones included."""
    found: set[str] = set()
    for route in ("facts", "dual", "summaries", "raw"):
        found |= {h.id for h in mem.search(query, route=route, include_archived=True).results}
    return found
