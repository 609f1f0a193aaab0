"""Near misses of rejected values: what is held for a person to decide (core/storage/rejections.py).

A value of one to three words is also kept by its *near keys*: keyed hashes of the variants its
skeleton (the words joined by one space) has after up to one edit (two from eight characters): a
character deleted, one replaced by a wildcard, two neighbours swapped. A run of words of another text
whose own variants meet one of them within that many edits in all ("Berlln" or "Ber1in" after
"Berlin", "Porlamoo" after "Porlamo", "New Yrok" after "New York") is a near miss: the text is *held*
(withheld as ``resembles``) on every path that stores text, since they all call
rejections.withhold_if_rejected. The variants are computed the same way on both sides (a
symmetric-deletion index), so no rejected word is kept in clear. Texts stored before the rejection
are compared in clear when it is recorded (the value is in hand then).
"""

from __future__ import annotations

from itertools import combinations

from rapidfuzz.distance import OSA
from veramem_desktop.core.storage import meta, rejection_rows, scope_texts
from veramem_desktop.core.storage import rejection_keys as keys
from veramem_desktop.core.storage.rejection_keys import ascii_skeleton, phrase_of, scope_of
from veramem_desktop.core.storage.store import Connection
from veramem_desktop.core.text.normalize import phrase_words

#: (subject, predicate) of a near key: ``skeleton`` holds a variant's digest, ``norm_value``
#: "edits used:edits allowed:words:characters"
NEAR_KEY = ("*", "near")
#: shortest rejected value recognised by its near misses, and the length from which two edits count
NEAR_MIN_CHARS = 5
NEAR_TWO_EDITS_CHARS = 8
#: longest value, in words, recognised by its near misses
NEAR_MAX_WORDS = 3
_WILD = "?"  # never a character of a skeleton's word


def near_edits(word: str) -> int:
    """How many edits a near miss of the rejected ``word`` may be (0: too short to tell)."""
    if len(word) < NEAR_MIN_CHARS:
        return 0
    return 2 if len(word) >= NEAR_TWO_EDITS_CHARS else 1


def variants(word: str, edits: int, *, swaps: bool = False) -> dict[str, int]:
    """Each string ``word`` becomes after up to ``edits`` deletions or wildcard replacements (and, with
    ``swaps``, one swap of neighbours), with the fewest edits that give it. Pure."""
    out = {word: 0}
    frontier = [word]
    for step in range(1, edits + 1):
        made_now: list[str] = []
        for text in frontier:
            for i in range(len(text)):
                if text[i] == _WILD:
                    continue
                for made in (text[:i] + text[i + 1 :], text[:i] + _WILD + text[i + 1 :]):
                    if made and made not in out:
                        out[made] = step
                        made_now.append(made)
        frontier = made_now
    if swaps:
        for i in range(len(word) - 1):
            made = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
            out.setdefault(made, 1)
    return out


#: meta flag: the near keys of rejections recorded before near keys existed were made
NEAR_BACKFILLED = "rejection_near_keys"


def _backfill_near(conn: Connection) -> None:
    """Once per store: near keys for the rejected memories still here that were recorded before near keys
    existed (their value is kept on the rejected row, so nothing is read that a person did not keep)."""
    if meta.get(conn, NEAR_BACKFILLED) is not None:
        return
    for memory_id, user_id, team_id, value in rejection_rows.rejected_memories(conn):
        words = phrase_of(value)
        if words is not None and len(words) <= NEAR_MAX_WORDS:
            record_near_keys(conn, memory_id, user_id, scope_of(user_id, team_id), " ".join(words))
    meta.put(conn, NEAR_BACKFILLED, "1")


def record_near_keys(conn: Connection, memory_id: str, user_id: str | None, scope: str, word: str) -> None:
    edits = near_edits(word)
    if not edits:
        return
    secret = keys.secret(conn)
    subject, predicate = keys.digest(secret, NEAR_KEY[0]), keys.digest(secret, NEAR_KEY[1])
    for variant, used in sorted(variants(word, edits, swaps=True).items(), key=lambda kv: kv[1]):
        rejection_rows.add_value(
            conn,
            user_id=user_id,
            subject=subject,
            predicate=predicate,
            scope=scope,
            norm_value=f"{used}:{edits}:{len(word.split())}:{len(word)}",
            skeleton=keys.digest(secret, "near\x1f" + variant),
            memory_id=memory_id,
        )


