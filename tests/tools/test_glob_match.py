"""The glob dialect Glob accepts, checked against paths relative to the search root."""

from __future__ import annotations

import pytest

from tether.tools.builtin.glob_match import compile_glob, split_static_prefix

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
