"""A correction makes a new version of the memory it corrects.

"Actually I moved to Porto, not Lisbon." after "I moved to Lisbon in March 2024." says the
stored value was wrong. Reconciliation alone sees a new fact beside an event and would keep
both current; this step, run by the write path on every candidate whatever model extracted it
(the decision is the engine's, from the speaker's own words in the quote), finds the current
memory of the same subject that holds the wrong value and plans an UPDATE of it:

- a statement ("I moved to Porto, not Lisbon", "I don't live in Lisbon anymore, I live in
  Porto") becomes the new version in its own words, without the "not Y" part ("User moved to
  Porto."); what the corrected memory said beyond it (its date) is not carried over, since the
  speaker restated the whole thing;
- a bare value ("Not Lisbon — Porto", "It was Maria, not Anna", "I meant Porto") takes the
  wrong value's place in the corrected memory's words, so the rest of it (its date) is kept:
  "User moved to Porto in March 2024.". "I meant X" without the wrong value corrects the
  newest keyed memory of the same subject (and predicate, when the candidate has one).

The subject is read from the memories' words ("User …", "Caroline …", "Caroline said: …"), so
a third person's correction touches only that person's memories; a bare value, which names no
one, corrects the speaker's own. When no current memory of that subject holds the wrong value,
nothing is planned here and the candidate goes through reconciliation as any other.
Pure functions over the memories the writer offers (core/write/derive.py): no SQL, no model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from veramem_desktop.core.llm import Candidate, Decision
from veramem_desktop.core.storage.episodes import Episode
from veramem_desktop.core.storage.items import ROLE_AUTHORITY, MemoryItem
from veramem_desktop.core.vocabulary import Authority, Kind, Status
from veramem_desktop.core.write import correction_forms
from veramem_desktop.core.write.correction_forms import Correction

#: memories read for a correction: the nearest of the scope by meaning (they hold the wrong value's
#: words), and for "I meant X" alone the newest of the scope
POOL = 50
#: the reason of every decision this step makes (core/write/decisions.py names the guard by it)
REASON = "a correction"
_COMMON_TEXT = """
    the and but not was were are has had have for with from into onto about user said this that
    these those they them their his her its our your you who what when where which will would
"""
_COMMON = frozenset(_COMMON_TEXT.split())
_CORRECTABLE = frozenset({Kind.FACT, Kind.PREFERENCE, Kind.EVENT})
_ATTRIBUTION = re.compile(r"^According to [^:]{1,80}:\s*")
_SAID = re.compile(r"^(?P<who>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?) said:\s")
_LEADING = re.compile(r"^(?P<who>[A-Z][\w-]*(?: [A-Z][\w-]*)?)(?P<poss>'s [a-z]+)?(?![\w'-])")
_NOT_SUBJECTS_TEXT = """
    It The A An This That There These Those Not Actually Correction No Yes Sorry Oh Well My Our Its I We He
    She They You
"""
_NOT_SUBJECTS = frozenset(_NOT_SUBJECTS_TEXT.split())


@dataclass(frozen=True)
class Corrected:
    """The plan for a correcting candidate: the memory it corrects (with its cosine to the candidate),
    the candidate as the new version states it, the decision, and the wrong value it takes back."""

    target: MemoryItem
    cosine: float
    candidate: Candidate
    decision: Decision
    wrong: str
    #: a change of state ("… now, not Lisbon"), not a mistake: the new version records no ``corrects``
    change: bool = False


def who(text: str) -> str | None:
    """Whom a memory's words are about: "user", "caroline", "user's sister"; None when they do not say."""
    text = _ATTRIBUTION.sub("", text)
    said = _SAID.match(text)
    if said:
        return said["who"].casefold()
    m = _LEADING.match(text)
    if not m or m["who"].split()[0] in _NOT_SUBJECTS:
        return None
    return (m["who"] + (m["poss"] or "")).casefold()


def speaker(ep: Episode) -> str | None:
    """Whom a bare correction is about: the person who said it (the user, or a named speaker); None for
    an assistant, a tool or a document, whose bare corrections are not read."""
    if ep.role not in ("user", "system"):
        return None
    return ep.source_name.casefold() if ep.source_name else "user"


def correct(
    cand: Candidate,
    text: str,
    ep: Episode,
    pool: Callable[[], Sequence[tuple[MemoryItem, float]]],
    recent: Callable[[], Sequence[MemoryItem]],
) -> Corrected | None:
    """The correction ``cand`` makes of a current memory, or None. ``text`` is the candidate's wording
    (dates resolved, attributed); ``pool`` gives the memories near it in its scope with their cosines,
    ``recent`` the newest of its scope, newest first (each read only when a correction is read)."""
    found = correction_forms.read(cand.quote)
    if found is None:
        return None
    subject = who(text) if found.form == "statement" else None
    subject = subject or speaker(ep)
    if subject is None:
        return None
    if found.wrong is None:
        return _meant(found, cand, text, subject, recent())
    cosines = {m.id: c for m, c in pool()}
    items = [m for m, _ in pool() if _correctable(m, subject, owned=found.form == "bare")]
    if found.change and found.shape != "no_longer":
        # what holds now ("I live in Porto now, not Lisbon") never makes a dated event untrue: "moved to
        # Lisbon in March" stays; one that says the old value stopped ("… not Lisbon anymore, I …") would
        # retract it, so it becomes that memory's new version instead
        items = [m for m in items if m.kind != Kind.EVENT]
    for wrong in _wrongs(found):
        holders = [m for m in items if correction_forms.holds(_words(m), m.value, wrong)]
        if not found.signalled:  # "I went to Paris, not London": only what it restates, not any London
            holders = [m for m in holders if _restates(m, cand, text, subject, wrong)]
        if holders:
            own = ROLE_AUTHORITY.get(ep.role, Authority.UNENDORSED)
            target = max(holders, key=lambda m: _fit(m, own, cand, text, cosines.get(m.id, 0.0), subject))
            return _planned(found, wrong, target, cosines.get(target.id, 0.0), cand, text)
    return None


