"""Hypothesis strategies for shell commands that hide the sentinel program in the positions of
`sentinel_positions.py`, nested in each other, mixed with look-alikes that never run it.

A command is its tags: code positions (outermost first), then wrappers of a simple command,
then the leaf (the sentinel's spelling and its arguments, a program option taking its name, or
a harmless command). `render` turns tags into the command, so a finding can be made smaller by
dropping tags (`smaller`) and rendering again.

Whether the sentinel really runs is not decided here: bash decides, in the sandbox. Many
generated commands do not run it (a quoted heredoc, a failing test before `&&`); those are the
harmless half, used to report how often the engine asks about harmless commands.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from hypothesis import strategies as st

from .sentinel_positions import ARGS, CODE_ROWS, HARMLESS, NAME_ROWS, SIMPLE_ROWS, names

_HARMLESS = dict(HARMLESS)
assert not (CODE_ROWS.keys() & SIMPLE_ROWS.keys()), "a tag must name one position"


@dataclass(frozen=True)
class Sample:
    command: str
    tags: tuple[str, ...]
    """The positions used, outermost first; `("example",)` for a hand-written command."""


def render(tags: tuple[str, ...], bin_dir: str) -> str:
    spellings = {tag: (setup, word) for tag, setup, word in names(bin_dir)}
    code_layers = [t for t in tags if t in CODE_ROWS]
    wrappers = [t for t in tags if t in SIMPLE_ROWS]
    leaf = [t for t in tags if t not in CODE_ROWS and t not in SIMPLE_ROWS]
    setup = ""
    if leaf[0].startswith("harmless:"):
        words = _HARMLESS[leaf[0].removeprefix("harmless:")]
    elif leaf[0].startswith("option:"):
        setup, word = spellings[leaf[1].removeprefix("name:")]
        words = NAME_ROWS[leaf[0].removeprefix("option:")](word)
    else:
        setup, word = spellings[leaf[0].removeprefix("name:")]
        words = word + (leaf[1].removeprefix("args:") if len(leaf) > 1 else "")
    for tag in reversed(wrappers):
        words = SIMPLE_ROWS[tag](words)
    code = setup + words
    for tag in reversed(code_layers):
        code = CODE_ROWS[tag](code)
    return code


def smaller(tags: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    """Tags one step simpler: a position dropped, the name spelled plainly, no arguments."""
    for i, tag in enumerate(tags):
        if tag in CODE_ROWS or tag in SIMPLE_ROWS:
            yield tags[:i] + tags[i + 1 :]
        elif tag.startswith("args:"):
            yield tags[:i]
        elif tag.startswith("name:") and tag != "name:plain":
            yield (*tags[:i], "name:plain", *tags[i + 1 :])


def sweep(bin_dir: str) -> list[Sample]:
    """Every position once, around the plainly named sentinel, and every spelling of its name
    alone: each class gets judged at least once, whatever the generator draws."""
    plain = ("name:plain", "args:")
    tagged = [(tag, *plain) for tag in CODE_ROWS]
    tagged += [(tag, *plain) for tag in SIMPLE_ROWS]
    tagged += [(f"option:{tag}", "name:plain") for tag in NAME_ROWS]
    tagged += [(f"name:{tag}", "args:") for tag, _, _ in names(bin_dir)]
    return [Sample(render(tags, bin_dir), tags) for tags in tagged]


def _leaf(bin_dir: str) -> st.SearchStrategy[tuple[str, ...]]:
    spelled = st.sampled_from([f"name:{tag}" for tag, _, _ in names(bin_dir)])
    sentinel = st.tuples(spelled, st.sampled_from([f"args:{a}" for a in ARGS]))
    harmless = st.sampled_from([(f"harmless:{tag}",) for tag in _HARMLESS])
    by_option = st.tuples(st.sampled_from([f"option:{tag}" for tag in NAME_ROWS]), spelled)
    # Harmless leaves twice: about half the commands should not run the sentinel, so that the
    # rate of harmless commands asked means something.
    return st.one_of(sentinel, harmless, by_option, harmless)


def samples(bin_dir: str, max_wrappers: int = 2, max_layers: int = 4) -> st.SearchStrategy[Sample]:
    """Commands of up to `max_layers` code positions around up to `max_wrappers` wrappers around
    a leaf."""

    @st.composite
    def build(draw: st.DrawFn) -> Sample:
        layers = draw(st.lists(st.sampled_from(list(CODE_ROWS)), max_size=max_layers))
        wrappers = draw(st.lists(st.sampled_from(list(SIMPLE_ROWS)), max_size=max_wrappers))
        tags = (*layers, *wrappers, *draw(_leaf(bin_dir)))
        return Sample(render(tags, bin_dir), tags)

    return build()
