"""Strict readers that turn a model's JSON reply into the engine's values.

Anything a reply gets wrong (a missing field, a wrong type, an unknown operation, an id
that was not offered) is a :class:`MalformedReplyError` naming the task, the field and
what was expected, so a retry prompt and a user notice can both say what happened.
Messages name fields and ids, never the text of memories.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, cast

from veramem_desktop.core.attributes import canonical
from veramem_desktop.core.llm import AnswerDraft, Candidate, Decision, LinkType, LinkVerdict, Op
from veramem_desktop.core.trust.quotes import locate
from veramem_desktop.core.vocabulary import Kind
from veramem_desktop.models.llm.errors import MalformedReplyError
from veramem_desktop.models.llm.experience import render_experience
from veramem_desktop.models.llm.prompts import EXTRACT_KINDS, LINK_TYPES, OPS

_TYPE_NAMES = {str: "a string", bool: "true or false", list: "a list", dict: "an object", float: "a number"}


def _bad(task: str, detail: str) -> MalformedReplyError:
    return MalformedReplyError(f"The model's {task} reply {detail}.")


def _get(
    obj: Mapping[str, Any], key: str, kind: type, task: str, where: str, *, required: bool = True
) -> Any:
    """``obj[key]`` checked against ``kind``; ``None`` when optional and missing or null."""
    if key not in obj or obj[key] is None:
        if required:
            raise _bad(task, f"is missing {where}{key!r}")
        return None
    value = obj[key]
    ok = (
        isinstance(value, int | float) and not isinstance(value, bool)
        if kind is float
        else isinstance(value, kind)
    )
    if not ok:
        raise _bad(task, f"has {where}{key!r} as {type(value).__name__}; expected {_TYPE_NAMES[kind]}")
    return value


def _text(
    obj: Mapping[str, Any], key: str, task: str, where: str = "", *, required: bool = True
) -> str | None:
    value = _get(obj, key, str, task, where, required=required)
    if value is None:
        return None
    value = value.strip()
    if not value:
        if required:
            raise _bad(task, f"has an empty {where}{key!r}")
        return None
    return cast(str, value)


def parse_extract(reply: Mapping[str, Any], message_ids: Collection[str]) -> list[Candidate]:
    task = "extract"
    memories = _get(reply, "memories", list, task, "")
    out: list[Candidate] = []
    for i, raw in enumerate(memories):
        where = f"memories[{i}]."
        if not isinstance(raw, dict):
            raise _bad(task, f"has memories[{i}] as {type(raw).__name__}; expected an object")
        message_id = _text(raw, "message_id", task, where)
        if message_id not in message_ids:
            raise _bad(
                task, f"cites message id {message_id!r} in {where[:-1]}, which is not one of the new messages"
            )
        kind = _text(raw, "kind", task, where)
        if kind not in EXTRACT_KINDS:
            raise _bad(task, f"has kind {kind!r} in {where[:-1]}; expected one of {', '.join(EXTRACT_KINDS)}")
        importance = _get(raw, "importance", float, task, where, required=False)
        predicate = _text(raw, "predicate", task, where, required=False)
        out.append(
            Candidate(
                message_id=cast(str, message_id),
                quote=cast(str, _text(raw, "quote", task, where)),
                text=cast(str, _text(raw, "text", task, where)),
                kind=Kind(kind),
                subject=_text(raw, "subject", task, where, required=False),
                # the inventory's one name for it ("relation:wife" is "relation:partner"), as the rules key it
                predicate=canonical(predicate) if predicate else predicate,
                value=_text(raw, "value", task, where, required=False),
                importance=0.5 if importance is None else min(1.0, max(0.0, float(importance))),
                ends=bool(_get(raw, "ends", bool, task, where, required=False)),
            )
        )
    return out


def refuse_context_quotes(
    candidates: Sequence[Candidate], messages: Mapping[str, str], context: Sequence[str]
) -> tuple[list[Candidate], list[Candidate]]:
    """(kept, refused): a candidate is refused when its quote is not in the new message it cites
    but is in a context turn, i.e. its evidence comes only from what was given as reference.
    (A quote found nowhere is left to the write path, which rejects it with its own reason.)"""
    kept: list[Candidate] = []
    refused: list[Candidate] = []
    for cand in candidates:
        cited = messages.get(cand.message_id, "")
        if context and locate(cited, cand.quote) is None and any(locate(t, cand.quote) for t in context):
            refused.append(cand)
        else:
            kept.append(cand)
    return kept, refused


def parse_reconcile(reply: Mapping[str, Any], neighbour_ids: Collection[str]) -> Decision:
    task = "reconcile"
    op = cast(str, _text(reply, "op", task)).upper()
    if op not in OPS:
        raise _bad(task, f"has op {op!r}; expected one of {', '.join(OPS)}")
    target = _text(reply, "target_id", task, required=False)
    if op == "ADD":
        target = None  # an ADD targets nothing, whatever the model put there
    elif target is None:
        raise _bad(task, f"has op {op} without a target_id")
    elif target not in neighbour_ids:
        raise _bad(task, f"targets id {target!r}, which is not one of the existing memories offered")
    return Decision(
        op=cast(Op, op),
        target_id=target,
        text=_text(reply, "text", task, required=False),
        reason=_text(reply, "reason", task, required=False) or "",
    )


def parse_answer(reply: Mapping[str, Any], item_ids: Collection[str]) -> AnswerDraft:
    task = "answer"
    cited = _get(reply, "cited_ids", list, task, "")
    for i, cid in enumerate(cited):
        if not isinstance(cid, str):
            raise _bad(task, f"has cited_ids[{i}] as {type(cid).__name__}; expected a string")
        if cid not in item_ids:
            raise _bad(task, f"cites id {cid!r}, which was not among the memories offered")
    text = _get(reply, "answer", str, task, "")
    abstained = _get(reply, "abstained", bool, task, "")
    sufficient = _get(reply, "sufficient", bool, task, "")
    if not abstained and not cited:
        raise _bad(
            task, "answers without citing any memory; it must cite the memories it relies on or abstain"
        )
    if not abstained and not text.strip():
        raise _bad(task, "has an empty answer without abstaining")
    unique = tuple(dict.fromkeys(cited))
    return AnswerDraft(
        text=text.strip(),
        cited_ids=() if abstained else unique,
        abstained=abstained,
        sufficient=False if abstained else sufficient,
    )


def parse_summary(reply: Mapping[str, Any]) -> str:
    return cast(str, _text(reply, "summary", "summarise"))


def parse_abstract(reply: Mapping[str, Any]) -> str:
    task = "abstract_experience"
    lists = {}
    for key in ("inputs", "procedure"):
        values = _get(reply, key, list, task, "")
        for i, value in enumerate(values):
            if not isinstance(value, str):
                raise _bad(task, f"has {key}[{i}] as {type(value).__name__}; expected a string")
        lists[key] = [v for v in values if v.strip()]
    if not lists["procedure"]:
        raise _bad(task, "has no procedure steps")
    return render_experience(
        cast(str, _text(reply, "name", task)),
        cast(str, _text(reply, "applies_when", task)),
        lists["inputs"],
        lists["procedure"],
        cast(str, _text(reply, "caution", task)),
    )


def parse_link(reply: Mapping[str, Any]) -> LinkVerdict:
    task = "link"
    kind = cast(str, _text(reply, "type", task)).lower()
    if kind not in LINK_TYPES:
        raise _bad(task, f"has type {kind!r}; expected one of {', '.join(LINK_TYPES)}")
    return LinkVerdict(type=cast(LinkType, kind), reason=_text(reply, "reason", task, required=False) or "")


def parse_hypothesis(reply: Mapping[str, Any]) -> str | None:
    """The hypothetical answer, cut to 500 characters; None when the reply holds no usable sentence
    (the search channel then adds nothing, so a missing answer is not worth asking again for)."""
    answer = reply.get("answer")
    return answer.strip()[:500] if isinstance(answer, str) and answer.strip() else None
