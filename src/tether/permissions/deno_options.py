"""deno's options read from its words as deno's parser (clap) reads them: the one reading of
deno's command line, for its grants (deno_permissions.py) and what it writes
(deno_outputs.py)."""

from __future__ import annotations

SHORT = {
    "A": "--allow-all",
    "R": "--allow-read",
    "W": "--allow-write",
    "N": "--allow-net",
    "E": "--allow-env",
    "S": "--allow-sys",
    "I": "--allow-import",
    "P": "--permission-set",
}
VALUED = frozenset(
    {"--config", "--import-map", "--cert", "--location", "--seed", "--log-level", "--output"}
    | {"--name", "--entrypoint", "--root", "--target", "--junit-path"}
)
"""Long options whose value is the next word (`--config deno.json`), never the script."""
_SHORT_VALUED = frozenset("cLone")
"""Short letters taking a value (`-c` config, `-L` log level, `-o` output, `-n` name, `-e`
entrypoint): the rest of the word, or the next word."""


def deno_options(word: str, after: str | None) -> tuple[list[tuple[str, str | None]], int]:
    """The options one word gives, each (name, value or None), and how many of the next words
    they take (0 or 1; `after` is the next word), as deno's parser (clap) reads them:
    `--name=value`, `--name VALUE` for an option taking one; a group of short letters (`-rA`,
    `-qRW`), each its own option, where a permission letter takes a value only after `=`
    (`-rR=src`) and a letter taking a value (`-c`, `-L`, `-o`) takes the rest of the word or,
    when none is left, the next word, ending the group."""
    name, eq, value = word.partition("=")
    if word.startswith("--"):
        if name in VALUED and not eq:
            return [(name, after)], 1
        return [(name, value if eq else None)], 0
    options: list[tuple[str, str | None]] = []
    for j, letter in enumerate(word[1:], start=2):
        option = SHORT.get(letter, f"-{letter}")
        if letter in _SHORT_VALUED:
            rest = word[j:]
            options.append((option, rest if rest else after))
            return options, 0 if rest else 1
        if word[j : j + 1] == "=":
            options.append((option, word[j + 1 :]))
            return options, 0
        options.append((option, None))
    return options, 0


def deno_words(
    words: tuple[str, ...], script_ends: bool
) -> tuple[list[tuple[str, str | None]], list[str]]:
    """deno's options and operands in `words` (what follows its subcommand): the words after
    `--` are operands; with `script_ends` (a subcommand that runs a script) the first operand
    is the script and ends deno's own words (those after it are the script's)."""
    options: list[tuple[str, str | None]] = []
    operands: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            operands.extend(words[i:] if not script_ends else words[i : i + 1])
            break
        if not word.startswith("-") or word == "-":
            operands.append(word)
            if script_ends:
                break
            continue
        given, takes_next = deno_options(word, words[i] if i < len(words) else None)
        i += takes_next
        options.extend(given)
    return options, operands
