"""The matchers that replaced backtracking regular expressions give the same answers, and a
glob's bracket expressions are read as bash reads them (bash is the judge).

The replaced expressions are kept here as the reference, on inputs small enough for them.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.permissions import decide
from tether.permissions.segment_globs import SegmentGlob
from tether.permissions.shell_variables import arithmetic_assigns
from tether.permissions.star_patterns import StarPattern

from .conftest import ContextFactory

SMALL = settings(max_examples=400, deadline=None, database=None)


@SMALL
@given(
    pieces=st.lists(st.text("ab ", max_size=3), min_size=1, max_size=4),
    text=st.text("ab ", max_size=10),
)
def test_a_star_pattern_matches_as_the_expression_did(pieces: list[str], text: str) -> None:
    reference = re.compile(".*".join(re.escape(p) for p in pieces), re.DOTALL)
    assert StarPattern(tuple(pieces)).fullmatch(text) == (reference.fullmatch(text) is not None)


def _reference_glob(glob: str, floating: bool) -> re.Pattern[str]:
    """The expression the path patterns were compiled to (a class never matches `/`)."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        at_start = i == 0 or glob[i - 1] == "/"
        if glob.startswith("**", i) and at_start and (i + 2 == len(glob) or glob[i + 2] == "/"):
            out.append(".*" if i + 2 == len(glob) else "(?:.*/)?")
            i += 2 if i + 2 == len(glob) else 3
        elif glob[i] == "*":
            while i < len(glob) and glob[i] == "*":
                i += 1
            out.append("[^/]*")
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob.startswith("[!a]", i):
            out.append("[^a/]")
            i += 4
        elif glob.startswith("[ab]", i):
            out.append("[ab]")
            i += 4
        else:
            out.append(re.escape(glob[i]))
            i += 1
    body = "".join(out)
    lead = "(?:.*/)?" if floating else ""
    return re.compile(f"{lead}{body}(?:/.*)?" if body else ".*", re.DOTALL)


GLOB_PARTS = ["a", "b", ".", "/", "*", "**", "?", "[ab]", "[!a]"]


@SMALL
@given(
    parts=st.lists(st.sampled_from(GLOB_PARTS), max_size=6),
    segments=st.lists(st.text("ab.", min_size=1, max_size=3), min_size=1, max_size=4),
    floating=st.booleans(),
)
def test_a_path_glob_matches_as_the_expression_did(
    parts: list[str], segments: list[str], floating: bool
) -> None:
    glob = "".join(parts).strip("/")
    if "//" in glob:
        return
    floating = floating and bool(glob) and "/" not in glob
    path = "/".join(segments)
    expected = _reference_glob(glob, floating).fullmatch(path) is not None
    assert SegmentGlob.of(glob, floating=floating).fullmatch(path) == expected, (glob, path)


_OLD_ASSIGNED = re.compile(
    r"(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)"
    r"|([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*(?:\+\+|--|(?:\*\*|<<|>>|[-+*/%&^|])?=(?!=))"
)


@SMALL
@given(st.lists(st.sampled_from(["PATH", "x", "[1]", "[", "]", " ", "=", "==", "+", "++", "-"])))
def test_arithmetic_assignments_are_found_wherever_the_expression_found_them(
    parts: list[str],
) -> None:
    """One pass finds every dangerous assignment the old search found (and may find more:
    `x++ + ++PATH`, which the search stepped over)."""
    text = "".join(parts)
    old = {m.group(1) or m.group(2) for m in _OLD_ASSIGNED.finditer(text)} & {"PATH"}
    assert old <= set(arithmetic_assigns(text)), text


BRACKET_PARTS = ["[", "]", "!", "^", "[:alpha:]", "[=n=]", ".", "e", "n", "v", "*", "?", "/"]


@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(parts=st.lists(st.sampled_from(BRACKET_PARTS), min_size=1, max_size=6))
def test_a_glob_that_bash_expands_to_a_denied_file_is_not_allowed(
    parts: list[str], make_ctx: ContextFactory
) -> None:
    """bash expands the word in a directory holding `.env`; when `.env` is among what it gives,
    `cat WORD` under `Read(./.env)` must not be allowed, whatever the brackets
    (`.en[[:alpha:]]`, `.en[!]]`, `.e[[=n=]]v` were allowed before)."""
    word = "." + "".join(parts)
    ctx = make_ctx({"permissions": {"allow": ["Bash(cat *)"], "deny": ["Read(./.env)"]}})
    expanded = subprocess.run(
        ["bash", "-c", f"printf '%s\\n' {word}"],
        cwd=ctx.workspace,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.splitlines()
    decision = decide("Bash", {"command": f"cat {word}"}, ctx)
    if ".env" in expanded:
        assert decision.behavior != "allow", (word, decision)


def test_brackets_bash_reads_as_one_class_are_one_character(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(cat *)"], "deny": ["Read(./.env)"]}})
    for word in (".en[[:alpha:]]", ".en[!]]", ".e[[=n=]]v", ".en[]v]", ".e[n]v"):
        assert decide("Bash", {"command": f"cat {word}"}, ctx).behavior != "allow", word
    for word in ("README[.]md", "[]", ".env[]", "a[/]b"):
        # No class (a plain `[`), or one that cannot reach `.env`.
        assert decide("Bash", {"command": f"cat {word}"}, ctx).behavior == "allow", word
    assert Path(ctx.workspace, ".env").exists()
