"""How a search's memories are ordered.

The rule, in two steps:

1. Fusion: the memories found by words (FTS5's bm25, equal ranks the higher id first) and
   by meaning (cosine from `MIN_SIMILARITY`) are scored by reciprocal rank fusion, the sum
   over the two rankings of 1 / (`RRF_K` + rank), best first.
2. Newer above older on the same subject: of two found memories, the newer (its
   `created_at`: saved, or rewritten by a `replaces`, later; the higher id among equals) is
   put just above the older
   - when it is worded as a correction of the older (`subjects.corrects`: "actually we
     deploy with helm now" after "deploys use kubectl apply"), whatever the query's words and
     however far apart in meaning: the stale fact is never read before its correction; or
   - when they are within `NEAR_SIMILARITY` of each other by meaning and the newer was found
     in each way the older was (by words, by meaning) and has each of the query's words the
     older has. A fact saved again in new words without `replaces` ("... port 9090" after
     "... port 8080") is then read before the stale one; a query with a word only the older
     has ("port 8080") still finds the older first, and so do different facts near in
     meaning that the query's words tell apart ("backend" / "frontend").
   Two memories further apart in meaning, the newer not worded as a correction, are never
   reordered, even on one subject (`subjects.py`: a key term or a tag shared): a newer fact
   naming the same product or branch ("The rate limiter keeps its counters in Redis" after
   "Redis listens on port 6379") is most often a different fact. A save names such an older
   memory to the model (`Memory.near`), and the model's `replaces` is the supersession.
   A correction is put above the memory it corrects even when the query did not find it
   (its `by` is then `correction`): those the query found anywhere in its depth, and the
   newest memories in the file sharing a word with a found one and worded as a change.

A replaced memory never competes with its correction: `replaces` rewrites the memory in place
(`saving.rewrite`, its `created_at` the rewrite's), or removes it when the correction was
saved first (`saving.same_text`); a correction kept aside (`pending.py`) is applied before the
next search reads the memory."""

from __future__ import annotations

import math
import operator
import struct
from collections.abc import Collection, Mapping, Sequence
from typing import Literal

from tether.memory.saving import NEAR_SIMILARITY

RRF_K = 60
"""Reciprocal rank fusion's constant: a memory's score is the sum of 1 / (RRF_K + rank)."""

By = Literal["words", "meaning", "both", "correction"]
"""How a memory was found: by the query's words, its meaning, both, or as a correction of a
memory the query found (step 2)."""


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
    corrections: Collection[tuple[int, int]] = (),
) -> list[int]:
    """`order` with each memory preceded by the newer ones correcting it and those near it
    that were found in each way it was and have each query word it has (step 2 of the rule).
    `matched`: the query's words each memory has; `age`: (created_at, id), ordered as time;
    `vectors`: the memories' vectors as stored (a memory without one is near none);
    `corrections`: (newer, older) pairs, the newer worded as a correction of the older."""
    unpacked = {i: _unit(blob) for i, blob in vectors.items()}
    result = list(order)
    pos = 0
    while pos < len(result):
        older = result[pos]
        moved = False
        for later in result[pos + 1 :]:
            if age[later] > age[older] and (
                (later, older) in corrections
                or (
                    _covers(by[later], by[older])
                    and matched[later] >= matched[older]
                    and _near(unpacked.get(older), unpacked.get(later))
                )
            ):
                result.remove(later)
                result.insert(pos, later)  # a newer one still below it is looked for again
                moved = True
                break
        if not moved:
            pos += 1
    return result


def _covers(newer: By, older: By) -> bool:
    if "correction" in (newer, older):
        return False
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
