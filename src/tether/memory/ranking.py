"""How a search's memories are ordered.

The rule, in two steps:

1. Fusion: the memories found by words (FTS5's bm25, equal ranks the higher id first) and
   by meaning (cosine from `MIN_SIMILARITY`) are scored by reciprocal rank fusion, the sum
   over the two rankings of 1 / (`RRF_K` + rank), best first.
2. Newer above older on the same subject: of two found memories on the same subject, the
   newer (its `created_at`: saved, or rewritten by a `replaces`, later; the higher id among
   equals) is put just above the older when it was found in each way the older was (by
   words, by meaning) and has the query's words that tell the two apart. Two memories are on
   the same subject when they are within `NEAR_SIMILARITY` of each other by meaning, or, however
   worded, when one names what the other names or they share a tag (`subjects.py`: a key
   term of one is a word of the other). Of two near ones, the newer must have each of the
   query's words the older has: a fact saved again in new words without `replaces` ("...
   port 9090" after "... port 8080") is read before the stale one; a query with a word only
   the older has ("port 8080") still finds the older first, and so do different facts near
   in meaning that the query's words tell apart ("backend" / "frontend"). Of two far in
   meaning, worded apart anyway, only the query's words that name the older (its key terms'
   words and its numbers) must be in the newer: "Jenkins is gone: production deploys now run
   from ArgoCD" is read before "Deploy to production with the Jenkins job deploy-prod" for
   "how do I deploy to production", and the older first for "deploy-prod".

A replaced memory never competes with its correction: `replaces` rewrites the memory in place
(`saving.rewrite`, its `created_at` the rewrite's), or removes it when the correction was
saved first (`saving.same_text`); a correction kept aside (`pending.py`) is applied before the
next search reads the memory."""

from __future__ import annotations

import math
import operator
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from tether.memory.saving import NEAR_SIMILARITY
from tether.memory.subjects import Subject, same_subject

RRF_K = 60
"""Reciprocal rank fusion's constant: a memory's score is the sum of 1 / (RRF_K + rank)."""

By = Literal["words", "meaning", "both"]


def fused(by_words: Sequence[int], by_meaning: Sequence[int]) -> dict[int, float]:
    """Each memory's reciprocal rank fusion score, best first."""
    scores: dict[int, float] = {}
    for ranking in (by_words, by_meaning):
        for rank, memory_id in enumerate(ranking):
            scores[memory_id] = scores.get(memory_id, 0.0) + 1 / (RRF_K + rank + 1)
    return dict(sorted(scores.items(), key=lambda item: -item[1]))


def by_of(words: bool, meaning: bool) -> By:
    return "both" if words and meaning else "words" if words else "meaning"


def newer_first(
    order: Sequence[int],
    by: Mapping[int, By],
    matched: Mapping[int, frozenset[str]],
    age: Mapping[int, tuple[str, int]],
    vectors: Mapping[int, bytes],
    subject: Callable[[int], Subject],
) -> list[int]:
    """`order` with each memory preceded by the newer ones on its subject that were found in
    each way it was and have the query words that tell them apart (step 2 of the rule).
    `matched`: the query's words each memory has; `age`: (created_at, id), ordered as time;
    `vectors`: the memories' vectors as stored (a memory without one is near none);
    `subject`: what each is about (`subjects.subject_of`; asked only of two far in
    meaning)."""
    unpacked = {i: _unit(blob) for i, blob in vectors.items()}
    result = list(order)
    pos = 0
    while pos < len(result):
        older = result[pos]
        moved = False
        for later in result[pos + 1 :]:
            if (
                age[later] > age[older]
                and _covers(by[later], by[older])
                and _supersedes(later, older, matched, unpacked, subject)
            ):
                result.remove(later)
                result.insert(pos, later)  # a newer one still below it is looked for again
                moved = True
                break
        if not moved:
            pos += 1
    return result


def _supersedes(
    later: int,
    older: int,
    matched: Mapping[int, frozenset[str]],
    unpacked: Mapping[int, tuple[float, ...]],
    subject: Callable[[int], Subject],
) -> bool:
    """Whether `later`, on `older`'s subject, has the query's words that tell them apart."""
    if _near(unpacked.get(older), unpacked.get(later)):
        return matched[later] >= matched[older]
    if not same_subject(subject(older), subject(later)):
        return False
    return matched[later] >= matched[older] & subject(older).key_words


def _covers(newer: By, older: By) -> bool:
    return newer == "both" or newer == older


def _near(a: tuple[float, ...] | None, b: tuple[float, ...] | None) -> bool:
    if a is None or b is None or len(a) != len(b):
        return False
    return _dot(a, b) >= NEAR_SIMILARITY


def _unit(blob: bytes) -> tuple[float, ...]:
    values = struct.unpack(f"{len(blob) // 4}f", blob)
    norm = math.sqrt(_dot(values, values)) or 1.0
    return tuple(v / norm for v in values)


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(map(operator.mul, a, b))
