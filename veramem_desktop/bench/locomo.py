"""LoCoMo retrieval recall through the real engine (no LLM in the loop).

Each conversation is added through ``Memory.add`` as episodes (one user per
conversation, one session per LoCoMo session, the dia_id kept in the episode
metadata); each question is asked through the engine's raw route as that user, and
the ranked episodes are mapped back to dia_ids. The scorer follows the rules of the
data set's README: evidence strings split on ";", "," and spaces, ids normalised to
"D<int>:<int>", ids not in the conversation dropped, questions left without evidence
skipped; recall@k = |evidence ∩ top-k| / |evidence|, averaged per category, with
categories 1-4 as the headline and 5 (adversarial) reported apart.

The data (CC BY-NC 4.0) is read from where it lies and never copied.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KS = (5, 10, 20)
HEADLINE = (1, 2, 3, 4)
_SESSION_KEY = re.compile(r"session_(\d+)")
_ID = re.compile(r"D(\d+):(\d+)")
_COLON_SLIP = re.compile(r"D:(\d+):(\d+)")

#: search(question, k) -> dia_ids, best first
Retriever = Callable[[str, int], Sequence[str]]


@dataclass(frozen=True)
class Turn:
    session: int
    when: str | None
    speaker: str
    dia_id: str
    text: str
    caption: str | None


def load(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, list):
        raise ValueError(f"{path} is not a LoCoMo file (a list of conversations)")
    return data


def turns(sample: dict[str, Any]) -> Iterator[Turn]:
    """A conversation's turns in time order (sessions by number; date keys without turns ignored)."""
    conv = sample["conversation"]
    numbers = sorted(
        int(m.group(1)) for key in conv if (m := _SESSION_KEY.fullmatch(key)) and isinstance(conv[key], list)
    )
    for n in numbers:
        for t in conv[f"session_{n}"]:
            yield Turn(
                n,
                conv.get(f"session_{n}_date_time"),
                str(t["speaker"]),
                str(t["dia_id"]),
                str(t["text"]),
                t.get("blip_caption") or None,
            )


def clean_evidence(raw: Iterable[Any], known: set[str]) -> list[str]:
    """Evidence ids per the README: split packed strings, repair "D:11:26" and "D30:05",
    keep ids that exist in the conversation, each once, in order."""
    out: list[str] = []
    for entry in raw:
        for token in re.split(r"[;,\s]+", str(entry).replace("(", "").replace(")", "")):
            token = _COLON_SLIP.sub(r"D\1:\2", token.strip())
            m = _ID.fullmatch(token)
            if m is None:
                continue
            norm = f"D{int(m.group(1))}:{int(m.group(2))}"
            if norm in known and norm not in out:
                out.append(norm)
    return out


@dataclass
class Scores:
    """recall@k values per category (and the count of scored questions)."""

    values: dict[int, dict[int, list[float]]] = field(default_factory=dict)

    def add(self, category: int, evidence: Sequence[str], ranked: Sequence[str], ks: Sequence[int]) -> None:
        wanted = set(evidence)
        per = self.values.setdefault(category, {k: [] for k in ks})
        for k in ks:
            per[k].append(len(wanted & set(ranked[:k])) / len(wanted))

    def summary(self, ks: Sequence[int] = KS) -> dict[str, dict[str, float]]:
        """{"cat1-4": {...}, "all": {...}, "1": {...}, …, "5": {...}} with recall@k and n."""

        def agg(cats: Iterable[int]) -> dict[str, float]:
            out: dict[str, float] = {}
            n = 0
            for k in ks:
                vals = [v for c in cats for v in self.values.get(c, {}).get(k, [])]
                out[f"recall@{k}"] = round(sum(vals) / len(vals), 4) if vals else float("nan")
                n = len(vals)
            out["n"] = n
            return out

        table = {"cat1-4": agg(HEADLINE), "all": agg(sorted(self.values))}
        table.update({str(c): agg([c]) for c in sorted(self.values)})
        return table


def score(
    samples: Sequence[dict[str, Any]],
    retriever_for: Callable[[dict[str, Any]], Retriever],
    ks: Sequence[int] = KS,
) -> Scores:
    """Ask every question with valid evidence of every conversation and score the top max(ks)."""
    depth = max(ks)
    result = Scores()
    for sample in samples:
        known = {t.dia_id for t in turns(sample)}
        search = retriever_for(sample)
        for qa in sample.get("qa", []):
            evidence = clean_evidence(qa.get("evidence") or [], known)
            if not evidence:
                continue
            ranked = list(search(str(qa["question"]), depth))[:depth]
            result.add(int(qa["category"]), evidence, ranked, ks)
    return result


def turn_content(turn: Turn) -> str:
    """What is stored as the episode's content: the words, and the shared photo's caption."""
    return f"{turn.text} [shared a photo: {turn.caption}]" if turn.caption else turn.text


def default_path() -> Path | None:
    """The dev split beside the repository (<repo>/../shared/bench/locomo/locomo_dev.json), if there."""
    repo = Path(__file__).resolve().parents[2]
    path = repo.parent / "shared" / "bench" / "locomo" / "locomo_dev.json"
    return path if path.is_file() else None
