"""What a memory is about, beyond its meaning: the names it holds, the tags it was saved with,
its topic words, and whether it is worded as a correction.

A save names to the model an older memory on its subject, which it may correct though worded
far from it (a cosine under `NEAR_SIMILARITY`; `store.py`, `Memory.near`). A search puts a
newer memory worded as a correction of an older one on its subject above it, whatever the
query's words (`ranking.py`); a shared subject alone is not supersession.

A memory's key terms are the words that name something: an identifier or a path (a word
with `.`, `/`, `:`, `-` or `_` inside: `settings.yaml`, `deploy-prod`, `src/app`), a word
in backticks, a word with capitals inside it (`ArgoCD`, `API`), and a capitalised word that
does not begin a sentence (`Postgres`, `Jenkins`: a sentence's first word is capitalised
whatever it is). Two memories are on the same subject when one's key term is a word of the
other ("Deploy with the Jenkins job" / "Jenkins is gone: deploys run from ArgoCD"), or when
they share a tag (but `memory.md`, which every piece of the memory file has).

A correction says that something changed: "actually", "no longer", "anymore", "instead",
"switched", "moved to", "replaced", "is gone", "was upgraded", "from now on", "these days",
or a clause ending in "now" ("The frontend build is Vite now"; "Logs are now shipped to
Datadog" states a fact, it corrects none). It corrects an older memory on its subject, or one
sharing a topic word with it: a word of three letters or more, not a common one ("use",
"run", "team"), its plural or tense aside ("deploys use kubectl apply" / "actually we deploy
with helm now"). A newer fact that is not worded as a correction supersedes nothing ("The rate
limiter keeps its counters in Redis" after "Redis listens on port 6379")."""

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
_CORRECTION = re.compile(
    r"\b(?:actually|no longer|not any ?more|anymore|instead|nowadays|these days|from now on"
    r"|switched|replaced|retired|deprecated|migrated|renamed|moved (?:to|from|into|under|over)"
    r"|(?:is|are|has been|have been) (?:gone|dropped|removed)"
    r"|(?:was|were|has been|have been) (?:upgraded|changed|moved|replaced|swapped))\b"
    r"|\bnow\b(?=\s*(?:[.!?;,:)]|$))",
    re.IGNORECASE,
)
_COMMON_TEXT = (
    "a an and are as at be by can do does for from how in is it its me my of on or our "
    "should so that the their there this to was we what when where which who why will "
    "with you your all also any are but each every get gets got go goes going gone has "
    "have had into just more most much need needs new not now off old one only other out "
    "over same some still than them then these they those too under up use used uses "
    "using run runs ran running make makes made team project thing things way ways time "
    "day days week weeks month months year years actually longer instead anymore "
    "switched replaced moved upgraded changed"
)
_COMMON = frozenset(_COMMON_TEXT.split())
"""Words that name no topic: common English words, generic verbs, the correction's own."""


@dataclass(frozen=True)
class Subject:
    """A memory's key terms and words (lower case, a word's ends' punctuation aside) and its
    tags (but `FILE_TAG`)."""

    keys: frozenset[str]
    words: frozenset[str]
    tags: frozenset[str]
    topics: frozenset[str] = frozenset()
    """Its words that name a topic (not `_COMMON`), stemmed (`_stem`)."""
    correction: bool = False
    """Worded as a correction (`_CORRECTION`)."""


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
    topics = frozenset(_stem(w) for w in words if len(w) >= 3 and w.isalpha() and w not in _COMMON)
    return Subject(
        frozenset(keys),
        frozenset(words),
        frozenset(tags) - {FILE_TAG},
        topics,
        bool(_CORRECTION.search(text)),
    )


def same_subject(a: Subject, b: Subject) -> bool:
    return bool(a.keys & b.words or b.keys & a.words or a.tags & b.tags)


def corrects(newer: Subject, older: Subject) -> bool:
    """Whether `newer`, saved later, is worded as a correction of `older`: on its subject
    (`same_subject`) or sharing a topic word with it."""
    return newer.correction and bool(same_subject(newer, older) or newer.topics & older.topics)


def _stem(word: str) -> str:
    """`word` with its plural or tense taken off, enough for one word's forms to meet
    ("deploys", "deployed", "deploy"; "releases", "release")."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    return word.removesuffix("e") if len(word) > 3 else word


def _is_key(word: str, starts_sentence: bool) -> bool:
    if not any(c.isalpha() for c in word):  # a number or a version: no name
        return False
    if _JOINED.search(word) or _INNER_CAPITAL.search(word):
        return True
    return word[0].isupper() and not starts_sentence
