"""Name patterns are read as glibc's fnmatch reads them (find, grep): backslash escapes,
`[^...]`, POSIX classes, collating symbols, equivalence classes, FNM_CASEFOLD; a pattern the
locale decides is not judged. Where this machine's C library is glibc, every answer is
checked against its own fnmatch."""

from __future__ import annotations

import ctypes
import ctypes.util
import itertools

import pytest

from tether.permissions.glibc_fnmatch import matches

# (pattern, name, casefold, glibc's answer), each checked with glibc 2.36's fnmatch; None
# where glibc reads a range to or from a named element its own way (not judged).
KNOWN = [
    (r".\env", ".env", False, True),
    (r"\.env", ".env", False, True),
    (r".\e\n\v", ".env", False, True),
    (".[^a]nv", ".env", False, True),
    (".[!a]nv", ".env", False, True),
    (".[^e]nv", ".env", False, False),
    (".[[:alpha:]]nv", ".env", False, True),
    (".[[:digit:]]nv", ".env", False, False),
    (".[[.e.]]nv", ".env", False, True),
    (".[[=.=]]env", "..env", False, True),
    ("[[:punct:]]env", ".env", False, True),
    (".[[:alpha:][:digit:]]nv", ".env", False, True),
    (r".[\e]nv", ".env", False, True),
    ("*env", ".env", False, True),
    ("?env", ".env", False, True),
    ("[]]x", "]x", False, True),
    ("[!]]x", "]x", False, False),
    ("[a-]x", "-x", False, True),
    ("[[.-.]-z]x", "ax", False, None),
    (".e[o-m]v", ".env", False, False),
    ("[abc", "[abc", False, True),
    ("[[.e.]-]", "e", False, None),
    ("[a-[=.=]", ".", False, None),
    ("a\\", "a\\", False, False),
    (".ENV", ".env", True, True),
    (".[[:upper:]]NV", ".eNV", True, False),
    ("[[:upper:]]*", "Env", True, True),
    ("[[:upper:]]*", "env", True, False),
    (".[[.e.]]nv", ".ENV", True, False),
    (".[E]nv", ".env", True, True),
]


@pytest.mark.parametrize(("pattern", "name", "casefold", "expected"), KNOWN)
def test_patterns_match_as_glibc_matches_them(
    pattern: str, name: str, casefold: bool, expected: bool | None
) -> None:
    assert matches(name, pattern, casefold) is expected


@pytest.mark.parametrize(
    "pattern", [".[[=e=]]nv", ".[[.space.]]env", ".[[:letters:]]nv", ".[a-é]nv"]
)
def test_patterns_the_locale_decides_are_not_judged(pattern: str) -> None:
    assert matches(".env", pattern) is None


def _glibc_fnmatch() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    libc = ctypes.CDLL(name)
    if not hasattr(libc, "gnu_get_libc_version"):
        return None
    libc.fnmatch.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    return libc


def test_every_answer_is_glibcs_own() -> None:
    libc = _glibc_fnmatch()
    if libc is None:
        pytest.skip("the C library here is not glibc")
    pieces = [
        "\\",
        "[",
        "]",
        "!",
        "^",
        "-",
        "a",
        "e",
        "E",
        ".",
        "*",
        "?",
        "[:alpha:]",
        "[.e.]",
        "[=.=]",
    ]
    names = [".env", "e", "E", "a", "-", "]", "[", "\\", ".", "ae", "]e", "!", "^"]
    checked = 0
    for size in (1, 2, 3):
        for parts in itertools.product(pieces, repeat=size):
            pattern = "".join(parts)
            for name, casefold in itertools.product(names, (False, True)):
                ours = matches(name, pattern, casefold)
                if ours is None:
                    continue
                theirs = libc.fnmatch(pattern.encode(), name.encode(), 16 if casefold else 0) == 0
                assert ours is theirs, (pattern, name, casefold)
                checked += 1
    assert checked > 80_000