def near_miss(conn: Connection, *, user_id: str | None, team_id: str | None, text: str) -> bool:
    """Whether ``text`` holds a word (or a run of up to three) within a few edits of a value rejected in
    this scope (the same words themselves are :func:`holding`'s)."""
    scope = scope_of(user_id, team_id)
    if not rejection_rows.scope_has_values(conn, scope):
        return False
    _backfill_near(conn)
    secret = keys.secret(conn)
    rows = rejection_rows.phrase_keys(
        conn, scope, keys.digest(secret, NEAR_KEY[0]), keys.digest(secret, NEAR_KEY[1])
    )
    if not rows:
        return False
    near: dict[str, tuple[int, int]] = {}
    shapes: set[tuple[int, int]] = set()  # (words, characters) of the rejected values
    for norm, found_digest in rows:
        parts = norm.split(":")
        if len(parts) != 4 or not all(p.isdigit() for p in parts):
            continue  # not a near key this code wrote
        used, allowed, n, length = (int(p) for p in parts)
        near[found_digest] = (used, allowed)
        shapes.add((n, length))
    if not near:
        return False
    most = max(a for _, a in near.values())
    words = phrase_words(text)
    # each run of as many words as a rejected value has, joined by one space as its near keys were, and
    # within a few characters of its length (the others cannot be a few edits away)
    runs = {
        run
        for n, length in shapes
        for i in range(len(words) - n + 1)
        if abs(len(run := " ".join(words[i : i + n])) - length) <= most
    }
    # the same, with the words of a run written apart ("Be rlin", "B e r l i n", "B-e-r-l-i-n"): glued
    # together, even the value itself is a near miss, since its exact keys never see it split
    glued = {run for n, length in shapes for run in joined_runs(words, n, length, most)}
    for run in runs | glued:
        least = 0 if run in glued else 1
        for variant in variants(run, most):
            found = near.get(keys.digest(secret, "near\x1f" + variant))
            # equal variants have their wildcards in the same places, each one substitution (counted on
            # the rejected side); the deletions made here are the rest of the edits between the runs
            if found is not None and least <= found[0] + len(run) - len(variant) <= found[1]:
                return True
    return False


def joined_runs(words: list[str], n: int, length: int, slack: int) -> set[str]:
    """Runs of more than ``n`` consecutive words glued back into ``n`` (a value written apart, a letter or
    a few at a time), of about ``length`` characters (within ``slack``). Each run is glued whole, and with
    one space kept at each place a value of several words has one (runs of up to ``length`` words)."""
    out: set[str] = set()
    for i in range(len(words)):
        size = 0
        for j in range(i, min(len(words), i + length)):
            size += len(words[j])
            if size > length + slack:
                break
            part = words[i : j + 1]
            if len(part) > n and abs(size + n - 1 - length) <= slack:
                out.add("".join(part))
                out.update(_glued_in(part, n))
    return out


def _glued_in(part: list[str], n: int) -> set[str]:
    """``part`` glued into ``n`` words at each split of it into ``n`` pieces (one piece: none)."""
    if n <= 1:
        return set()
    if n > 3 or len(part) > 12:
        return set()
    return {
        " ".join("".join(part[a:b]) for a, b in zip((0, *cuts), (*cuts, len(part)), strict=True))
        for cuts in combinations(range(1, len(part)), n - 1)
    }


def hold_near_holders(
    conn: Connection, memory_id: str, user_id: str | None, team_id: str | None, value: str
) -> list[str]:
    """Hold ('resembles') the texts of the scope stored before the rejection that hold a near miss of
    ``value`` (its skeleton words): runs of as many words within the edits allowed, by optimal string
    alignment (an edit or a swap of neighbours each count one). The value is in hand here, so the texts
    are compared in clear; an ASCII text sharing no three letters with it is passed over unread."""
    edits = near_edits(value)
    if not edits:
        return []
    n = len(value.split())
    grams = {value[i : i + 3] for i in range(len(value) - 2)}
    out = []
    for kind, texts in (("episode", scope_texts.episode_texts), ("memory", scope_texts.memory_texts)):
        for owner_id, text in texts(conn, user_id, team_id):
            words = phrase_words(text)
            # a value written apart shares its three letters only once the words are glued
            if text.isascii() and not any(g in ascii_skeleton(text) or g in "".join(words) for g in grams):
                continue
            runs = (" ".join(words[i : i + n]) for i in range(len(words) - n + 1))
            glued = joined_runs(words, n, len(value), edits)
            if (
                any(
                    abs(len(run) - len(value)) <= edits
                    and 0 < OSA.distance(run, value, score_cutoff=edits) <= edits
                    for run in runs
                )
                or any(OSA.distance(run, value, score_cutoff=edits) <= edits for run in glued)
            ) and rejection_rows.withhold(conn, kind, owner_id, "resembles", memory_id):
                out.append(owner_id)
    return out
