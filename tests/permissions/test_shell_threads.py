"""Commands judged on many threads at once (the REPL builds its session in a worker thread,
subagents and CLI runs have threads of their own) read exactly as on one thread alone, the
odd and the deeply nested ones included, and whatever was parsed before. In a child process:
a crash in the native parser fails this test instead of ending the test run."""

from __future__ import annotations

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    r"""
    import random, sys, threading
    from tether.permissions.shell import parse_command

    def nested(n, opening, closing):
        return "echo " + opening * n + "sentinel" + closing * n

    def backticks(n):
        text = "sentinel"
        for _ in range(n):
            text = "`" + text.replace("\\", "\\\\").replace("`", "\\`") + "`"
        return "echo " + text

    rng = random.Random(7)
    atoms = ["$(", ")", "`", "<(", "${x:-", "}", "$((", "))", "<<EOF\n", "\nEOF\n", "<<-'E'\n",
             "\nE\n", "'", '"', "\\", "\n", ";", "&&", "|", " ", "x", "=", "case", "esac",
             "if", "fi", "{", "(", "[[", "]]", "\r", "\x7f", "é", "<<<", "2>&1"]
    commands = [nested(n, o, c) for n in (1, 40, 120, 300)
                for o, c in (("$(", ")"), ("${x:-", "}"), ("<(", ")"), ("$((", "))"))]
    commands += [backticks(n) for n in (1, 5, 10)]
    commands += ["cat <<A <<'B' <<-C\n$(a)\nA\n$(b)\nB\n\t$(c)\n\tC\n" * 20,
                 "cat <<EOF", "cat <<" + "D" * 3000 + "\nx\n" + "D" * 3000]
    commands += ["".join(rng.choice(atoms) for _ in range(rng.randint(1, 200)))
                 for _ in range(60)]

    # What one thread reads, each command parsed once, from a clean cache.
    alone = [parse_command(c) for c in commands]
    failures = []

    def judge(thread):
        # Past the cache: every thread parses every command (what is nested may be cached).
        for index, command in enumerate(commands * 3):
            if parse_command.__wrapped__(command) != alone[index % len(commands)]:
                failures.append((thread, command[:80]))

    threads = [threading.Thread(target=judge, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("differ", failures[:3] if failures else "none")
    """
)


def test_many_threads_read_every_command_as_one_thread_does() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", CHILD],
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    assert (done.returncode, done.stdout) == (0, "differ none\n"), done.stderr[-3000:]
