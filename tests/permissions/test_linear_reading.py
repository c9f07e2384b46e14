"""Every scan of a command's reading and judging is linear in its size, and counted.

Work is measured, not timed. Two counts: the steps the engine spends (the read's,
`Script.steps`, and the judgement's, `steps.metered`), which must grow with the input (every
scan is metered) and no faster than it; and the lines of the engine's Python the decision
executes (a tracer), which no metering can hide: a loop that scans forward from every `[`
of a word made 50,000 `[` cost 200 s while spending no step at all. Inputs are runs of the
characters that open, close or quote something, in the positions commands give them.

What runs below Python (tree-sitter's parse, regular expressions) is bounded in a child
process given a processor-time limit far above what linear work needs: before, each of those
inputs took minutes to hours.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import textwrap
from collections.abc import Generator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tether.permissions import PermissionContext, shell_tree, steps
from tether.permissions.bash_policy import judge_bash
from tether.permissions.shell import parse_command
from tether.permissions.shell_budget import TOO_LARGE
from tether.permissions.shell_walker import PARSE_ERROR

from .conftest import ContextFactory

RULES = {
    "permissions": {
        "allow": ["Bash(cat *)", "Bash(echo *)", "Bash(ls *)", "Bash(git *)", "Bash(grep *)"],
        "ask": ["Bash(curl *)"],
        "deny": [
            *("Read(./.env)", "Read(**/*.pem)", "Read(./secrets/**)", "Bash(rm *)"),
            *("Bash(git push --force *)", "Bash(curl * | sh)"),
        ],
    }
}

UNITS = [
    *("[", "x[", "[!a]", "[[:alpha:]", "]", "[]", "{", "{a,", "}", "{1..2}", "a,"),
    *('""', "''", '$"a"', "$'a'", "\\\\", "\\`", '"', "'"),
    *("$(", ")", "`", "${", "${x:-", "$((", "((", "$[", "<(", '"$(', "'$("),
    *("~", "*", "?", "**/", "../", "./", "$x", "a=", "PATH", "PATH[", "x[1]="),
    *(";", "&&", "|", "-x ", "--o=", ":", "@", "=", "#", "a "),
]
PAIRS = [("{", "}"), ("[", "]"), ("$(", ")"), ("${x:-", "}"), ("`", "`"), ("$((", "))")]
PREFIXES = [
    *("cat ", "echo ", "ls ", "grep -r x ", "git log ", "sed -e ", "awk ", "find . -name "),
    *("bash -c ", "x=", 'cat "', "cat '", "echo $(( ", "[[ ", "for x in ", "tar -C ", "jq "),
]


@contextmanager
def counting_lines() -> Generator[list[int]]:
    """Lines executed in the permission engine's own modules."""
    count = [0]

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            count[0] += 1
        return local

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        return local if "tether/permissions" in frame.f_code.co_filename else None

    sys.settrace(tracer)
    try:
        yield count
    finally:
        sys.settrace(None)


def work(command: str, ctx: PermissionContext) -> tuple[int, int]:
    """(lines executed, steps spent) by judging `command`, the parse included."""
    parse_command.cache_clear()
    with counting_lines() as lines, steps.metered(10**9) as meter:
        judge_bash(command, ctx)
    return lines[0], meter.used + parse_command(command).steps


EMPTY = st.just("")
STEP_LINES = 2_000
STEP_STEPS = 200
STEPS_PER_CHARACTER = 8


