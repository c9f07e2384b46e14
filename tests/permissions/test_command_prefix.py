"""The rule Claude Code suggests for one part of a Bash command, and how it splits a command
into parts and pipeline stages: every row measured with Claude Code's CLI over the Agent SDK."""

from __future__ import annotations

import pytest

from tether.permissions.command_prefix import command_stages, prefix_rule

MEASURED = [
    ("npm run test -- --watch", "npm run *"),
    ("npm test", "npm test *"),
    ("git push", "git push *"),
    ("git cherry-pick abc", "git cherry-pick *"),
    ("npm run-script build", "npm run-script *"),
    ("docker compose up -d", "docker compose *"),
    ("/usr/bin/git push x", "/usr/bin/git push *"),
    ("make install 2>/dev/null", "make install *"),
    ("NODE_ENV=production npm run build", "npm run *"),
    ("RUST_LOG=debug cargo run", "cargo run *"),
    # The word after the program is no subcommand's name: the part exactly.
    ("make", "make"),
    ("make -j4 all", "make -j4 all"),
    ("python3 setup.py install", "python3 setup.py install"),
    ("docker Run x", "docker Run x"),
    ("foo 123 x", "foo 123 x"),
    ("foo a_b c", "foo a_b c"),
    ("foo a:b c", "foo a:b c"),
    ("foo 'bar' baz", "foo 'bar' baz"),
    ("chmod +x run.sh", "chmod +x run.sh"),
    ("foo -x bar > out.log", "foo -x bar > out.log"),
    # Other assignments keep the part exact, with them.
    ("FOO=1 make install", "FOO=1 make install"),
    ("FOO=1 BAR=2 npm run build", "FOO=1 BAR=2 npm run build"),
    ("NODE_ENV=production python3 x.py", "NODE_ENV=production python3 x.py"),
    # What runs is the operand of shells, wrappers and privilege changers.
    ("sudo apt-get install x", "sudo apt-get install x"),
    ("bash foo bar", "bash foo bar"),
    ("env foo bar", "env foo bar"),
    ("xargs rm", "xargs rm"),
    ("nice make install", "nice make install"),
    ("nohup make install", "nohup make install"),
    ("time make install", "time make install"),
    ("command foo bar", "command foo bar"),
]

EXACT = [
    # Claude Code offers a prefix for any program (`strace node *`, `foo a1 *`); tether only
    # for a program whose subcommands it reads: the others' next words are what they run.
    ("foo a1 c", "foo a1 c"),
    ("mv a b", "mv a b"),
    ("ssh host cmd", "ssh host cmd"),
    ("python3 foo bar", "python3 foo bar"),
    ("./run.sh test", "./run.sh test"),
    ('"foo" bar baz', '"foo" bar baz'),
    ("strace node app.js", "strace node app.js"),
    ("ltrace node app.js", "ltrace node app.js"),
    ("valgrind node x.js", "valgrind node x.js"),
    ("unbuffer python3 x.py", "unbuffer python3 x.py"),
    ("chronic make test", "chronic make test"),
    ("xvfb-run npm test", "xvfb-run npm test"),
    ("firejail node app.js", "firejail node app.js"),
    ("torsocks git fetch", "torsocks git fetch"),
    ("proxychains4 npm install", "proxychains4 npm install"),
    ("mise exec node", "mise exec node"),
    ("asdf exec node", "asdf exec node"),
    ("direnv exec make", "direnv exec make"),
    ("dotenv run make", "dotenv run make"),
    ("flock lockfile make build", "flock lockfile make build"),
    ("gdb node", "gdb node"),
    ("node server", "node server"),
    ("perf record node x.js", "perf record node x.js"),
    ("systemd-run node x.js", "systemd-run node x.js"),
]


@pytest.mark.parametrize(("part", "rule"), EXACT)
def test_a_program_whose_subcommands_are_not_read_is_suggested_exactly(
    part: str, rule: str
) -> None:
    assert prefix_rule(part) == rule


@pytest.mark.parametrize(("part", "rule"), MEASURED)
def test_a_part_is_suggested_as_claude_code_suggests_it(part: str, rule: str) -> None:
    assert prefix_rule(part) == rule


def test_a_star_in_an_exact_part_is_matched_as_written() -> None:
    assert prefix_rule("rm -f *.o") == "rm -f \\*.o"


def _texts(command: str) -> list[list[str]] | None:
    stages = command_stages(command)
    return None if stages is None else [[p.text for p in s] for s in stages]


def test_lists_stay_in_one_stage_and_pipes_start_the_next() -> None:
    assert _texts("npm run build && npm test") == [["npm run build", "npm test"]]
    assert _texts("a && b | c") == [["a", "b"], ["c"]]
    assert _texts("sh | make install && npm run x") == [["sh"], ["make install", "npm run x"]]
    assert _texts("a; b || c\nd") == [["a", "b", "c", "d"]]
    assert _texts("make install > out.log | tee x") == [["make install > out.log"], ["tee x"]]


def test_subshells_substitutions_and_compound_forms_are_not_read_this_way() -> None:
    for command in ("(make install)", "echo $(make install)", "for x in a; do b; done", "a &&"):
        assert command_stages(command) is None, command
