"""The glob dialect Glob accepts, checked against paths relative to the search root."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.tools.builtin.glob_match import (
    _brace_end,  # pyright: ignore[reportPrivateUsage]
    _class_end,  # pyright: ignore[reportPrivateUsage]
    _split_top_level,  # pyright: ignore[reportPrivateUsage]
    _translate_class,  # pyright: ignore[reportPrivateUsage]
    compile_glob,
    split_static_prefix,
)

CASES = [
    # pattern, anchored, path, matches
    ("*.py", False, "a.py", True),
    ("*.py", False, "src/deep/a.py", True),
    ("*.py", True, "src/a.py", False),
    ("*.py", False, "a.pyc", False),
    ("src/*.py", False, "src/a.py", True),
    ("src/*.py", False, "src/deep/a.py", False),
    ("src/*.py", False, "other/src/a.py", False),
    ("**/*.py", False, "a.py", True),
    ("**/*.py", False, "x/y/a.py", True),
    ("src/**/*.py", False, "src/a.py", True),
    ("src/**/*.py", False, "src/x/y/a.py", True),
    ("src/**", False, "src/x/y/a.py", True),
    ("src/**", False, "srcx/a.py", False),
    ("a**b", False, "axxb", True),
    ("a**b", False, "a/b", False),
    ("?.md", False, "a.md", True),
    ("?.md", False, "ab.md", False),
    ("*.{ts,tsx}", False, "c.tsx", True),
    ("*.{ts,tsx}", False, "c.js", False),
    ("{src,lib/{a,b}}/*.c", False, "lib/b/x.c", True),
    ("[!a]*.txt", False, "b.txt", True),
    ("[!a]*.txt", False, "a.txt", False),
    ("[]]x", False, "]x", True),
    ("\\*.txt", False, "*.txt", True),
    ("\\*.txt", False, "a.txt", False),
    ("*", False, ".hidden", True),
    ("a.b", False, "axb", False),
]


@pytest.mark.parametrize(("pattern", "anchored", "path", "expected"), CASES)
def test_compile_glob(pattern: str, anchored: bool, path: str, expected: bool) -> None:
    assert compile_glob(pattern, anchored=anchored)(path) is expected


def test_split_static_prefix() -> None:
    assert split_static_prefix("src/app/**/*.ts") == ("src/app", "**/*.ts")
    assert split_static_prefix("src/a.py") == ("src", "a.py")
    assert split_static_prefix("*/a.py") == ("", "*/a.py")
    assert split_static_prefix("a.py") == ("", "a.py")


def _reference(pattern: str) -> str:
    """The regular expression patterns were compiled to before the automaton (it backtracks:
    kept here as the judge, on inputs small enough for it)."""
    out: list[str] = []
    i = 0
    n = len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**", i):
            j = i + 2
            while j < n and pattern[j] == "*":
                j += 1
            whole_component = (i == 0 or pattern[i - 1] == "/") and (j == n or pattern[j] == "/")
            if not whole_component:
                out.append("[^/]*")
            elif j == n:
                out.append(".*")
            else:
                out.append("(?:.*/)?")
                j += 1
            i = j
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        elif c == "[" and (end := _class_end(pattern, i)) > 0:
            out.append(_translate_class(pattern[i + 1 : end]))
            i = end
        elif c == "{" and (end := _brace_end(pattern, i)) > 0:
            options = _split_top_level(pattern[i + 1 : end])
            out.append("(?:" + "|".join(_reference(option) for option in options) + ")")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


_PIECES = ["a", "b", "/", "*", "**", "?", "[ab]", "[!a]", "[]]", "{", "}", ",", "\\", ".", "]"]


@settings(max_examples=1500, deadline=None, database=None)
@given(
    pattern=st.lists(st.sampled_from(_PIECES), max_size=8).map("".join),
    path=st.text("ab/.]*", max_size=8),
    anchored=st.booleans(),
)
def test_the_automaton_matches_as_the_expression_did(
    pattern: str, path: str, anchored: bool
) -> None:
    regex = re.compile(_reference(pattern), re.DOTALL)
    subject = path if anchored or "/" in pattern else path.rpartition("/")[2]
    expected = regex.fullmatch(subject) is not None
    assert compile_glob(pattern, anchored=anchored)(path) is expected


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("a*a*a*a*a*a*a*a*a*a*b", "a" * 20_000),
        ("**/**/**/**/**/**/x", "a/" * 10_000 + "y"),
        ("*{a,b}*{a,b}*{a,b}*{a,b}*c", "ab" * 10_000),
        ("**/*a*a*a*/**/*b", "a/" * 5_000 + "a" * 5_000),
    ],
)
def test_many_stars_against_a_long_path_finish(pattern: str, path: str) -> None:
    """Each took minutes or more as a regular expression; the automaton's work grows with the
    path's length only (no timing asserted: the test would not finish otherwise)."""
    assert compile_glob(pattern, anchored=True)(path) is False
