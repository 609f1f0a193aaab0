"""Memory export: JSON lines (read back by core/transfer/memory_import.py) or Markdown.

The JSON-lines file, one object per line:

1. a header ``{"type": "veramem.memories", "version": 1, "exported_at", "store_id", "ids": "kept"}``;
2. ``{"type": "episode", …}``: every episode a memory quotes, whole, so quotes still verify (or, for a
   full export, core/transfer/full_export.py, every episode);
3. ``{"type": "memory", "root_id", "versions": [...]}``: one line per version chain, oldest
   version first, each version with every field of the memory (validity, authority, trust,
   status, counters, metadata), its ``evidence`` (episode id, verbatim quote, span, score,
   role) and ``derived_from`` (the memories a merge, summary or experience was built from);
4. ``{"type": "link", "src", "dst", "type", "score", "created_at"}``: typed edges.

Vectors are not exported (they would leak the text's meaning and are rebuilt from the text).
The file is plaintext, opened through core/transfer/plaintext.py.

Only what the visibility rule shows is written (core/storage/visibility.py): no rejected version,
no memory or message withheld for holding or resembling a rejected value, nothing expired, and no
version, quote or message whose text holds a value a person rejected in its scope (the rejection
keeps no text, so the export must not be where its words survive). Forgotten rows are gone from the
store. A version whose every piece of evidence stands in a message left out is left out too (its
quotes could not be verified on import), and so is a link to anything left out. ``left_out`` counts
the versions and messages the rule kept out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from veramem_desktop.core.storage import (
    derivations,
    episode_turns,
    item_chains,
    item_evidence,
    items,
    link_rows,
    rejections,
    visibility,
)
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.store import Store
from veramem_desktop.core.transfer.chats import ARCHIVE_TYPE
from veramem_desktop.core.transfer.plaintext import open_private

VERSION = 1
CHUNK = 256


def _chains(
    store: Store, ids: Sequence[tuple[str, str]], left_out_episodes: set[str]
) -> Iterator[list[dict[str, Any]]]:
    """Version chains, each a list of versions (dicts with evidence and derivations), oldest first; evidence
    in ``left_out_episodes`` is dropped."""
    chain: list[dict[str, Any]] = []
    root = None
    for lo in range(0, len(ids), CHUNK):
        part = [i for i, _ in ids[lo : lo + CHUNK]]
        rows = items.get_many(store, part)
        evidence: dict[str, list[dict[str, Any]]] = {}
        for ev in item_evidence.evidence_rows(store, part):
            if ev.episode_id in left_out_episodes:
                continue
            evidence.setdefault(ev.memory_id, []).append(
                {
                    "episode_id": ev.episode_id,
                    "quote": ev.quote,
                    "span_start": ev.span_start,
                    "span_end": ev.span_end,
                    "score": ev.score,
                    "role": ev.role,
                }
            )
        derived: dict[str, list[str]] = {}
        for derived_id, source_id in derivations.pairs_of(store, part):
            derived.setdefault(derived_id, []).append(source_id)
        for mid, rid in ids[lo : lo + CHUNK]:
            if rid != root and chain:
                yield chain
                chain = []
            root = rid
            data = rows[mid].to_dict()
            data.pop("utility", None)
            chain.append({**data, "evidence": evidence.get(mid, []), "derived_from": derived.get(mid, [])})
    if chain:
        yield chain


def _episodes(store: Store, ids: Sequence[str]) -> Iterator[Episode]:
    for lo in range(0, len(ids), CHUNK):
        yield from episode_turns.in_session_order(store, ids[lo : lo + CHUNK])


def export(
    store: Store,
    path: Path,
    *,
    fmt: str,
    user_id: str | None,
    overwrite: bool,
    store_id: str | None,
    now: str | None = None,
    episode_ids: Sequence[str] | None = None,
) -> dict[str, int]:
    """Write the export; returns counts of memories (chains), versions, episodes and links.

    ``episode_ids``: the episodes to write (a full export's, in session order); by default the ones
    the memories quote."""
    from veramem_desktop.core.storage.ids import now_iso

    moment = now or now_iso()
    ids, quoted_ids, left_out_episodes, left_out = _shown(
        store, item_chains.chain_order(store, user_id), moment
    )
    contents = "quoted" if episode_ids is None else "all"
    if episode_ids is None:
        episode_ids = quoted_ids
    else:  # a full export: every message the visibility rule shows, none holding a rejected value
        episode_ids, hidden_episodes = _visible_episodes(store, episode_ids, moment)
        left_out += len(hidden_episodes - left_out_episodes)
    wanted = {i for i, _ in ids}
    edges = [e for e in link_rows.every_edge(store) if e.src in wanted and e.dst in wanted]
    counts = {"memories": 0, "versions": 0, "episodes": 0, "links": 0, "left_out": left_out}
    header = {
        "type": ARCHIVE_TYPE,
        "version": VERSION,
        "exported_at": moment,
        "store_id": store_id,
        "ids": "kept",
        "plaintext": True,
        "episodes": contents,
    }
    with open_private(path, overwrite=overwrite) as out:
        if fmt == "jsonl":
            out.write(_line(header))
            for ep in _episodes(store, episode_ids):
                out.write(_line({"type": "episode", **ep.to_dict()}))
                counts["episodes"] += 1
            for chain in _chains(store, ids, left_out_episodes):
                out.write(_line({"type": "memory", "root_id": chain[0]["root_id"], "versions": chain}))
                counts["memories"] += 1
                counts["versions"] += len(chain)
            for e in edges:
                out.write(
                    _line(
                        {
                            "type": "link",
                            "src": e.src,
                            "dst": e.dst,
                            "link_type": e.type,
                            "score": e.score,
                            "created_at": e.created_at,
                        }
                    )
                )
                counts["links"] += 1
        else:
            episodes = {e.id: e for e in _episodes(store, episode_ids)}
            counts["episodes"] = len(episodes)
            links: dict[str, list[tuple[str, str, str]]] = {}
            for e in edges:
                links.setdefault(e.src, []).append(("→", e.type, e.dst))
                links.setdefault(e.dst, []).append(("←", e.type, e.src))
            out.write(
                f"# VeraMem memories\n\nExported {header['exported_at']}. This file is PLAINTEXT: it is not "
                "encrypted.\n"
            )
            for chain in _chains(store, ids, left_out_episodes):
                out.write(_markdown(chain, episodes, links))
                counts["memories"] += 1
                counts["versions"] += len(chain)
            counts["links"] = len(edges)
    return counts


def _shown(
    store: Store, ids: list[tuple[str, str]], now: str
) -> tuple[list[tuple[str, str]], list[str], set[str], int]:
    """What the export may write: ``(the (id, root) pairs of the versions shown, the messages shown that they
    quote, the quoted messages left out, how many versions and messages were left out)``."""
    with store.read() as conn:
        hidden = visibility.hidden_ids(conn, "memory", [i for i, _ in ids], now)
    kept = [(i, r) for i, r in ids if i not in hidden]
    quoted: dict[str, set[str]] = {}
    for lo in range(0, len(kept), CHUNK):
        for ev in item_evidence.evidence_rows(store, [i for i, _ in kept[lo : lo + CHUNK]]):
            quoted.setdefault(ev.memory_id, set()).add(ev.episode_id)
    every_episode = sorted({e for eps in quoted.values() for e in eps})
    shown_episodes = {e.id: e for e in _episodes(store, every_episode)}
    with store.read() as conn:
        out_eps = visibility.hidden_ids(conn, "episode", every_episode, now)
        out_eps |= {
            eid for eid, e in shown_episodes.items() if _holds_rejected(conn, e.user_id, e.team_id, e.content)
        }
        rows = items.get_many(store, [i for i, _ in kept])
        hidden |= {
            i
            for i, _ in kept
            if _holds_rejected(conn, rows[i].user_id, rows[i].team_id, rows[i].text)
            or (quoted.get(i) and not quoted[i] - out_eps)
        }
    kept = [(i, r) for i, r in kept if i not in hidden]
    episode_ids = sorted({e for i, _ in kept for e in quoted.get(i, set())} - out_eps)
    return kept, episode_ids, out_eps, len(hidden) + len(out_eps)


def _visible_episodes(store: Store, ids: Sequence[str], now: str) -> tuple[list[str], set[str]]:
    """Of ``ids`` (in their order), the messages an export may write, and those it leaves out: hidden by
    the visibility rule, or holding a rejected value."""
    out: set[str] = set()
    with store.read() as conn:
        for lo in range(0, len(ids), CHUNK):
            part = list(ids[lo : lo + CHUNK])
            out |= visibility.hidden_ids(conn, "episode", part, now)
            out |= {
                e.id
                for e in episode_turns.in_session_order(store, part)
                if _holds_rejected(conn, e.user_id, e.team_id, e.content)
            }
    return [i for i in ids if i not in out], out


def _holds_rejected(conn: Any, user_id: str | None, team_id: str | None, text: str) -> bool:
    return any(rejections.holding(conn, user_id=user_id, team_id=team_id, texts=[text]))


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n"


def _markdown(
    chain: list[dict[str, Any]], episodes: dict[str, Episode], links: dict[str, list[tuple[str, str, str]]]
) -> str:
    last = chain[-1]
    lines = [
        f"\n## {last['text']}\n",
        f"- id `{last['id']}` · {last['kind']} · {last['status']} · authority {last['authority']} · "
        f"trust {last['trust']} · user {last['user_id'] or '-'}",
    ]
    lines.append(
        f"- valid from {last['valid_from']}" + (f" to {last['valid_to']}" if last["valid_to"] else "")
    )
    if len(chain) > 1:
        lines.append("\n### Versions\n")
        for v in chain:
            until = f" to {v['valid_to']}" if v["valid_to"] else ""
            lines.append(
                f"{v['version']}. {v['text']} ({v['status']}; valid from {v['valid_from']}{until}; "
                f"`{v['id']}`)"
            )
    quoted = [(v["version"], e) for v in chain for e in v["evidence"]]
    if quoted:
        lines.append("\n### Evidence\n")
        for version, e in quoted:
            ep = episodes.get(e["episode_id"])
            where = f"{ep.source_name or ep.role}, {ep.event_time}" if ep else e["role"]
            lines.append(f"> {e['quote']}\n\n— {where} (version {version}, episode `{e['episode_id']}`)\n")
    edges = [edge for v in chain for edge in links.get(v["id"], [])]
    if edges:
        lines.append("\n### Links\n")
        lines += [f"- {arrow} {kind} `{other}`" for arrow, kind, other in edges]
    return "\n".join(lines) + "\n"
