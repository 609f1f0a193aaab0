"""The truth-natural section: does memory get the current fact right in histories written as people talk?

The data (``truth_natural.json`` beside this module, issue 29) holds chat histories of 2-6 ChatGPT
sessions each, in which personal attributes change over time, tagged with the kinds of change they
exercise (no "I", "we", unusual wording, implied, another person's change, the old value said again in
the past, A→B→C chains, assistant echoes, requests, dated plans, durations, dated documents). The
histories at 0-based position % 3 == 2 are a held-out third, frozen when the data was written
(tests/bench/test_truth_natural_data.py pins the file): only their aggregate figures are reported,
never a failing question or a per-kind figure.

Each history is written as a ChatGPT export (``conversations.json``: one conversation per session,
with the ``mapping`` tree, ``current_node`` and each message's ``create_time``) and imported into a
fresh store through ``Memory.import_history`` with the rule-based backend (no model); once the
background linker has linked what the import queued, its questions are asked through ``Memory.answer``
and ``Memory.search`` (``links_unsettled`` counts the histories whose linker was still busy at
:data:`LINKS_WAIT_S`). A value is found in a text by the
word skeleton the truth section uses (``holds``: the value's words in a row, case and look-alikes
folded). Metrics (each with a ``held_out`` figure):

- ``answer_current`` (current questions): the answer is not an abstention, names one of the expected
  values, and names no stale value as current. A stale value counts as named only as past when a past
  marker (:data:`PAST_MARKERS`: "before", "previously", "used to", "was", "lived", "sold", …) occurs
  earlier in the same sentence; any other mention of a stale value fails the question.
- ``search_top1_current`` (current questions): the first search result's text names an expected value.
- ``stale_above_current`` (current questions with stale values; lower is better): a result naming a
  stale value ranks above the first result naming an expected value (or one names a stale value and
  none names an expected value). A result naming both counts as naming the current value.
- ``abstained`` (every question; lower is better): the answer abstains, though the history holds the
  answer.
- ``as_of_answer`` (as-of questions, which name a time: "in March 2024", "before we moved", "last
  summer", relative to the day the bench runs): the answer is not an abstention, names the value
  valid then, and names no other value of the attribute before it (the first value named is the one
  asked for).

Variants: :data:`VARIANTS` lists (name, config overrides) rows; the first is the headline, the
others (ablations of switches the write path and recall offer) run when the bench's ablation option
is on. An override names a config field by its dotted path (``"search.some_switch": False``); a path
the config does not have is reported as skipped, never guessed.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import Config
from ..memory import Memory
from .runner import BENCH_PASSPHRASE, BenchContext, Section
from .truth_section import holds

DATA = Path(__file__).with_name("truth_natural.json")
#: the data sets, each frozen with its own held-out third: the first, written by the team with the code,
#: and a blind one, written later by authors who never read the code or the first set
SETS = (
    ("first", DATA),
    ("blind", Path(__file__).with_name("truth_natural_blind.json")),
    ("blind-2", Path(__file__).with_name("truth_natural_blind2.json")),
    ("blind-3", Path(__file__).with_name("truth_natural_blind3.json")),
    ("blind-4", Path(__file__).with_name("truth_natural_blind4.json")),
    ("blind-5", Path(__file__).with_name("truth_natural_blind5.json")),
)
METRICS = ("answer_current", "search_top1_current", "stale_above_current", "abstained", "as_of_answer")
#: metrics counting something that must not happen (lower is better)
LOWER_IS_BETTER = frozenset({"stale_above_current", "abstained"})
#: words that, earlier in a sentence, make a stale value in it a past value ("before that, Berlin")
PAST_MARKERS = (
    "before",
    "previously",
    "used to",
    "formerly",
    "former",
    "earlier",
    "until",
    "no longer",
    "not anymore",
    "in the past",
    "was",
    "were",
    "had",
    "old",
    "replaced",
    "instead of",
    "from",
    "left",
    "lived",
    "worked",
    "moved",
    "switched",
    "used",
    "drove",
    "studied",
    "played",
    "went",
    "sold",
    "quit",
    "dropped",
    "cancelled",
    "closed",
    "ended",
    "out of",
    "ex",
)
#: (name, config overrides by dotted path); the first is the headline row
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("headline", {}),
    ("without name casing", {"write.name_casing": False}),
    ("without the lead within k", {"search.lead_within_k": False}),
    ("without questions read by meaning", {"search.read_by_meaning": False}),
    ("without the messages beside the statements", {"search.own_messages": False}),
]
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_WORDS = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def load(path: Path | None = None) -> list[dict[str, Any]]:
    """The histories of one data file, or of every set in :data:`SETS` one after another, in their
    frozen order, each tagged with its set's name and whether it is in that set's held-out third
    (:func:`held_out` of its position in its own file)."""
    chosen = [(name, p) for name, p in SETS if path is None or p == path] or [("first", path or DATA)]
    histories: list[dict[str, Any]] = []
    for name, file in chosen:
        data = json.loads(file.read_text(encoding="utf-8"))
        histories += [{**h, "set": name, "held_out": held_out(i)} for i, h in enumerate(data["histories"])]
    return histories


def _held(history: dict[str, Any], index: int, is_held_out: Callable[[int], bool] | None) -> bool:
    """Whether a history counts as held out: by ``is_held_out`` of its position when given, else by the
    flag :func:`load` set, else by its position."""
    if is_held_out is not None:
        return is_held_out(index)
    return bool(history.get("held_out", held_out(index)))


def held_out(index: int) -> bool:
    """Whether the history at ``index`` (0-based, in the file's order) is in the frozen held-out third."""
    return index % 3 == 2


# ------------------------------------------------------------------ scoring (pure, tested on known texts)
def _words(text: str) -> list[str]:
    """The words of ``text`` in lower case, a possessive's "'s" left off ("St Mary's" holds "St Mary")."""
    return [w.removesuffix("'s") for w in _WORDS.findall(text.lower().replace("\u2019", "'"))]


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


def _past_marked(sentence: str, value: str) -> bool:
    """Whether every mention of ``value`` in ``sentence`` comes after a past marker in that sentence."""
    words = _words(sentence)
    needle = _words(value)
    n = len(needle)
    starts = [i for i in range(len(words) - n + 1) if n and words[i : i + n] == needle]
    if not starts:  # the skeleton matched where plain words did not (look-alikes): no marker is trusted
        return False
    for start in starts:
        before = " " + " ".join(words[:start]) + " "
        if not any(f" {m} " in before for m in PAST_MARKERS):
            return False
    return True


def stale_as_current(text: str, stale: Sequence[str]) -> bool:
    """Whether ``text`` names a stale value other than as past (see the module's rule)."""
    return any(
        holds(sentence, value) and not _past_marked(sentence, value)
        for sentence in _sentences(text)
        for value in stale
    )


def answer_current(text: str, abstained: bool, expect: Sequence[str], stale: Sequence[str]) -> bool:
    return not abstained and any(holds(text, v) for v in expect) and not stale_as_current(text, stale)


def _first_position(text: str, values: Sequence[str]) -> int | None:
    """The word offset of the first mention of any of ``values`` in ``text``."""
    from veramem_desktop.core.text.normalize import phrase_words

    hay = phrase_words(text)
    found = []
    for value in values:
        needle = phrase_words(value)
        n = len(needle)
        found += [i for i in range(len(hay) - n + 1) if n and hay[i : i + n] == needle][:1]
    return min(found, default=None)


def as_of_answer(text: str, abstained: bool, expect: Sequence[str], others: Sequence[str]) -> bool:
    at = _first_position(text, expect)
    if abstained or at is None:
        return False
    other = _first_position(text, others)
    return other is None or other >= at


def top1_current(texts: Sequence[str], expect: Sequence[str]) -> bool:
    return bool(texts) and any(holds(texts[0], v) for v in expect)


def stale_above_current(texts: Sequence[str], expect: Sequence[str], stale: Sequence[str]) -> bool:
    def first(values: Sequence[str]) -> int | None:
        return next((i for i, t in enumerate(texts) if any(holds(t, v) for v in values)), None)

    at, old = first(expect), first(stale)
    return old is not None and (at is None or old < at)


# ------------------------------------------------------------------ tallies
@dataclass
class Tally:
    """Counts per metric for one part (dev or held-out), and per kind for dev."""

    counts: dict[str, list[int]] = field(default_factory=dict)

    def add(self, metric: str, seen: bool) -> None:
        c = self.counts.setdefault(metric, [0, 0])
        c[0] += int(seen)
        c[1] += 1

    def rate(self, metric: str) -> float | None:
        c = self.counts.get(metric)
        return round(c[0] / c[1], 4) if c and c[1] else None

    def n(self, metric: str) -> int:
        return self.counts.get(metric, [0, 0])[1]


@dataclass
class Outcome:
    """What one question's answer and search gave, scored."""

    scores: dict[str, bool]
    answer: str
    top: str


def score_question(q: dict[str, Any], answer: str, abstained: bool, texts: Sequence[str]) -> Outcome:
    """The metrics one question counts in, each True where its event happened."""
    expect, stale = q["expect"], q.get("stale", [])
    scores = {"abstained": abstained}
    if q["type"] == "asof":
        scores["as_of_answer"] = as_of_answer(answer, abstained, expect, stale)
    else:
        scores["answer_current"] = answer_current(answer, abstained, expect, stale)
        scores["search_top1_current"] = top1_current(texts, expect)
        if stale:
            scores["stale_above_current"] = stale_above_current(texts, expect, stale)
    return Outcome(scores, answer, texts[0] if texts else "")


# ------------------------------------------------------------------ the export and the run
def chatgpt_export(history: dict[str, Any]) -> list[dict[str, Any]]:
    """The history as a ChatGPT ``conversations.json``: one conversation per session, each a chain of
    nodes from a root with no message, ``current_node`` at its last message."""
    from datetime import datetime

    def epoch(iso: str) -> float:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()

    conversations = []
    for s_index, session in enumerate(history["sessions"]):
        conv_id = f"{history['id']}-s{s_index + 1}"
        root = f"{conv_id}-root"
        mapping: dict[str, Any] = {root: {"id": root, "message": None, "parent": None, "children": []}}
        parent = root
        for m_index, msg in enumerate(session["messages"]):
            node = f"{conv_id}-m{m_index + 1}"
            mapping[parent]["children"].append(node)
            mapping[node] = {
                "id": node,
                "parent": parent,
                "children": [],
                "message": {
                    "id": node,
                    "author": {"role": msg["role"], "name": None, "metadata": {}},
                    "create_time": epoch(msg["time"]),
                    "update_time": None,
                    "content": {"content_type": "text", "parts": [msg["text"]]},
                    "status": "finished_successfully",
                    "metadata": {},
                },
            }
            parent = node
        first = session["messages"][0]["time"]
        conversations.append(
            {
                "id": conv_id,
                "conversation_id": conv_id,
                "title": session.get("title") or "New chat",
                "create_time": epoch(first),
                "update_time": epoch(session["messages"][-1]["time"]),
                "mapping": mapping,
                "current_node": parent,
            }
        )
    return conversations


def apply_overrides(config: Config, overrides: dict[str, Any]) -> list[str]:
    """Set each dotted config path; returns the paths the config does not have (left unset)."""
    missing = []
    for path, value in overrides.items():
        *parents, leaf = path.split(".")
        target: Any = config
        for name in parents:
            target = getattr(target, name, None)
        if target is None or not hasattr(target, leaf):
            missing.append(path)
            continue
        setattr(target, leaf, value)
    return missing


#: how long one history's questions wait for the background linker after its import (seconds)
LINKS_WAIT_S = 300.0


def run_history(
    make_memory: Callable[[Config], Memory], history: dict[str, Any], workdir: Path, overrides: dict[str, Any]
) -> tuple[list[tuple[dict[str, Any], Outcome]], dict[str, int]]:
    """Import one history into a fresh store and ask its questions; the scored questions and the import's counts."""
    config = Config()
    config.llm.backend = "rule-based"
    apply_overrides(config, overrides)
    export = workdir / "conversations.json"
    workdir.mkdir(parents=True, exist_ok=True)
    export.write_text(json.dumps(chatgpt_export(history)), encoding="utf-8")
    mem = make_memory(config)
    try:
        report = mem.import_history(export, format="chatgpt")
        # the questions are asked of the store as the import left it once its links are made: the linker
        # runs in the background, so asking at once would answer from however far it had got
        settled = mem.organiser.wait_for_links(LINKS_WAIT_S)
        counts = {"stored": report.stored, **report.memories, "links_unsettled": int(not settled)}
        scored = []
        for q in history["questions"]:
            said = mem.answer(q["question"])
            found = mem.search(q["question"], k=10)
            texts = [h.text for h in found.results]
            scored.append((q, score_question(q, said.text, said.abstained, texts)))
    finally:
        mem.close()
    return scored, counts


@dataclass
class VariantResult:
    dev: Tally = field(default_factory=Tally)
    held: Tally = field(default_factory=Tally)
    kinds: dict[str, Tally] = field(default_factory=dict)
    #: per data set: (dev, held-out)
    sets: dict[str, tuple[Tally, Tally]] = field(default_factory=dict)
    misses: list[dict[str, str]] = field(default_factory=list)
    imported: dict[str, int] = field(default_factory=dict)
    skipped_overrides: list[str] = field(default_factory=list)
    seconds: float = 0.0


def run_variant(
    ctx: BenchContext,
    histories: Sequence[dict[str, Any]],
    name: str,
    overrides: dict[str, Any],
    *,
    is_held_out: Callable[[int], bool] | None = None,
) -> VariantResult:
    """Every history imported and asked under one variant's config; held-out outcomes are only counted."""
    result = VariantResult(skipped_overrides=apply_overrides(Config(), overrides))
    started = time.perf_counter()

    def make_memory(config: Config) -> Memory:
        ctx._count += 1
        home = ctx.home / f"{ctx._count:02d}-natural"
        mem, _ = Memory.create(
            home, passphrase=BENCH_PASSPHRASE, use_keyring=False, config=config, embedder=ctx.embedder
        )
        return mem

    for index, history in enumerate(histories):
        if index % 15 == 0:
            ctx.progress(f"truth-natural {name}: history {index + 1}/{len(histories)}")
        scored, counts = run_history(make_memory, history, ctx.home / f"natural-{name}-{index}", overrides)
        for key, value in counts.items():
            result.imported[key] = result.imported.get(key, 0) + value
        held = _held(history, index, is_held_out)
        by_set = result.sets.setdefault(history.get("set", "first"), (Tally(), Tally()))
        for q, outcome in scored:
            for metric, seen in outcome.scores.items():
                (result.held if held else result.dev).add(metric, seen)
                by_set[held].add(metric, seen)
                if not held:
                    for kind in history["kinds"]:
                        result.kinds.setdefault(kind, Tally()).add(metric, seen)
            if not held:
                _keep_miss(result, q, outcome)
    result.seconds = round(time.perf_counter() - started, 1)
    return result


def _keep_miss(result: VariantResult, q: dict[str, Any], outcome: Outcome) -> None:
    """Dev questions that failed a metric, with what the answer and first hit said (held-out never)."""
    failed = [
        m
        for m, seen in outcome.scores.items()
        if (seen if m in LOWER_IS_BETTER else not seen) and m != "abstained"
    ]
    if outcome.scores.get("abstained"):
        failed.append("abstained")
    if failed:
        result.misses.append(
            {
                "id": q["id"],
                "question": q["question"],
                "failed": ", ".join(sorted(set(failed))),
                "answer": outcome.answer[:200],
                "top": outcome.top[:200],
            }
        )


def _figures(result: VariantResult) -> dict[str, Any]:
    figures: dict[str, Any] = {m: result.dev.rate(m) for m in METRICS}
    figures["held_out"] = {m: result.held.rate(m) for m in METRICS}
    figures["questions"] = {"dev": result.dev.n("abstained"), "held_out": result.held.n("abstained")}
    figures["sets"] = {
        name: {part: {m: t.rate(m) for m in METRICS} for part, t in (("dev", dev), ("held_out", held))}
        for name, (dev, held) in sorted(result.sets.items())
    }
    figures["imported"] = result.imported
    figures["seconds"] = result.seconds
    if result.skipped_overrides:
        figures["skipped_overrides"] = result.skipped_overrides
    return figures


def _shown(figures: dict[str, Any]) -> str:
    return " · ".join(f"{m} {figures[m]:.3f}" for m in METRICS if figures.get(m) is not None)


def run_truth_natural_section(
    ctx: BenchContext,
    *,
    histories: Sequence[dict[str, Any]] | None = None,
    variants: Sequence[tuple[str, dict[str, Any]]] | None = None,
    is_held_out: Callable[[int], bool] | None = None,
) -> Section:
    """The headline variant (and, with the ablation option, the others) over every history."""
    histories = load() if histories is None else histories
    chosen = list(VARIANTS if variants is None else variants)
    if variants is None and not ctx.options.ablation:
        chosen = chosen[:1]
    started = time.perf_counter()
    results = [(name, run_variant(ctx, histories, name, o, is_held_out=is_held_out)) for name, o in chosen]
    name, head = results[0]
    data: dict[str, Any] = {
        "histories": len(histories),
        "held_out_histories": sum(1 for i, h in enumerate(histories) if _held(h, i, is_held_out)),
        "variant": name,
        **_figures(head),
        "kinds": {
            k: {m: t.rate(m) for m in METRICS if t.rate(m) is not None} for k, t in sorted(head.kinds.items())
        },
        "misses": head.misses,
        "variants": {n: _figures(r) for n, r in results[1:]},
        "seconds_total": round(time.perf_counter() - started, 1),
    }
    updated = head.imported.get("updated", 0)
    rows = [
        (
            "truth-natural histories",
            f"{data['histories']} ({data['held_out_histories']} held out), {data['questions']['dev']} + "
            f"{data['questions']['held_out']} questions; import: {head.imported.get('added', 0)} memories, "
            f"{updated} updates; {head.seconds:.0f} s",
        ),
        ("truth-natural dev", _shown(data)),
        ("truth-natural held_out", _shown(data["held_out"])),
    ]
    for set_name, parts in data["sets"].items():
        for part, rates in parts.items():
            rows.append((f"  set {set_name} {part}", _shown(rates)))
    for kind, rates in data["kinds"].items():
        rows.append((f"  dev kind {kind}", _shown(rates)))
    for n, figures in data["variants"].items():
        rows.append((f"  variant {n} dev", _shown(figures)))
        rows.append((f"  variant {n} held_out", _shown(figures["held_out"])))
    return Section({"truth_natural": data}, rows)
