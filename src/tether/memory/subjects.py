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
"changed to", "shut down", "obsolete", "used to", "stop using", "don't use", a clause of
"not" and what is no more ("CI is on GitHub Actions, not Travis"), a leading "Update:" or
"Correction:", or a clause ending in "now"; and the same changes said in German, French,
Spanish, Portuguese, Italian or Dutch ("statt", "nicht mehr", "désormais", "au lieu de",
"ya no", "en vez de", "em vez de", "non più", "invece di", "niet meer", "in plaats van"...:
the topic words the two share are names and terms more often than not, which read the same in
any language, so the clause rule holds there too) ("The frontend build is Vite now"; "Logs are now
shipped to Datadog" states a fact, it corrects none). It corrects an older memory when the
change bears on what the two share: the clause it is in (up to a `.`, `;`, `:`, `!`, `?` or
a comma) has a key term of the older's or a topic word it has (three letters or more, not a
common one such as "use", "run", "team"; its plural or tense aside), or they share a tag:
"actually we deploy with helm now" corrects "deploys use kubectl apply". A change elsewhere
in the memory bears on nothing the two share; nor does one on a narrower subject than the
shared word (the word followed by a preposition: "Deploys to staging no longer need
approval"), nor the place something moved to ("The frontend was moved to the backend's
monorepo"), nor "actually" after a verb, which only stresses it ("Nobody has actually
deployed on a Friday"). A leading "Update:" or "Correction:" bears on the whole memory. A
newer fact not worded as a correction supersedes nothing ("The rate limiter keeps its
counters in Redis" after "Redis listens on port 6379"); the dates memories are shown with
(`tools/memory_index.py`) let the model tell the current one where the wording does not."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

SUBJECTS_KEPT = 4096
"""The terms and subjects kept worked out in the process, by text and tags: a save compares its
memory with up to 64 others (`store.SUBJECT_DEPTH`), most of them the same from one save to the
next, and working each out again was most of a save's cost (`bench/memory_save_bench.py`). A
save needs their terms only (`terms_of`); a subject's topics and changes wait for a search."""
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
    r"|(?:was|were|has been|have been) (?:upgraded|changed|moved|replaced|swapped)"
    r"|changed to|shut down|obsolete|used to|stop using|(?:don['\u2019]t|do not|never) use"
    # The same changes said in the other languages most often written at work (German,
    # French, Spanish, Portuguese, Italian, Dutch): the words that say something is no more.
    r"|(?:an)?statt|stattdessen|nicht mehr|kein\w* mehr|ersetzt|umgestellt|umgezogen"
    r"|abgeschafft|veraltet|neuerdings|ab (?:jetzt|sofort)|inzwischen|mittlerweile"
    r"|désormais|dorénavant|au lieu d[eu']|(?:n['\u2019]|ne )\w+ plus|plus maintenant"
    r"|remplac[ée]e?s?|obsolète|migré|à partir de maintenant"
    r"|ya no|en (?:lugar|vez) de|reemplazad[oa]s?|sustituid[oa]s?|obsolet[oa]s?"
    r"|a partir de (?:ahora|agora)|desde ahora|migrad[oa]s?"
    r"|não \w+ mais|já não|em vez de|ao invés de|substituíd[oa]s?"
    r"|non \w+ più|non più|invece di|al posto di|sostituit[oia]|d['\u2019]ora in poi"
    r"|niet meer|in plaats van|vervangen|verouderd|voortaan|gemigreerd)\b"
    r"|^\s*not\b(?=\s+\w)"  # a clause of its own: "CI is on GitHub Actions, not Travis"
    r"|\bnow\b(?=\s*(?:[.!?;,:)]|$))",
    re.IGNORECASE,
)
_WHOLE_CORRECTION = re.compile(
    r"^\s*(?:update|correction|updated|corrected|korrektur|aktualisierung|mise à jour"
    r"|corrección|actualización|correção|atualização|correzione|aggiornamento|correctie)\s*:",
    re.IGNORECASE,
)
"""A memory saved as a correction of what it says: the change bears on all of it."""
_CLAUSE = re.compile(r"[^.;:!?,]+")
_STRESSED = re.compile(
    r"\b(?:is|are|was|were|has|have|had|do|does|did|can|could|will|would|should)\s+actually\b",
    re.IGNORECASE,
)
"""`actually` after a verb stresses it ("has actually deployed"): no change said."""
_NARROWED_TEXT = "to for of on in at from with about under over without"
_NARROWED = frozenset(_NARROWED_TEXT.split())
"""Words after which a shared word names a narrower subject ("deploys to staging")."""
_COMMON_TEXT = (
    "a an and are as at be by can do does for from how in is it its me my of on or our "
    "should so that the their there this to was we what when where which who why will "
    "with you your all also any are but each every get gets got go goes going gone has "
    "have had into just more most much need needs new not now off old one only other out "
    "over same some still than them then these they those too under up use used uses "
    "using run runs ran running make makes made team project thing things way ways time "
    "day days week weeks month months year years actually longer instead anymore "
    "switched replaced moved upgraded changed obsolete shut stop correction "
    # The other languages' change words and the commonest of their small words.
    "statt anstatt stattdessen nicht mehr kein keine ersetzt jetzt wir mit und der die das "
    "ist sind wird werden für von auf plus désormais maintenant les des une pour avec est "
    "sont nous dans lieu ahora los las una para con por son nosotros lugar vez mais agora "
    "não uma com são nós invece più non con sono noi niet meer voortaan het een met zijn"
)
_COMMON = frozenset(_COMMON_TEXT.split())
"""Words that name no topic: common English words, generic verbs, the correction's own."""


@dataclass(frozen=True)
class Terms:
    """A memory's key terms and words (lower case, a word's ends' punctuation aside) and its
    tags (but `FILE_TAG`): all `same_subject` needs."""

    keys: frozenset[str]
    words: frozenset[str]
    tags: frozenset[str]


@dataclass(frozen=True)
class Subject(Terms):
    """A memory's terms, its topics and the changes it says: what `corrects` needs."""

    topics: frozenset[str] = frozenset()
    """Its words that name a topic (not `_COMMON`), stemmed (`_stem`)."""
    correction: bool = False
    """Worded as a correction (`_CORRECTION`)."""
    bearing: tuple[frozenset[str], ...] = ()
    """For each change it says, the words it bears on (lower case, and their stems): those of
    its clause but a narrowed one and a place moved to; all its words for a whole correction."""


@lru_cache(maxsize=SUBJECTS_KEPT)
def terms_of(text: str, tags: tuple[str, ...]) -> Terms:
    """The memory's terms alone: a save compares its memory with up to 64 others, and their
    topics and changes (the clause-by-clause work) are needed only when one is a correction."""
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
    return Terms(frozenset(keys), frozenset(words), frozenset(tags) - {FILE_TAG})


@lru_cache(maxsize=SUBJECTS_KEPT)
def subject_of(text: str, tags: tuple[str, ...]) -> Subject:
    terms = terms_of(text, tags)
    words = terms.words
    topics = frozenset(_stem(w) for w in words if len(w) >= 3 and w.isalpha() and w not in _COMMON)
    bearing = _bearing(text)
    return Subject(terms.keys, words, terms.tags, topics, bool(bearing), bearing)


def _bearing(text: str) -> tuple[frozenset[str], ...]:
    """What each change `text` says bears on (`Subject.bearing`); none when it says none."""
    if _WHOLE_CORRECTION.search(text):
        return (_clause_words(text),)
    found: list[frozenset[str]] = []
    for clause in _CLAUSE.finditer(text):
        for change in _CORRECTION.finditer(clause.group(0)):
            if change.group(0).lower() == "actually" and _STRESSED.search(
                clause.group(0)[: change.end()]
            ):
                continue
            before = clause.group(0)[: change.start()]
            after = "" if "moved" in change.group(0).lower() else clause.group(0)[change.end() :]
            found.append(_clause_words(before, narrowed=True) | _clause_words(after))
    return tuple(found)


def _clause_words(text: str, *, narrowed: bool = False) -> frozenset[str]:
    """The words of `text` (lower case) and their stems; `narrowed`: but a word followed by
    a preposition and what follows it, a narrower subject ("deploys to staging")."""
    tokens = [m.group(1) or m.group(0) for m in _TOKEN.finditer(text)]
    words = [t.strip("./:-").lower() for t in tokens]
    if narrowed:
        cut = next((i for i in range(len(words) - 1) if words[i + 1] in _NARROWED), None)
        words = words if cut is None else words[:cut]
    return frozenset(w for word in words if word for w in (word, _stem(word)))


def same_subject(a: Terms, b: Terms) -> bool:
    return bool(a.keys & b.words or b.keys & a.words or a.tags & b.tags)


def corrects(newer: Subject, older: Subject) -> bool:
    """Whether `newer`, saved later, is worded as a correction of `older`: a change it says
    bears on a key term of the older's or a topic word the two share; or they share a tag."""
    if not newer.correction:
        return False
    if newer.tags & older.tags:
        return True
    shared = (newer.topics & older.topics) | (newer.keys & older.words) | (older.keys & newer.words)
    return any(bears & shared for bears in newer.bearing)


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
