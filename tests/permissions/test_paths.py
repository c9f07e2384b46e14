"""Path patterns (gitignore style, Claude Code anchors) and the glob overlap test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tether.permissions.paths import (
    ANY,
    ONE,
    ONE_NODOT,
    STAR,
    STAR_NODOT,
    Token,
    compile_path_pattern,
    expand_nodot,
    glob_tokens,
    globs_overlap,
    is_below,
    normalize,
    product_search,
    relative_below,
)

WS = Path("/ws")
HOME = Path("/home/me")


@pytest.mark.parametrize(
    ("text", "anchor", "glob", "floating"),
    [
        ("//etc/passwd", "root", "etc/passwd", False),
        ("~/.ssh/**", "home", ".ssh/**", False),
        ("~", "home", "", False),
        ("/src/**", "project", "src/**", False),
        ("./.env", "cwd", ".env", False),
        (".env", "cwd", ".env", True),
        ("*.pem", "cwd", "*.pem", True),
        ("build/", "cwd", "build", True),
        ("src/*.py", "cwd", "src/*.py", False),
        ("./", "cwd", "", False),
    ],
)
def test_anchors(text: str, anchor: str, glob: str, floating: bool) -> None:
    pattern = compile_path_pattern(text, project_root=Path("/proj"))
    assert (pattern.anchor, pattern.glob, pattern.floating) == (anchor, glob, floating)


def test_bases() -> None:
    def base(text: str) -> Path:
        pattern = compile_path_pattern(text, project_root=Path("/proj"))
        return pattern.base(workspace=WS, home=HOME)

    assert [base(t) for t in ("//x", "~/x", "/x", "./x", "x")] == [
        Path("/"),
        HOME,
        Path("/proj"),
        WS,
        WS,
    ]
    orphan = compile_path_pattern("/x", project_root=None)
    assert orphan.base(workspace=WS, home=HOME) == WS


@pytest.mark.parametrize(
    ("pattern", "path", "anywhere", "matches"),
    [
        ("./.env", "/ws/.env", False, True),
        ("./.env", "/ws/src/.env", False, False),
        ("./.env", "/ws/.env.example", False, False),
        (".env", "/ws/src/.env", False, True),
        (".env", "/elsewhere/.env", False, False),
        (".env", "/elsewhere/.env", True, True),
        ("*.pem", "/ws/a/b/key.pem", False, True),
        ("src/*.py", "/ws/src/a.py", False, True),
        ("src/*.py", "/ws/src/sub/a.py", False, False),
        ("src/**/*.py", "/ws/src/sub/deep/a.py", False, True),
        ("src/**/*.py", "/ws/src/a.py", False, True),
        ("**/secrets", "/ws/a/secrets/x", False, True),
        ("secrets", "/ws/secrets/deep/x", False, True),
        ("src/**", "/ws/src", False, False),
        ("src/**", "/ws/src/x", False, True),
        ("src/?.py", "/ws/src/a.py", False, True),
        ("src/?.py", "/ws/src/ab.py", False, False),
        ("src/[ab].py", "/ws/src/b.py", False, True),
        ("src/[!ab].py", "/ws/src/b.py", False, False),
        ("src/[!ab].py", "/ws/src/c.py", False, True),
        ("~/.ssh/**", "/home/me/.ssh/id_rsa", False, True),
        ("//etc/**", "/etc/passwd", False, True),
        ("./", "/ws/anything", False, True),
        ("./", "/ws", False, True),
        ("\\*.txt", "/ws/*.txt", False, True),
        ("\\*.txt", "/ws/a.txt", False, False),
    ],
)
def test_gitignore_matching(pattern: str, path: str, anywhere: bool, matches: bool) -> None:
    compiled = compile_path_pattern(pattern, project_root=None)
    base = compiled.base(workspace=WS, home=HOME)
    assert compiled.matches(path, base.as_posix(), anywhere=anywhere) == matches


@pytest.mark.parametrize(
    ("a", "b", "overlap"),
    [
        ("/ws/s*/key.pem", "/ws/**/*.pem", True),
        ("/ws/src/*.py", "/ws/**/*.pem", False),
        ("/ws/*", "/ws/.env", True),
        ("/ws/a?c", "/ws/abc", True),
        ("/ws/a?c", "/ws/a/c", False),
        ("/ws/a*c", "/ws/a/b/c", False),
        ("/ws/a**c", "/ws/a/b/c", True),
        ("/x/y", "/x/y", True),
        ("/x/y", "/x/z", False),
        ("/ws/**", "/home/**", False),
    ],
)
def test_globs_overlap(a: str, b: str, overlap: bool) -> None:
    assert globs_overlap(glob_tokens(a), glob_tokens(b)) == overlap
    assert globs_overlap(glob_tokens(b), glob_tokens(a)) == overlap


_TOKENS = st.lists(st.sampled_from(["a", "b", "/", ".", ONE, STAR, ANY, ONE_NODOT]), max_size=8)
_REGEX = {ONE: "[^/]", STAR: "[^/]*", ANY: ".*", ONE_NODOT: "[^/.]"}


def _regex(tokens: tuple[Token, ...]) -> str:
    return "".join(re.escape(t) if isinstance(t, str) else _REGEX[t] for t in tokens)


@settings(max_examples=2000, deadline=None)
@given(_TOKENS, _TOKENS, st.lists(st.sampled_from("ab/."), min_size=0, max_size=6))
def test_globs_overlap_shortcuts_keep_the_answer(
    a: list[Token], b: list[Token], shared: list[str]
) -> None:
    # A long common literal head and tail, as two absolute paths have, around random middles.
    head, tail = tuple("/tmp/ws/") + tuple(shared), tuple(shared)
    for x, y in ((tuple(a), tuple(b)), ((*head, *a, *tail), (*head, *b, *tail))):
        assert globs_overlap(x, y) == product_search(x, y)
        if all(isinstance(t, str) for t in y):
            text = "".join(str(t) for t in y)
            assert globs_overlap(x, y) == (re.fullmatch(_regex(x), text, re.DOTALL) is not None)


def test_shell_globs_do_not_match_leading_dots() -> None:
    star = ("/", STAR_NODOT)
    assert expand_nodot(star) == [("/",), ("/", ONE_NODOT, STAR)]
    env = tuple("/.env")
    assert not any(globs_overlap(form, env) for form in expand_nodot(star))
    assert any(globs_overlap(form, tuple("/x.env")) for form in expand_nodot(star))
    assert globs_overlap(("/", ONE_NODOT), tuple("/a"))
    assert not globs_overlap(("/", ONE_NODOT), tuple("/."))
    assert globs_overlap(("/", ONE), tuple("/."))
    assert globs_overlap((ANY,), tuple("/a/b"))
    many = expand_nodot((STAR_NODOT,) * 5, limit=2)
    assert len(many) == 4
    assert all(form[-3:] == (STAR, STAR, STAR) for form in many)


def test_normalize_and_below() -> None:
    assert normalize(Path("/ws/src/../.env")) == Path("/ws/.env")
    assert normalize(Path("/../../etc/./x")) == Path("/etc/x")
    assert relative_below("/ws/a/b", "/ws") == "a/b"
    assert relative_below("/ws", "/ws") == ""
    assert relative_below("/wsx/a", "/ws") is None
    assert relative_below("/a", "/") == "a"
    assert is_below(Path("/ws/a"), [Path("/other"), Path("/ws")])
    assert is_below(Path("/ws"), [Path("/ws")])
    assert not is_below(Path("/ws"), [Path("/ws")], strictly=True)
