"""The words a package manager passes on to the script it runs (`npm run test -- --watch`,
`pnpm run build --watch`, `yarn build src`): the shell it starts sees the script's text with
each word appended, quoted (npm quotes each one), so that is what is judged. npm reads
every option before `--` (nopt: anywhere on its command line) and strips the `--`; one it
does not know it may take as a setting or pass on, so both are judged. pnpm, yarn and bun
pass on every word after the script's name, and may keep a `--` or strip it: both judged."""

from __future__ import annotations

import shlex

from tether.permissions.npm_config import NPM_VALUED, npm_setting
from tether.permissions.runner_tables import NPM
from tether.permissions.shell_words import is_literal

_NPM_OWN = NPM.flags | NPM.known() | NPM.picks
"""npm's own options: not passed to the script."""
_NPM_VALUED = NPM.known()


def passed_readings(name: str, after: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The ways the words `after` a script's name reach the script (one reading: certain)."""
    if name != "npm":
        if "--" not in after:
            return (after,)
        cut = after.index("--")
        return (after, (*after[:cut], *after[cut + 1 :]))
    sure: list[str] = []
    unknown: list[str] = []  # with the unknown options too
    i = 0
    while i < len(after):
        word = after[i]
        option, eq, _ = word.partition("=")
        if word == "--":
            sure += after[i + 1 :]
            unknown += after[i + 1 :]
            break
        settings = npm_setting(word) if word.startswith("-") and word != "-" else None
        if settings is not None or option in _NPM_OWN:
            valued = option in _NPM_VALUED or any(
                value is None and setting[2:] in NPM_VALUED for setting, value in settings or ()
            )
            i += 2 if valued and not eq else 1
            continue
        if not (word.startswith("-") and word != "-"):
            sure.append(word)
        unknown.append(word)
        i += 1
    if sure == unknown:
        return (tuple(sure),)
    return (tuple(unknown), tuple(sure))


def with_words(script: str, words: tuple[str, ...]) -> str:
    """The command the shell runs: the script's text and the words, each quoted."""
    if not words:
        return script
    return " ".join((script, *(shlex.quote(word) for word in words)))


def unknown_words(words: tuple[str, ...]) -> bool:
    """Whether some word passed is known only as the command runs."""
    return not all(is_literal(word) for word in words)
