"""The arguments of `/name args` filled into a command's or a skill's body, as Claude Code
fills them: `$ARGUMENTS` is the whole string as typed; `$ARGUMENTS[N]` and `$N` are its Nth word,
counted from 0 (`$0` is the first), words split as a shell splits them, quotes taken off. A
place with no such word (`$3` of two words, `$1` with none) is left as written, as is `$1a`
(a longer name) and `\\$1` (escaped: it reads `$1`). When the body names none of them, the
arguments are appended as `ARGUMENTS: ...`. Before, `$1` was the first word, `$0` was left as
written and `$ARGUMENTS[0]` read as the whole string followed by `[0]`.
"""

from __future__ import annotations

import re
import shlex

_PLACES = re.compile(
    r"(?P<escaped>(?<!\\)\\(?=\$(?:ARGUMENTS|\d)))"
    r"|\$ARGUMENTS\[(?P<indexed>\d+)\]"
    r"|(?P<whole>\$ARGUMENTS)"
    r"|\$(?P<positional>\d+)(?!\w)"
)


def fill_arguments(body: str, args: str) -> str:
    """`body` with `args` in its places (see the module); `args` appended when it has none."""
    given = args.strip()
    words = _words(given)
    named = False
    escaped_up_to = -1

    def filled(match: re.Match[str]) -> str:
        nonlocal named, escaped_up_to
        if match["escaped"] is not None:
            escaped_up_to = match.end()  # the place there stays as written, its `\` dropped
            return ""
        if match.start() == escaped_up_to:
            return match[0]
        named = True
        if match["whole"] is not None:
            return given
        index = int(match["indexed"] or match["positional"])
        return words[index] if index < len(words) else match[0]

    body = _PLACES.sub(filled, body)
    if given and not named:
        body = f"{body}\n\nARGUMENTS: {given}"
    return body


def _words(args: str) -> list[str]:
    try:
        return shlex.split(args)
    except ValueError:  # an unclosed quote: words as typed
        return args.split()
