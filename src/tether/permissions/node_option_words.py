"""The words node reads from `NODE_OPTIONS` (and from a package runner's `--node-options`,
which it passes on as `NODE_OPTIONS`), split by node's own rules (`ParseNodeOptionsEnvVar` in
node's `src/node_options.cc`), not a shell's: only a space parts words; only `"` quotes; a
backslash escapes the next character only inside `"`; `'` is an ordinary character. A value
shlex reads as one harmless `--title='a --require ./x.js'` is four words to node, one of them
`--require`."""

from __future__ import annotations


def node_option_words(value: str) -> tuple[str, ...] | None:
    """The words node splits `value` into, or None when node refuses it (a backslash ending
    the value inside quotes, a quote left open): node then starts nothing, but a value the
    engine cannot split exactly as node does is not one it can call harmless."""
    words: list[str] = []
    quoted = False
    starts_word = True
    index = 0
    while index < len(value):
        char = value[index]
        if char == "\\" and quoted:
            if index + 1 == len(value):
                return None
            index += 1
            char = value[index]
        elif char == " " and not quoted:
            starts_word = True
            index += 1
            continue
        elif char == '"':
            quoted = not quoted
            index += 1
            continue
        if starts_word:
            words.append(char)
            starts_word = False
        else:
            words[-1] += char
        index += 1
    return None if quoted else tuple(words)


def node_option_readings(value: str) -> tuple[tuple[str, ...], ...] | None:
    """Every way a node may read `value`: by today's rules, and as the node before 12 did
    (split at each space, quotes kept), so a value is harmless only when it is in both; None
    when today's node refuses it."""
    today = node_option_words(value)
    if today is None:
        return None
    older = tuple(word for word in value.split(" ") if word)
    return (today,) if older == today else (today, older)