@settings(
    max_examples=30,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    prefix=st.sampled_from(PREFIXES),
    run=st.one_of(
        st.tuples(st.sampled_from(UNITS), EMPTY),
        st.sampled_from(PAIRS),
        st.tuples(
            st.lists(st.sampled_from(UNITS), min_size=2, max_size=3).map("".join), st.just("")
        ),
    ),
)
@example(prefix="echo $(( ", run=("x[x[1]='", ""))  # once failed: 9,816 steps against 1,808
@example(prefix="echo $(( ", run=('x["[!a]', ""))  # the large read stopped at MAX_NODES
@example(prefix="echo $(( ", run=("$['\\`", ""))  # every tail a rule text: 538 to 42,976 steps
@example(prefix="mytool ", run=("$x rm ", ""))  # every tail's unknown parts, searched one by one
# Each `'...'` judged by walking up to the `[[`, through one `&&` more each time (a left-deep
# tree): 19,329 lines at 600 characters, 116,029 at 2,400.
@example(prefix="echo ", run=("[[:alpha:]'&&", ""))
@example(prefix="ls ", run=("#", ""))  # a comment: the cheapest text to read
def test_work_grows_linearly_with_runs_of_any_shape(
    prefix: str, run: tuple[str, str], make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(RULES)
    opening, closing = run
    size = 600 // (len(opening) + len(closing))

    def command(n: int) -> str:
        return prefix + opening * n + "x" + closing * n

    small_lines, small_steps = work(command(size), ctx)
    large_lines, large_steps = work(command(4 * size), ctx)
    # f(4n) <= 5 f(n) holds for any f(n) = a + b n; a quadratic term breaks it. Plus a constant
    # for a path taken only past some length (`x=$[$[...`: 633 lines at 300 characters, 2,018
    # at 600, then 2.5 a character), far below what a square adds at these sizes (the one
    # found: 258,300 lines at 600 characters, 3,431,162 at 2,400).
    assert large_lines <= 5 * small_lines + STEP_LINES, (command(2)[:60], small_lines, large_lines)
    # Steps count syntax nodes, and tree-sitter's recovery from a broken command (`echo $((
    # x[x[1]='...`) gives trees of other shapes at other lengths, or the read stops at a bound
    # (MAX_NODES) with more spent per character than the small read's: up to some 4 steps a
    # character at 2,400 (9,816 against 1,808 at 600). The steps then stay within a linear bound
    # of their own; a square's would be hundreds a character here.
    assert large_steps <= 5 * small_steps + STEP_STEPS or large_steps <= STEPS_PER_CHARACTER * len(
        command(4 * size)
    ), (command(2)[:60], small_steps, large_steps)
    # Metered: three times as much text spends at least a step per 12 characters more, or the
    # command is too large to read or to judge and stops. (A comment is read cheapest: `ls #...`
    # spent 165 steps more for 1,800 characters more, one per 11; the floor was 8, and the
    # comment run, drawn once in 30 examples' worth of runs, failed it.)
    grown = len(command(4 * size)) - len(command(size))
    too_large = "too large to judge" in judge_bash(command(4 * size), ctx).verdict.reason
    assert (
        large_steps >= small_steps + grown // 12
        or parse_command(command(4 * size)).problems
        or too_large
    )


@pytest.mark.parametrize(
    ("head", "run", "count", "tail"),  # head + run * count + tail
    [
        ("echo q ", "[", 4_000, ""),
        ("x=", "[", 4_000, ""),
        ("cat q ", "{", 2_000, "}" * 2_000),
        ("echo $(( ", "a", 8_000, " == 1 ))"),
        ("bash -c ", "-x ", 800, "x"),  # each tail of the unread options was a rule text
        ("env ", "-u A ", 800, "ls"),  # each tail of a wrapper's options, the same
        ("bash -c ", "[!a]`", 480, "x"),  # each tail's words and options, under the bound
        ("mytool ", "git push -- ", 400, "x"),  # each tail's options, taken as a set
        ("mytool ", "c$xb ", 400, "x"),  # every tail's unknown parts against each rule
        ("mytool ", "git -C x ", 400, "x"),  # each `x` a path a tail may name
        ("", 'for f in *.py; do wc -l "$f"; done; ', 200, "x"),  # the text read once for all
        ("ls | xargs cat; ", "find . -name '*.py' -exec cat {} + ; ", 100, "x"),
    ],
)
def test_the_attacks_stay_linear(
    head: str, run: str, count: int, tail: str, make_ctx: ContextFactory
) -> None:
    """The reported inputs at a twentieth of their size: quadratic before (a `[` scanned to
    the end of its word for a `]`, a `{` sliced its whole body out, an arithmetic name was
    searched from each of its letters), linear now. The small command is the same command
    with a quarter of the run, so both end alike: a command cut anywhere may end in a word
    that settles it sooner (`mytool c$xb ... c$x` meets a deny rule at its first tail, where
    `... c$xb x` is searched through before an ask rule covers it)."""
    ctx = make_ctx(RULES)
    command = head + run * count + tail
    small, small_steps = work(head + run * (count // 4) + tail, ctx)
    large, large_steps = work(command, ctx)
    assert large <= 5 * small, (small, large)
    linear_steps = STEPS_PER_CHARACTER * len(command)
    assert large_steps <= 5 * small_steps + STEP_STEPS or large_steps <= linear_steps


@pytest.mark.parametrize("term", ["a -eq ", "$x -lt ", "$(a) -ge "])
def test_a_chain_of_operators_in_a_test_is_read_once(term: str, make_ctx: ContextFactory) -> None:
    """`[[ a -eq b -eq c ... ]]` nests each operator one level deeper (a left-deep tree), so
    each operand holds the rest of the chain: searching each operand for a substitution, or
    walking up from each quote, is quadratic. Before, 100 terms already spent the bound on
    syntax nodes (too large to judge), and the work grew with the square."""
    ctx = make_ctx(RULES)
    small, _ = work("[[ " + term * 100 + "x ]]", ctx)
    large, _ = work("[[ " + term * 400 + "x ]]", ctx)
    assert large <= 5 * small + STEP_LINES, (small, large)
    for count in (100, 400):
        parse_command.cache_clear()
        assert TOO_LARGE not in parse_command("[[ " + term * count + "x ]]").problems


@pytest.mark.parametrize("unit", ['""', '$"a"', "[!a]", "$'a'", "''"])
def test_a_word_of_many_parts_meets_the_node_bound_before_it_is_read(
    unit: str, make_ctx: ContextFactory
) -> None:
    """A word of 20,000 parts: its nodes count against the bound on syntax nodes as the walk
    reaches them, before the word is read part by part (before, all 40,000 were read, then
    the bound applied: over 650,000 lines executed, up to 2.4 million)."""
    ctx = make_ctx(RULES)
    lines, _ = work("cat q " + unit * 20_000, ctx)
    assert parse_command("cat q " + unit * 20_000).problems == (TOO_LARGE,)
    assert lines < 400_000


def test_a_parse_that_reads_the_text_again_and_again_is_given_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """tree-sitter's error recovery for `ls )))...` reads the rest of the run again for every
    token: the reads are counted, and past `MAX_READS_PER_BYTE` the parse stops (too large to
    judge). The processor-time bound is lifted here: the reads alone decide."""
    monkeypatch.setattr(shell_tree, "PARSE_CPU_SECONDS", float("inf"))
    for command in ("ls " + ")" * 20_000, "echo " + "$[" * 10_000, "echo " + "@(a|b)" * 4_000):
        parse_command.cache_clear()
        assert parse_command(command).problems == (TOO_LARGE,), command[:20]
    parse_command.cache_clear()
    long_and_plain = "cat <<EOF\n" + "line $(date) ${x:-y}\n" * 200 + "EOF\n"
    assert parse_command(long_and_plain).problems == ()


def test_a_parse_past_its_processor_time_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound that holds whatever the grammar does (`a|a|a...` keeps ever more readings of
    the line open, with no error and few reads): with no time at all, every watched parse
    stops; a command shorter than `WATCHED_FROM` is not watched."""
    monkeypatch.setattr(shell_tree, "PARSE_CPU_SECONDS", 0.0)
    parse_command.cache_clear()
    assert parse_command("a|" * 10_000 + "a").problems == (TOO_LARGE,)
    assert parse_command("echo ok").problems == ()


def test_a_parse_goes_on_only_a_little_after_an_error() -> None:
    """Whatever follows an error, the command is one the engine cannot see."""
    parse_command.cache_clear()
    script = parse_command(") " + "a " * 10_000)
    assert script.problems == (PARSE_ERROR,)
    assert script.invocations == ()
    short = parse_command(") ; rm -rf x")  # short: the whole tree, and its reasons
    assert PARSE_ERROR in short.problems


CHILD = textwrap.dedent(
    r"""
    import sys
    from pathlib import Path
    from tether.permissions import PermissionContext, decide, load_rules, suggest_rule

    ws = Path(sys.argv[1])
    rules = {"permissions": {
        "allow": ["Bash(git *)", "Bash(cat *)", "Bash(echo *)", "Bash(ls *)"],
        "deny": ["Bash(git * push * --force *)", "Read(a/**/b/**/c/**/d)",
                 "Read(**/secrets/**/*.key)", "Read(./.env)"],
    }}
    ctx = PermissionContext(mode="default", workspace=ws, cwd=ws, home=ws,
                            rules=load_rules([(ws / ".claude" / "settings.json", rules)],
                                             seed_yaml=None))
    calls = [
        ("Bash", {"command": "git log " + " push" * 16_000}),
        ("Bash", {"command": "cat a/" + "b/c/" * 20_000 + "x"}),
        ("Read", {"file_path": "a/" + "b/c/" * 20_000 + "x"}),
        ("Bash", {"command": "cat " + "secrets/" * 10_000 + "x"}),
        ("Bash", {"command": "echo $(( " + "a" * 90_000 + " == 1 ))"}),
        ("Bash", {"command": "ls " + ")" * 99_000}),
        ("Bash", {"command": "echo " + "$[" * 49_000}),
        ("Bash", {"command": "cat " + "|" * 99_000}),
        ("Bash", {"command": "a|" * 45_000 + "a"}),
        ("Bash", {"command": "echo " + "[" * 99_000}),
        ("Bash", {"command": "cat q " + "{" * 49_000 + "}" * 49_000}),
    ]
    for tool, call in calls:
        print(decide(tool, call, ctx).behavior, flush=True)
    print(suggest_rule("Bash", {"command": "/x/" + "1" * 99_000 + "x a"}, ctx))
    """
)
CPU_SECONDS = 120
"""Processor time for the child: linear work takes a few seconds of it; before, the first
input alone took hours (a rule with three stars is a cubic search)."""


def _limit_cpu() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


def test_what_runs_below_python_is_bounded_too(make_ctx: ContextFactory) -> None:
    """Regular expressions that backtracked (rule patterns with stars, path rules with `**`,
    an arithmetic name searched from every letter, a version suffix searched from every digit)
    and tree-sitter's superlinear parses, in a child that the kernel stops past its processor
    time."""
    ctx = make_ctx()
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(ctx.workspace)],
        capture_output=True,
        text=True,
        preexec_fn=_limit_cpu,
        check=False,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    lines = done.stdout.splitlines()
    assert len(lines) == 12, done.stdout
    assert all(line in ("allow", "ask", "deny") for line in lines[:-1]), lines
