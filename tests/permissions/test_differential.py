"""Bash is the judge: generated commands that hide a `sentinel` program run for real in a
throwaway sandbox, and no command that ran it may have been allowed by a policy that does not
allow it.

Judged: the tricky cases below, every position of `sentinel_positions.py` once on its own
(the sweep), and hypothesis's combinations of them. Every command is run and judged, without
shrinking: one failure lists every bypass
found, each made smaller while it stays one, a class (policy and positions) per entry. Run with
`-s` to see the report of a passing run too, with how often harmless commands were allowed.

Policies:
- `deny`: `Bash(sentinel)` and `Bash(sentinel *)` denied, everyday programs allowed by rules
  (among them those whose options run other programs), default mode;
- `unlisted`: no rules at all, default mode: nothing allows the sentinel, so only the built-in
  read-only allowlist could, and it must not allow running it;
- `bypass`: the deny rules in bypassPermissions mode: deny rules still hold there.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st

from tether.permissions import decide

from .sentinel_commands import Sample, samples, sweep
from .sentinel_judge import Crash, Judge, Policies, contexts, crash_of, shortest_per_site
from .sentinel_sandbox import SENTINEL, Sandbox, make_sandbox

DENY = [f"Bash({SENTINEL})", f"Bash({SENTINEL} *)"]
EVERYDAY_PROGRAMS = "git find sed awk sort tar rg xargs timeout env nice bash sh cat echo gcc cc"
EVERYDAY = [f"Bash({program} *)" for program in EVERYDAY_PROGRAMS.split()]
POLICIES: Policies = {
    "deny": ({"permissions": {"deny": DENY, "allow": EVERYDAY}}, "default"),
    "unlisted": (None, "default"),
    "bypass": ({"permissions": {"deny": DENY}}, "bypassPermissions"),
}
GENERATED_EXAMPLES = 400
SANDBOXES = 3
MINIMISE_AT_MOST = 100
CRASH_EXAMPLES = 600

# Known-tricky commands, run before the generated ones; the last two are harmless.
TRICKY = [
    "echo `echo \\`sentinel\\``",
    "echo ${x:-$(sentinel)}",
    ": ${x:=`sentinel`}",
    "x='a[$(sentinel)]'; echo ${!x}",
    "x='a[$(sentinel)]'; [[ $x -eq 0 ]]",
    "x='$(sentinel)'; echo ${x@P}",
    "PS4='$(sentinel)'; set -x; :",
    "cat <<EOF\n'$(sentinel)\nEOF",
    "cat <<EOF; sentinel\nx\nEOF",
    "echo x\r$(sentinel)",
    "sentinel${IFS}x",
    "{sentinel,x}",
    "env -S'sentinel x'",
    "git -c alias.x='!sentinel' x",
    "git -c core.fsmonitor='sentinel #' status",
    "git grep -Osentinel alpha",
    "sed 's/.*/sentinel/e' a.txt",
    "awk 'BEGIN{system(\"sentinel\")}'",
    "sort -S 16k --compress-program=sentinel big.txt",
    "tar -I sentinel -tf a.tar",
    "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec=sentinel a.txt",
    "rg --pre sentinel alpha a.txt",
    "find . -maxdepth 0 -exec sentinel \\;",
    "echo x | xargs sentinel",
    "bash <<< sentinel",
    ". /dev/stdin <<< sentinel",
    "source <(echo sentinel)",
    "shopt -s expand_aliases\nalias f=sentinel\nf",
    "mapfile -C sentinel -c 1 <<< x",
    "echo \"${x:-'$(sentinel)'}\"",
    "bash --rcfile <(echo sentinel) -ic :",
    "! ! sentinel",
    '$"sentinel"',
    "compgen -C sentinel x",
    "eval -- sentinel",
    # single quotes bash reads as plain characters; code of start-up files; unknown runners
    "x=1; cat <<EOF\n${x:+'$(sentinel)'}\nEOF",
    "echo \"${x:-${y:-'`sentinel`'}}\"",
    "echo \"${x:-$'\\x24(sentinel)'}\"",
    "echo $(( '$(sentinel)' ))",
    "a['$(sentinel)']=1",
    "x=abc; echo ${x:0:'$(sentinel)'}",
    "bash --init-file <(echo sentinel) -i < /dev/null",
    "bash --rcfile /dev/stdin -i <<< sentinel",
    's$"entinel"',
    "flock .lock -c sentinel",
    "script -q -c 'true; sentinel' /dev/null",
    "setarch -R sentinel",
    "prlimit -n64 sentinel",
    "echo sentinel | script -q /dev/null",
    "gcc -wrapper sentinel -E -x c /dev/null -o /dev/null",
    "x86_64-linux-gnu-gcc-12 -wrapper /bin/sh,-c,sentinel -E -x c /dev/null",
    "echo sentinel",
    "'echo' \"a\"",
]


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    box = make_sandbox(tmp_path_factory.mktemp("differential"), SANDBOXES)
    if isinstance(box, str):
        pytest.skip(box)
    return box


def test_no_allowed_command_runs_the_sentinel(sandbox: Sandbox) -> None:
    judge = Judge(sandbox, contexts(POLICIES, sandbox.ws, sandbox.home))
    drawn: list[Sample] = []

    @settings(
        max_examples=GENERATED_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        # Every example is judged and kept; shrinking the first bypass would hide the others.
        phases=[Phase.generate],
    )
    @given(samples(str(sandbox.bin)))
    def draw(sample: Sample) -> None:
        drawn.append(sample)

    draw()
    tricky = [Sample(command, ("example",)) for command in TRICKY]
    judge.judge_all([*tricky, *sweep(str(sandbox.bin)), *drawn], workers=SANDBOXES)
    text = judge.report(POLICIES, MINIMISE_AT_MOST)
    print(text)
    if judge.findings or judge.crashes:
        pytest.fail(text)


def _nested(n: int, opening: str, closing: str) -> Sample:
    return Sample("echo " + opening * n + SENTINEL + closing * n, (f"nested {opening} x{n}",))


def _escaped_backticks(n: int) -> Sample:
    text = SENTINEL
    for _ in range(n):
        text = "`" + text.replace("\\", "\\\\").replace("`", "\\`") + "`"
    return Sample("echo " + text, (f"nested backticks x{n}",))


_odd_inputs = st.one_of(
    samples("/opt/differential/bin"),
    st.text(max_size=80).map(lambda t: Sample(t, ("text",))),
    st.one_of(
        st.integers(1, 500).map(lambda n: _nested(n, "$(", ")")),
        st.integers(1, 300).map(lambda n: _nested(n, "${x:-", "}")),
        st.integers(1, 300).map(lambda n: _nested(n, "<(", ")")),
        st.integers(1, 12).map(_escaped_backticks),
    ),
    st.tuples(
        st.sampled_from(["cat", "ls", "grep -r x", "find", "cd", "rm", "cp a"]),
        st.sampled_from(["/proc/1/root", "/proc/self/root", "/proc/1/cwd", "/dev/fd/3", "~root"]),
    ).map(lambda t: Sample(f"{t[0]} {t[1]}/etc/passwd", ("odd path",))),
)


def test_the_engine_never_raises(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir()
    ctxs = contexts(POLICIES, tmp_path / "ws", tmp_path / "home")
    crashes: list[Crash] = []

    @settings(
        max_examples=CRASH_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
    )
    @given(_odd_inputs)
    @example(_nested(250, "$(", ")"))
    @example(Sample("cat /proc/1/root/etc/passwd", ("odd path",)))
    def explore(sample: Sample) -> None:
        for ctx in ctxs.values():
            try:
                decide("Bash", {"command": sample.command}, ctx)
            except Exception as error:  # collected: one entry per site below
                crashes.append(crash_of(sample.command, error))

    explore()
    sites = shortest_per_site(crashes)
    text = "\n".join(f"{c.site}: {c.error}\n    command: {c.command!r}" for c in sites)
    if crashes:
        pytest.fail(f"{len(crashes)} decisions raised, at {len(sites)} sites:\n{text}")