def _meant(
    found: Correction, cand: Candidate, text: str, subject: str, recent: Sequence[MemoryItem]
) -> Corrected | None:
    """ "I meant X" without the wrong value corrects what the subject said last: the newest keyed memory
    of the candidate's predicate when it has one, else the subject's newest keyed memory whose value is
    of the same sort as X (a name for a name: "I meant Maria" after "My partner is Anna" and "I like
    tea"). A bare value is the speaker's own, so it also reaches what they said of their relations
    ("User's partner is Anna"). When that newest statement gave two values of X's sort under other
    keys ("My partner is Anna. I moved to Lisbon.": both valid from the same moment), nothing is
    corrected: the words do not say which, and a guess would write "User moved to Maria."."""
    mine = [m for m in recent if _correctable(m, subject, owned=found.form == "bare")]
    if cand.predicate:
        mine = [m for m in mine if m.predicate == cand.predicate]
    elif found.form == "statement":
        return None  # a whole statement with no key names nothing to correct
    keyed = [m for m in mine if m.value and m.predicate]
    if not cand.predicate and found.right:
        keyed = [m for m in keyed if (m.value or "")[:1].isupper() == found.right[:1].isupper()]
    if not keyed:
        return None
    last = keyed[0]
    if not cand.predicate and any(
        m.predicate != last.predicate and m.valid_from == last.valid_from for m in keyed
    ):
        return None  # "My partner is Anna. I moved to Lisbon.": which of the two X replaces would be a guess
    return _planned(found, last.value or "", last, 0.0, cand, text)


def _planned(
    found: Correction, wrong: str, target: MemoryItem, cosine: float, cand: Candidate, text: str
) -> Corrected | None:
    """The new version of ``target``: the statement restated, or the right value in the wrong one's
    place; None when the new words would still hold the wrong value."""
    if found.form == "statement":
        new_text = correction_forms.restated(text, found)
        new = replace(cand, text=new_text)
    else:
        right = found.right or ""
        new_text = correction_forms.substituted(_words(target), wrong, right) or ""
        value = target.value
        if value is not None and correction_forms.holds(value, value, wrong):
            value = correction_forms.substituted(value, wrong, right) or right
        new = replace(
            cand,
            text=new_text,
            kind=Kind(target.kind),  # one of _CORRECTABLE
            subject=target.subject,
            predicate=target.predicate,
            value=value,
        )
    if not new_text or correction_forms.holds(new_text, None, wrong):
        return None
    reason = f"{REASON}: {wrong!r} " + ("no longer holds" if found.change else "was wrong")
    decision = Decision("UPDATE", target.id, new_text, reason)
    return Corrected(target, cosine, new, decision, wrong, found.change)


def _wrongs(found: Correction) -> list[str]:
    """The wrong value as said, then as a stored memory may word it ("to Lisbon" -> "Lisbon"; after a
    retraction, "live in Lisbon" -> "Lisbon")."""
    out = [found.wrong] if found.wrong else []
    shorter = correction_forms.bare_wrong(found.wrong) if found.wrong else None
    if shorter:
        out.append(shorter)
    if found.shape == "no_longer" and found.wrong and len(found.wrong.split()) > 1:
        rest = correction_forms.bare_wrong(found.wrong.split(None, 1)[1]) or found.wrong.split(None, 1)[1]
        out.append(rest)
    return list(dict.fromkeys(out))


def _correctable(m: MemoryItem, subject: str, *, owned: bool = False) -> bool:
    """A current memory of one of the corrected kinds, about ``subject`` (or, when ``owned``, about
    something of theirs: "User's partner is Anna" for "user")."""
    if m.status != Status.ACTIVE or m.kind not in _CORRECTABLE:
        return False
    about = who(m.text) or (m.subject.casefold() if m.subject else None)
    return about == subject or (owned and about is not None and about.partition("'s ")[0] == subject)


def _fit(
    m: MemoryItem, own: str, cand: Candidate, text: str, cosine: float, subject: str
) -> tuple[int, int, int, int, float, str]:
    """How well a memory holding the wrong value fits the correction: the speaker's own authority (the
    user's memory before the assistant's echo of it), about the subject itself (before something of
    theirs: "User …" before "User's sister …"), the same predicate, words in common, closeness in
    meaning, then the newest."""
    exact = int(_correctable(m, subject))
    same_key = int(bool(cand.predicate) and m.predicate == cand.predicate)
    shared = len(_content(text) & _content(m.text))
    return (int(m.authority == own), exact, same_key, shared, cosine, m.id)


def _restates(m: MemoryItem, cand: Candidate, text: str, subject: str, wrong: str) -> bool:
    """Whether an unsignalled statement ("Caroline moved to Boston, not Denver") speaks of the same thing
    as the memory: the same predicate, or a word in common beyond whom it is about and the wrong value."""
    if cand.predicate and m.predicate == cand.predicate:
        return True
    return bool((_content(text) & _content(m.text)) - _content(subject) - _content(wrong))


def _content(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2 and w not in _COMMON}


def _words(m: MemoryItem) -> str:
    """A memory's words without the attribution of a lower-authority source (the correction is the
    speaker's own statement, attributed by the write path when it needs to be)."""
    return _ATTRIBUTION.sub("", m.text)
