"""What a memory is about, beyond its meaning: the names it holds and the tags it was saved
with, so that a save names to the model an older memory it may correct though worded far
from it (a cosine under `NEAR_SIMILARITY`; `store.py`, `Memory.near`). Search never reorders
on a subject alone (`ranking.py`): a shared key term is not supersession.

A memory's key terms are the words that name something: an identifier or a path (a word
with `.`, `/`, `:`, `-` or `_` inside: `settings.yaml`, `deploy-prod`, `src/app`), a word
in backticks, a word with capitals inside it (`ArgoCD`, `API`), and a capitalised word that
does not begin a sentence (`Postgres`, `Jenkins`: a sentence's first word is capitalised
whatever it is). Two memories are on the same subject when one's key term is a word of the
other ("Deploy with the Jenkins job" / "Jenkins is gone: deploys run from ArgoCD"), or when
they share a tag (but `memory.md`, which every piece of the memory file has)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

SUBJECTS_KEPT = 4096
"""The subjects kept worked out in the process, by text and tags: a save compares its memory
with up to 64 others (`store.SUBJECT_DEPTH`), most of them the same from one save to the next,
and working each out again was most of a save's cost (`bench/memory_save_bench.py`)."""
FILE_TAG = "memory.md"
"""The tag of the memory file's pieces (`cli/memory_setup.py`): no subject of its own."""

_TOKEN = re.compile(r"`([^`]+)`|[\w./:\-]+")
_JOINED = re.compile(r"\w[./:\-_]\w")
_INNER_CAPITAL = re.compile(r"\w[A-Z]")
_SENTENCE_END = re.compile(r"[.!?:;]$")


@dataclass(frozen=True)
class Subject:
    """A memory's key terms and words (lower case, a word's ends' punctuation aside) and its
    tags (but `FILE_TAG`)."""

    keys: frozenset[str]
    words: frozenset[str]
    tags: frozenset[str]


@lru_cache(maxsize=SUBJECTS_KEPT)
def subject_of(text: str, tags: tuple[str, ...]) -> Subject:
    keys: set[str] = set()
    words: set[str] = set()
    starts_sentence = True
    for match in _TOKEN.finditer(text):
        quoted, raw = match.group(1), match.group(0)
        word = (quoted or raw).strip("./:-").lower()
        if word:
            words.add(word)
            if quoted or _is_key(raw.strip("./:-"), starts_sentence):
                keys.add(word)
        starts_sentence = bool(_SENTENCE_END.search(raw))
    return Subject(frozenset(keys), frozenset(words), frozenset(tags) - {FILE_TAG})


def same_subject(a: Subject, b: Subject) -> bool:
    return bool(a.keys & b.words or b.keys & a.words or a.tags & b.tags)


def _is_key(word: str, starts_sentence: bool) -> bool:
    if not any(c.isalpha() for c in word):  # a number or a version: no name
        return False
    if _JOINED.search(word) or _INNER_CAPITAL.search(word):
        return True
    return word[0].isupper() and not starts_sentence
